package commands

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// dnsProvider is fakeAPI as another provider: its name, capabilities and
// MailDNS answer are the test's; it counts MailDNS calls.
type dnsProvider struct {
	fakeAPI
	name    string
	caps    apiclient.Capabilities
	dns     *apiclient.MailDNS
	err     error
	dnsRead atomic.Int64
}

func (p *dnsProvider) Name() string                         { return p.name }
func (p *dnsProvider) Capabilities() apiclient.Capabilities { return p.caps }

func (p *dnsProvider) MailHosts() apiclient.MailDNS {
	if p.dns == nil {
		return apiclient.MailDNS{}
	}
	return apiclient.MailDNS{Records: append(p.dns.Of(apiclient.PurposeMX), p.dns.Of(apiclient.PurposeSPF)...)}
}

func (p *dnsProvider) MailDNS(context.Context, string) (*apiclient.MailDNS, error) {
	p.dnsRead.Add(1)
	return p.dns, p.err
}

// The providers of these tests, as their adapters describe a domain.
func mailcowProvider(dns *apiclient.MailDNS, err error) *dnsProvider {
	return &dnsProvider{name: apiclient.ProviderMailcow, caps: apiclient.Capabilities{Title: "mailcow", KeepsMailWhenBlocked: true}, dns: dns, err: err}
}

func yandex360Provider(dns *apiclient.MailDNS, err error) *dnsProvider {
	return &dnsProvider{name: apiclient.ProviderYandex360, caps: apiclient.Capabilities{Title: "Yandex 360", Paged: true, VerifiesOwnership: true, OwnAddresses: true}, dns: dns, err: err}
}

// A mailcow server's DKIM key, as get/dkim gives it.
const dkimKeyB64 = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAq1Testkey"

var mailcowDNS = mailcowWith(apiclient.DKIMRecord(apiclient.DKIMKey{Selector: "dkim", PublicKey: dkimKeyB64}))

// mailcowWith is what a mailcow server at mail.example.net says a domain
// must publish: MX, SPF, and more.
func mailcowWith(more ...apiclient.Record) *apiclient.MailDNS {
	return &apiclient.MailDNS{Records: append([]apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: 10, Host: "mail.example.net"}), apiclient.SPFHost("mail.example.net")}, more...)}
}

// yandexWith is what Yandex 360 says a domain must publish: MX, SPF, and
// the ways of proof (label, code pairs).
func yandexWith(methods ...string) *apiclient.MailDNS {
	d := pdd.Hosts()
	for i := 0; i+1 < len(methods); i += 2 {
		d.Records = append(d.Records, apiclient.Record{Purpose: apiclient.PurposeVerification, Label: methods[i], Value: methods[i+1],
			Match: apiclient.MatchShown, Secret: true})
	}
	return &d
}

const mailcowZone = `
example.com.                 MX  10 mail.example.net.
example.com.                 TXT "v=spf1 mx -all"
dkim._domainkey.example.com. TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A" "MIIBCgKCAQEAq1Testkey"
`

// checkReply runs the core's checklist of example.com against a DNS server
// holding zone, as the button (verify) or typed.
func checkReply(t *testing.T, api Provider, zone string, record *apiclient.Record, verify bool) Reply {
	t.Helper()
	srv := dnstest.NewServer(t, zone)
	checker, err := dnscheck.New(srv.Addr(), dnscheck.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return newCore(t, api, Config{DNS: checker}).reads.checklist(t.Context(), "example.com", record, verify)
}

func TestChecklistFollowsTheProvider(t *testing.T) {
	t.Parallel()
	temporary := &apiclient.Error{Provider: apiclient.ProviderMailcow, Op: apiclient.OpDNS, Class: apiclient.ClassTemporary, Attempts: 3}
	y360Down := &apiclient.Error{Provider: apiclient.ProviderYandex360, Op: apiclient.OpDNS, Class: apiclient.ClassUncertain, Attempts: 3}
	tests := []struct {
		name      string
		api       *dnsProvider
		zone      string
		record    *apiclient.Record
		verify    bool
		wantSteps []string
		wantError bool
	}{{
		name: "mailcow, all in place",
		api:  mailcowProvider(mailcowDNS, nil),
		zone: mailcowZone,
		wantSteps: []string{
			"✅ MX: in place (mail.example.net)",
			`✅ SPF: in place ("v=spf1 mx -all")`,
			"✅ DKIM: in place (dkim._domainkey.example.com carries the server's key)",
		},
	}, {
		name: "mailcow without a DKIM key",
		api:  mailcowProvider(mailcowWith(), nil),
		zone: mailcowZone,
		wantSteps: []string{
			"✅ MX: in place (mail.example.net)",
			`✅ SPF: in place ("v=spf1 mx -all")`,
		},
	}, {
		name: "mailcow's key could not be read: MX and SPF from what the adapter knows",
		api:  mailcowProvider(mailcowWith(), temporary),
		zone: mailcowZone,
		wantSteps: []string{
			"✅ MX: in place (mail.example.net)",
			`✅ SPF: in place ("v=spf1 mx -all")`,
			"⚠️ DKIM: could not check: the provider did not give the domain's DKIM key. Mailcow did not answer usefully: try again later.",
		},
		wantError: true,
	}, {
		name: "mailcow said nothing",
		api:  mailcowProvider(nil, temporary),
		zone: mailcowZone,
		wantSteps: []string{
			"⚠️ MX: could not check: the provider did not say which host the MX must name. Mailcow did not answer usefully: try again later.",
			"⚠️ SPF: could not check: the provider did not say what the SPF record must authorise. Mailcow did not answer usefully: try again later.",
			"⚠️ DKIM: could not check: the provider did not give the domain's DKIM key. Mailcow did not answer usefully: try again later.",
		},
		wantError: true,
	}, {
		name:   "Yandex 360's button shows the methods and codes",
		api:    yandex360Provider(yandexWith("dns", "c0de1", "meta", "c0de2"), nil),
		zone:   "example.com. MX 10 mx.yandex.net.\nexample.com. TXT \"v=spf1 redirect=_spf.yandex.net\"\n",
		verify: true,
		wantSteps: []string{
			"✅ MX: in place (mx.yandex.net)",
			`✅ SPF: in place ("v=spf1 redirect=_spf.yandex.net")`,
			`ℹ️ Verification: not checked here: the provider checks ownership itself, by one of these methods: "dns" with code "c0de1", "meta" with code "c0de2"`,
		},
	}, {
		name:   "Yandex 360 typed: no verification line, no codes",
		api:    yandex360Provider(yandexWith("dns", "c0de1"), nil),
		zone:   "example.com. MX 10 mx.yandex.net.\nexample.com. TXT \"v=spf1 redirect=_spf.yandex.net\"\n",
		verify: false,
		wantSteps: []string{
			"✅ MX: in place (mx.yandex.net)",
			`✅ SPF: in place ("v=spf1 redirect=_spf.yandex.net")`,
		},
	}, {
		name:   "Yandex 360's methods could not be read",
		api:    yandex360Provider(yandexWith(), y360Down),
		zone:   "example.com. MX 10 mx.yandex.net.\nexample.com. TXT \"v=spf1 redirect=_spf.yandex.net\"\n",
		verify: true,
		wantSteps: []string{
			"✅ MX: in place (mx.yandex.net)",
			`✅ SPF: in place ("v=spf1 redirect=_spf.yandex.net")`,
			"⚠️ Verification: could not check: the provider did not give the ways to verify the domain. Yandex 360 did not answer usefully: try again later.",
		},
		wantError: true,
	}, {
		name:   "PDD's button: the verification CNAME",
		api:    &dnsProvider{name: apiclient.ProviderPDD, caps: apiclient.Capabilities{Title: "the PDD API", VerifiesOwnership: true}, dns: yandexWith()},
		zone:   "example.com. MX 10 mx.yandex.net.\nexample.com. TXT \"v=spf1 redirect=_spf.yandex.net\"\n",
		record: pdd.SecretsOf("example.com", "abc123", "c0ntent").Record,
		verify: true,
		wantSteps: []string{
			"✅ MX: in place (mx.yandex.net)",
			`✅ SPF: in place ("v=spf1 redirect=_spf.yandex.net")`,
			"❌ Verification: missing; publish: yamail-abc123.example.com. CNAME mail.yandex.ru.",
		},
		wantError: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := checkReply(t, tc.api, tc.zone, tc.record, tc.verify)
			if diff := cmp.Diff(tc.wantSteps, r.Steps); diff != "" {
				t.Errorf("checklist lines mismatch (-want +got):\n%s", diff)
			}
			if r.Error != tc.wantError || r.Title != "DNS records of example.com" {
				t.Errorf("reply %q, error %v; want the checklist of example.com, error %v", r.Title, r.Error, tc.wantError)
			}
			if n := tc.api.dnsRead.Load(); n != 1 || tc.api.calls.Load() != 0 {
				t.Errorf("provider asked MailDNS %d times and %d other calls, want MailDNS once and nothing else", n, tc.api.calls.Load())
			}
		})
	}
}

// TestChecklistNeverShowsTheSecretContent: PDD's button carries the
// secret's name; the checklist holds the name, never the content.
func TestChecklistNeverShowsTheSecretContent(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	d, err := api.RegisterDomain(t.Context(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	r := checkReply(t, api, "example.com. MX 10 mx.yandex.net.\n", d.Secrets.Record, true)
	text := strings.Join(append([]string{r.Title, r.Text, r.Note}, r.Steps...), "\n")
	if !strings.Contains(text, "yamail-"+d.Secrets.Name) || strings.Contains(text, d.Secrets.Content) {
		t.Errorf("checklist = %q, want the verification name and never the secret content", text)
	}
}
