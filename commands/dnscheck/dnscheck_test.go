package dnscheck_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// The records of a domain whose mail is set up right, one line each.
const (
	goodMX     = "example.com. MX 10 mx.yandex.net.\n"
	goodSPF    = "example.com. TXT \"v=spf1 redirect=_spf.yandex.net\"\n"
	goodVerify = "yamail-abc123.example.com. CNAME mail.yandex.ru.\n"
	secretName = "abc123"
)

// Records the checklist tells the admin to publish.
const (
	publishMX     = "example.com. MX 10 mx.yandex.net."
	publishSPF    = `example.com. TXT "v=spf1 redirect=_spf.yandex.net"`
	publishVerify = "yamail-abc123.example.com. CNAME mail.yandex.ru."
)

// pdd is what PDD expects of a domain; secret is the verification
// secret's name, "" for no verification line.
func pdd(secret string) dnscheck.Expect {
	e := yandex()
	if secret != "" {
		e.Records = append(e.Records, apiclient.Record{Purpose: apiclient.PurposeVerification, Type: apiclient.TypeCNAME,
			Name: "yamail-" + secret, Value: "mail.yandex.ru", Secret: true})
	}
	return e
}

// yandex is what PDD and Yandex 360 expect of every domain: MX and SPF.
func yandex(more ...apiclient.Record) dnscheck.Expect {
	return dnscheck.Expect{Records: append([]apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: 10, Host: "mx.yandex.net"}), apiclient.SPFInclude("_spf.yandex.net")}, more...)}
}

// newChecker returns a checker that asks srv and waits at most timeout.
func newChecker(t testing.TB, srv *dnstest.Server, timeout time.Duration) *dnscheck.Checker {
	t.Helper()
	c, err := dnscheck.New(srv.Addr(), dnscheck.WithTimeout(timeout))
	if err != nil {
		t.Fatalf("New(%q): %v", srv.Addr(), err)
	}
	return c
}

// check runs one check of example.com against a server holding zone.
func check(t *testing.T, zone string, secret string, knobs func(*dnstest.Server)) dnscheck.Checklist {
	t.Helper()
	srv := dnstest.NewServer(t, zone)
	if knobs != nil {
		knobs(srv)
	}
	return newChecker(t, srv, 5*time.Second).Check(t.Context(), "example.com", pdd(secret))
}

func TestCheckRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		zone   string
		secret string
		want   []dnscheck.Item
	}{{
		name:   "all in place",
		zone:   goodMX + goodSPF + goodVerify,
		secret: secretName,
		want: []dnscheck.Item{
			{Kind: dnscheck.KindMX, Type: "MX", Name: "example.com.", State: dnscheck.StateOK, Found: []string{"mx.yandex.net"}},
			{Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateOK, Found: []string{"v=spf1 redirect=_spf.yandex.net"}},
			{Kind: dnscheck.KindVerification, Type: "CNAME", Name: "yamail-abc123.example.com.", State: dnscheck.StateOK, Found: []string{"mail.yandex.ru"}},
		},
	}, {
		name: "MX elsewhere too, names in other cases and priorities",
		zone: goodSPF + "example.com. MX 20 MX.Other.NET.\nexample.com. MX 5 Mx.Yandex.Net.\n",
		want: []dnscheck.Item{
			{Kind: dnscheck.KindMX, Type: "MX", Name: "example.com.", State: dnscheck.StateWrong, Found: []string{"mx.yandex.net", "mx.other.net"},
				Remove: []string{"mx.other.net"}, Reason: "mx.yandex.net is in place, but other hosts are listed too"},
			okSPF(),
		},
	}, {
		name: "only a wrong MX, SPF with the include",
		zone: "example.com. MX 10 mx.other.net.\nexample.com. TXT \"V=SPF1 ip4:192.0.2.1 include:_SPF.yandex.net. ~all\"\n",
		want: []dnscheck.Item{
			{Kind: dnscheck.KindMX, Type: "MX", Name: "example.com.", State: dnscheck.StateWrong, Found: []string{"mx.other.net"},
				Remove: []string{"mx.other.net"}, Publish: publishMX, Reason: "mail goes to other hosts"},
			{Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateOK, Found: []string{"V=SPF1 ip4:192.0.2.1 include:_SPF.yandex.net. ~all"}},
		},
	}, {
		name: "nothing published, other TXT records",
		zone: "example.com. TXT \"google-site-verification=x\"\nexample.com. A 192.0.2.1\nwww.example.com. A 192.0.2.1\n",
		want: []dnscheck.Item{
			{Kind: dnscheck.KindMX, Type: "MX", Name: "example.com.", State: dnscheck.StateMissing, Publish: publishMX},
			{Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateMissing, Publish: publishSPF},
		},
	}, {
		name: "SPF missing, TXT of another version",
		zone: goodMX + "example.com. TXT \"v=spf10 include:_spf.yandex.net\"\n",
		want: []dnscheck.Item{okMX(), {Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateMissing, Publish: publishSPF}},
	}, {
		name: "SPF without the include",
		zone: goodMX + "example.com. TXT \"v=spf1 mx -all\"\n",
		want: []dnscheck.Item{okMX(), {
			Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateWrong,
			Found: []string{"v=spf1 mx -all"}, Remove: []string{"v=spf1 mx -all"},
			Publish: `example.com. TXT "v=spf1 include:_spf.yandex.net mx -all"`,
			Reason:  "the v=spf1 record does not authorise _spf.yandex.net",
		}},
	}, {
		name: "SPF includes the service after all",
		zone: goodMX + "example.com. TXT \"v=spf1 -all include:_spf.yandex.net\"\n",
		want: []dnscheck.Item{okMX(), {
			Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateWrong,
			Found: []string{"v=spf1 -all include:_spf.yandex.net"}, Remove: []string{"v=spf1 -all include:_spf.yandex.net"},
			Publish: `example.com. TXT "v=spf1 include:_spf.yandex.net -all"`,
			Reason:  "the v=spf1 record does not authorise _spf.yandex.net",
		}},
	}, {
		name: "SPF duplicated, one right",
		zone: goodMX + goodSPF + "example.com. TXT \"v=spf1 mx -all\"\n",
		want: []dnscheck.Item{okMX(), {
			Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateWrong,
			Found:  []string{"v=spf1 redirect=_spf.yandex.net", "v=spf1 mx -all"},
			Remove: []string{"v=spf1 mx -all"}, Reason: "2 v=spf1 records, but a domain may have only one",
		}},
	}, {
		name: "SPF duplicated, none right",
		zone: goodMX + "example.com. TXT \"v=spf1 mx -all\"\nexample.com. TXT \"v=spf1 a ~all\"\n",
		want: []dnscheck.Item{okMX(), {
			Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateWrong,
			Found:   []string{"v=spf1 mx -all", "v=spf1 a ~all"},
			Remove:  []string{"v=spf1 mx -all", "v=spf1 a ~all"},
			Publish: `example.com. TXT "v=spf1 include:_spf.yandex.net mx -all"`,
			Reason:  "2 v=spf1 records, but a domain may have only one",
		}},
	}, {
		name:   "verification absent",
		zone:   goodMX + goodSPF,
		secret: secretName,
		want:   []dnscheck.Item{okMX(), okSPF(), {Kind: dnscheck.KindVerification, Type: "CNAME", Name: "yamail-abc123.example.com.", State: dnscheck.StateMissing, Publish: publishVerify}},
	}, {
		name:   "verification name has an address, no CNAME",
		zone:   goodMX + goodSPF + "*.example.com. A 192.0.2.1\nyamail-abc123.example.com. A 192.0.2.1\n",
		secret: secretName,
		want:   []dnscheck.Item{okMX(), okSPF(), {Kind: dnscheck.KindVerification, Type: "CNAME", Name: "yamail-abc123.example.com.", State: dnscheck.StateMissing, Publish: publishVerify}},
	}, {
		name:   "verification points elsewhere",
		zone:   goodMX + goodSPF + "yamail-abc123.example.com. CNAME Mail.Example.NET.\n",
		secret: secretName,
		want: []dnscheck.Item{okMX(), okSPF(), {
			Kind: dnscheck.KindVerification, Type: "CNAME", Name: "yamail-abc123.example.com.", State: dnscheck.StateWrong,
			Found: []string{"mail.example.net"}, Remove: []string{"mail.example.net"}, Publish: publishVerify,
			Reason: "yamail-abc123.example.com points to mail.example.net, not mail.yandex.ru",
		}},
	}, {
		name:   "verification secret name is no DNS label",
		zone:   goodMX + goodSPF,
		secret: "abc def",
		want: []dnscheck.Item{okMX(), okSPF(), {Kind: dnscheck.KindVerification, Type: "CNAME", State: dnscheck.StateError,
			Reason: "the verification record's name is not a valid DNS name, so nothing was looked up"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := check(t, tc.zone, tc.secret, nil)
			want := dnscheck.Checklist{Domain: "example.com", Items: tc.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func okMX() dnscheck.Item {
	return dnscheck.Item{Kind: dnscheck.KindMX, Type: "MX", Name: "example.com.", State: dnscheck.StateOK, Found: []string{"mx.yandex.net"}}
}

func okSPF() dnscheck.Item {
	return dnscheck.Item{Kind: dnscheck.KindSPF, Type: "TXT", Name: "example.com.", State: dnscheck.StateOK, Found: []string{"v=spf1 redirect=_spf.yandex.net"}}
}

// states is each item's kind and state, with the reason of those in error.
func states(c dnscheck.Checklist) []string {
	var out []string
	for _, it := range c.Items {
		s := string(it.Kind) + " " + it.State.String()
		if it.State == dnscheck.StateError {
			s += ": " + it.Reason
		}
		out = append(out, s)
	}
	return out
}

func TestCheckServerFailures(t *testing.T) {
	t.Parallel()
	zone := goodMX + goodSPF + goodVerify
	tests := []struct {
		name  string
		knobs func(*dnstest.Server)
		want  []string
	}{{
		name:  "NXDOMAIN",
		knobs: func(s *dnstest.Server) { s.NXDomain("example.com", "yamail-abc123.example.com") },
		want: []string{
			"MX could not check: example.com does not exist in DNS (NXDOMAIN)",
			"SPF could not check: example.com does not exist in DNS (NXDOMAIN)",
			"Verification could not check: example.com does not exist in DNS (NXDOMAIN)",
		},
	}, {
		name:  "SERVFAIL",
		knobs: func(s *dnstest.Server) { s.ServFail("example.com", "yamail-abc123.example.com") },
		want: []string{
			"MX could not check: the DNS server failed to answer (SERVFAIL)",
			"SPF could not check: the DNS server failed to answer (SERVFAIL)",
			"Verification could not check: the DNS server failed to answer (SERVFAIL)",
		},
	}, {
		name:  "REFUSED for the domain only",
		knobs: func(s *dnstest.Server) { s.Refuse("example.com") },
		want: []string{
			"MX could not check: the DNS server refused to answer (REFUSED)",
			"SPF could not check: the DNS server refused to answer (REFUSED)",
			"Verification in place",
		},
	}, {
		name:  "truncated over UDP, answered over TCP",
		knobs: func(s *dnstest.Server) { s.TruncateAll() },
		want:  []string{"MX in place", "SPF in place", "Verification in place"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := check(t, zone, secretName, tc.knobs)
			if diff := cmp.Diff(tc.want, states(got)); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckTruncatedFallsBackToTCP(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, goodMX+goodSPF)
	srv.Truncate("example.com")
	got := newChecker(t, srv, 5*time.Second).Check(t.Context(), "example.com", pdd(""))
	if !got.OK() {
		t.Fatalf("Check() = %v, want all in place", states(got))
	}
	asked := map[dnstest.Query]bool{}
	for _, q := range srv.Queries() {
		asked[q] = true
	}
	for _, q := range []dnstest.Query{
		{Name: "example.com.", Type: "MX", Net: "udp"}, {Name: "example.com.", Type: "MX", Net: "tcp"},
		{Name: "example.com.", Type: "TXT", Net: "udp"}, {Name: "example.com.", Type: "TXT", Net: "tcp"},
	} {
		if !asked[q] {
			t.Errorf("server never received %+v; got %+v", q, srv.Queries())
		}
	}
}

func TestCheckServerNeverAnswers(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, goodMX+goodSPF+goodVerify)
	srv.DropAll()
	got := newChecker(t, srv, 300*time.Millisecond).Check(t.Context(), "example.com", pdd(secretName))
	reason := "the DNS server did not answer within 300ms"
	want := []string{"MX could not check: " + reason, "SPF could not check: " + reason, "Verification could not check: " + reason}
	if diff := cmp.Diff(want, states(got)); diff != "" {
		t.Errorf("Check() mismatch (-want +got):\n%s", diff)
	}
	// The lookups share one deadline: every question went out before it.
	waitForQueries(t, srv, "MX", "TXT", "CNAME")
}

func TestCheckOneNameNeverAnswered(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, goodMX+goodSPF+goodVerify)
	srv.Drop("yamail-abc123.example.com")
	got := newChecker(t, srv, 300*time.Millisecond).Check(t.Context(), "example.com", pdd(secretName))
	want := []string{"MX in place", "SPF in place", "Verification could not check: the DNS server did not answer within 300ms"}
	if diff := cmp.Diff(want, states(got)); diff != "" {
		t.Errorf("Check() mismatch (-want +got):\n%s", diff)
	}
}

func TestCheckCancelled(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, goodMX+goodSPF)
	srv.DropAll()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		waitForQueries(t, srv, "MX", "TXT")
		cancel()
	}()
	got := newChecker(t, srv, time.Minute).Check(ctx, "example.com", pdd(""))
	reason := "the check was cancelled before the DNS server answered"
	if diff := cmp.Diff([]string{"MX could not check: " + reason, "SPF could not check: " + reason}, states(got)); diff != "" {
		t.Errorf("Check() mismatch (-want +got):\n%s", diff)
	}
}

// waitForQueries waits until srv has received a query of each type. It
// may run off the test's goroutine: it reports with Errorf.
func waitForQueries(t *testing.T, srv *dnstest.Server, types ...string) {
	t.Helper()
	received := testkit.Until(5*time.Second, nil, func() bool {
		seen := map[string]bool{}
		for _, q := range srv.Queries() {
			seen[q.Type] = true
		}
		for _, typ := range types {
			if !seen[typ] {
				return false
			}
		}
		return true
	})
	if !received {
		t.Errorf("server received %+v, want queries of types %v", srv.Queries(), types)
	}
}

func TestCheckConcurrent(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, goodMX+goodSPF+goodVerify)
	c := newChecker(t, srv, 5*time.Second)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if got := c.Check(t.Context(), "example.com", pdd(secretName)); !got.OK() {
				t.Errorf("Check() = %v, want all in place", states(got))
			}
		})
	}
	wg.Wait()
}

func TestCheckRefusesInvalidDomains(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, goodMX)
	c := newChecker(t, srv, 5*time.Second)
	for _, d := range []string{"", "com", "example..com", "-a.example.com", "a_b.example.com", "exa mple.com",
		"192.0.2.1", "example.com\n", "<!channel>.example.com", "пример.рф", strings.Repeat("a", 64) + ".com",
		strings.Repeat("abcdefghi.", 26) + "com"} {
		got := c.Check(t.Context(), d, pdd(secretName))
		if want := (dnscheck.Checklist{Err: dnscheck.ErrInvalidDomain}); !cmp.Equal(want, got, cmp.Comparer(errorsEqual)) {
			t.Errorf("Check(%q) = %+v, want %+v", d, got, want)
		}
	}
	if q := srv.Queries(); len(q) != 0 {
		t.Errorf("server received %+v for invalid domains, want nothing", q)
	}
	// A trailing dot and capitals are accepted.
	if got := c.Check(t.Context(), "Example.COM.", pdd("")); got.Domain != "example.com" || got.Err != nil {
		t.Errorf("Check(%q) = %+v, want a checklist of example.com", "Example.COM.", got)
	}
}

func errorsEqual(a, b error) bool { return a == b }

func TestNew(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "127.0.0.1:53", "[::1]:5353", "dns.example.net:53"} {
		if _, err := dnscheck.New(addr); err != nil {
			t.Errorf("New(%q): %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1", ":53", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:dns", "[::1]"} {
		if _, err := dnscheck.New(addr); err == nil {
			t.Errorf("New(%q) succeeded, want an error", addr)
		}
	}
	if _, err := dnscheck.New("", dnscheck.WithTimeout(0)); err == nil {
		t.Error("New with timeout 0 succeeded, want an error")
	}
	c, err := dnscheck.New("")
	if err != nil || c.Timeout() != dnscheck.DefaultTimeout {
		t.Errorf("New(\"\") = timeout %v, %v; want %v, nil", c.Timeout(), err, dnscheck.DefaultTimeout)
	}
}
