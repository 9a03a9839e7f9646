package dnstest_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"

	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

const zone = `
$ORIGIN example.com.
@        MX    10 mx.yandex.net.
@        TXT   "v=spf1 redirect=_spf.yandex.net"
alias    CNAME www
www      A     192.0.2.1
a.b.deep TXT   "x"
`

// exchange asks srv one question over network, as an independent client
// (miekg/dns), and fails the test if no answer comes.
func exchange(t *testing.T, srv *dnstest.Server, network, name string, qtype uint16) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: network, Timeout: 2 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	r, _, err := c.Exchange(m, srv.Addr())
	if err != nil {
		t.Fatalf("Exchange(%s %s over %s): %v", name, dns.TypeToString[qtype], network, err)
	}
	return r
}

func TestServerAnswers(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, zone)
	tests := []struct {
		name      string
		qname     string
		qtype     uint16
		wantRcode int
		wantRRs   []string
	}{
		{"records", "EXAMPLE.com.", dns.TypeMX, dns.RcodeSuccess, []string{"example.com.\t3600\tIN\tMX\t10 mx.yandex.net."}},
		{"nodata", "example.com.", dns.TypeA, dns.RcodeSuccess, nil},
		{"empty non-terminal", "deep.example.com.", dns.TypeTXT, dns.RcodeSuccess, nil},
		{"nxdomain", "nope.example.com.", dns.TypeMX, dns.RcodeNameError, nil},
		{"cname asked", "alias.example.com.", dns.TypeCNAME, dns.RcodeSuccess, []string{"alias.example.com.\t3600\tIN\tCNAME\twww.example.com."}},
		{"cname followed", "alias.example.com.", dns.TypeA, dns.RcodeSuccess, []string{
			"alias.example.com.\t3600\tIN\tCNAME\twww.example.com.",
			"www.example.com.\t3600\tIN\tA\t192.0.2.1",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, network := range []string{"udp", "tcp"} {
				r := exchange(t, srv, network, tc.qname, tc.qtype)
				var got []string
				for _, rr := range r.Answer {
					got = append(got, rr.String())
				}
				if r.Rcode != tc.wantRcode || !r.Authoritative {
					t.Errorf("%s: rcode %s, authoritative %v; want %s, true", network, dns.RcodeToString[r.Rcode], r.Authoritative, dns.RcodeToString[tc.wantRcode])
				}
				if diff := cmp.Diff(tc.wantRRs, got); diff != "" {
					t.Errorf("%s: answer mismatch (-want +got):\n%s", network, diff)
				}
			}
		})
	}
}

func TestServerKnobs(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, zone)
	srv.NXDomain("www.example.com")
	srv.ServFail("alias.example.com.")
	srv.Refuse("a.b.deep.example.com.")
	for name, want := range map[string]int{
		"www.example.com.":      dns.RcodeNameError,
		"alias.example.com.":    dns.RcodeServerFailure,
		"a.b.deep.example.com.": dns.RcodeRefused,
	} {
		if r := exchange(t, srv, "udp", name, dns.TypeA); r.Rcode != want {
			t.Errorf("%s: rcode %s, want %s", name, dns.RcodeToString[r.Rcode], dns.RcodeToString[want])
		}
	}
}

func TestServerTruncates(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, zone)
	srv.Truncate("example.com")
	udp := exchange(t, srv, "udp", "example.com.", dns.TypeTXT)
	if !udp.Truncated || len(udp.Answer) != 0 {
		t.Errorf("over UDP: truncated %v with %d records, want truncated with none", udp.Truncated, len(udp.Answer))
	}
	tcp := exchange(t, srv, "tcp", "example.com.", dns.TypeTXT)
	if tcp.Truncated || len(tcp.Answer) != 1 {
		t.Errorf("over TCP: truncated %v with %d records, want the full answer", tcp.Truncated, len(tcp.Answer))
	}
	want := []dnstest.Query{{"example.com.", "TXT", "udp"}, {"example.com.", "TXT", "tcp"}}
	if diff := cmp.Diff(want, srv.Queries()); diff != "" {
		t.Errorf("Queries() mismatch (-want +got):\n%s", diff)
	}
}

func TestServerDrops(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, zone)
	srv.Drop("www.example.com")
	for _, network := range []string{"udp", "tcp"} {
		c := &dns.Client{Net: network, Timeout: 200 * time.Millisecond}
		m := new(dns.Msg)
		m.SetQuestion("www.example.com.", dns.TypeA)
		if r, _, err := c.Exchange(m, srv.Addr()); err == nil {
			t.Errorf("over %s: answered %v, want no answer", network, r)
		}
	}
	exchange(t, srv, "udp", "example.com.", dns.TypeMX) // other names still answered
	srv.DropAll()
	c := &dns.Client{Timeout: 200 * time.Millisecond}
	m := new(dns.Msg)
	m.SetQuestion("example.com.", dns.TypeMX)
	if r, _, err := c.Exchange(m, srv.Addr()); err == nil {
		t.Errorf("after DropAll: answered %v, want no answer", r)
	}
}

func TestServerAdd(t *testing.T) {
	t.Parallel()
	srv := dnstest.NewServer(t, zone)
	if r := exchange(t, srv, "udp", "yamail-x.example.com.", dns.TypeCNAME); r.Rcode != dns.RcodeNameError {
		t.Fatalf("before Add: rcode %s, want NXDOMAIN", dns.RcodeToString[r.Rcode])
	}
	srv.Add(t, "yamail-x.example.com. CNAME mail.yandex.ru.")
	r := exchange(t, srv, "udp", "yamail-x.example.com.", dns.TypeCNAME)
	if c, ok := firstCNAME(r); !ok || c.Target != "mail.yandex.ru." {
		t.Errorf("after Add: answer %v, want the CNAME", r.Answer)
	}
}

// firstCNAME is the first record of r's answer, when it is the only one and
// a CNAME.
func firstCNAME(r *dns.Msg) (*dns.CNAME, bool) {
	if len(r.Answer) != 1 {
		return nil, false
	}
	c, ok := r.Answer[0].(*dns.CNAME)
	return c, ok
}

func TestNewServerRejectsBadZone(t *testing.T) {
	t.Parallel()
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		dnstest.NewServer(ft, "example.com. MX notanumber mx.example.net.")
	}()
	<-done
	if !ft.failed {
		t.Error("NewServer accepted a zone that does not parse")
	}
}

// fatalRecorder records a Fatalf instead of failing the real test.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(string, ...any) {
	f.failed = true
	runtime.Goexit()
}
