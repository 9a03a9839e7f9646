package commands_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// verifyToken is the TXT record verifyProvider asks for.
const verifyToken = "google-site-verification=t0k3n-for-the-test"

// verifyProvider verifies domains on request, as Google does: its status
// gives the TXT record of an unverified domain, and VerifyDomain verifies.
type verifyProvider struct {
	*fakeProvider
	verified atomic.Bool
	verifies atomic.Int64
	status   error // DomainStatus's error, if any
}

func (p *verifyProvider) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: "Google Workspace", UIDs: true, Paged: true, VerifiesOwnership: true, NoMailWhenBlocked: true}
}

func (p *verifyProvider) DomainStatus(_ context.Context, domain string) (*apiclient.Domain, error) {
	if p.status != nil {
		return nil, p.status
	}
	if p.verified.Load() {
		return &apiclient.Domain{Name: domain, Status: "verified", Verified: true}, nil
	}
	return &apiclient.Domain{Name: domain, Status: "unverified", VerifyTXT: verifyToken}, nil
}

func (p *verifyProvider) VerifyDomain(_ context.Context, domain string) (*apiclient.Domain, error) {
	p.verifies.Add(1)
	p.verified.Store(true)
	return &apiclient.Domain{Name: domain, Status: "verified", Verified: true}, nil
}

// statusReply runs /maildomain status example.com as admin1 with DNS
// serving zone, and returns the reply and the provider.
func statusReply(t *testing.T, zone string, statusErr error) (commands.Reply, *verifyProvider, *env) {
	t.Helper()
	srv := dnstest.NewServer(t, zone)
	checker, err := dnscheck.New(srv.Addr(), dnscheck.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	p := &verifyProvider{fakeProvider: &fakeProvider{}, status: statusErr}
	e := newEnv(t, p, commands.Config{DNS: checker, CredentialsVariable: "GOOGLE_CREDENTIALS_FILE"}, nil)
	e.typed(admin1, "/maildomain status example.com")
	got, ok := e.msgr.last("deliver")
	if !ok {
		t.Fatal("no reply to the status")
	}
	return got.Reply, p, e
}

func TestStatusVerifiesOncePublished(t *testing.T) {
	t.Parallel()
	r, p, e := statusReply(t, "example.com. TXT \"v=spf1 include:_spf.google.com ~all\"\n", nil)
	if p.verifies.Load() != 0 || len(e.audit()) != 0 {
		t.Errorf("the record is not in DNS: %d verifications asked, %d audit entries; want none", p.verifies.Load(), len(e.audit()))
	}
	if !strings.Contains(strings.Join(r.Steps, "\n"), `example.com. TXT "`+verifyToken+`"`) || !strings.Contains(r.Text, "not in DNS yet") {
		t.Errorf("status of an unverified domain does not say which TXT record to publish, and that it is not in DNS: %+v", r)
	}
	r, p, e = statusReply(t, "example.com. TXT \""+verifyToken+"\"\n", nil)
	if p.verifies.Load() != 1 || !strings.Contains(r.Text, "verified now") {
		t.Fatalf("the record is in DNS: %d verifications asked, reply %+v; want one, and the domain verified", p.verifies.Load(), r)
	}
	entries := e.audit()
	if len(entries) != 1 || entries[0].Event != commands.EventVerify || entries[0].Domain != "example.com" ||
		entries[0].Actor != admin1 || entries[0].Outcome != commands.OutcomeOK || entries[0].Status != "verified" {
		t.Errorf("audit after the verification: %+v; want one verify entry of admin1's, ok", entries)
	}
	if n := len(e.msgr.of("notify")); n != 0 {
		t.Errorf("a verification from status made %d ops notices, want none (a read)", n)
	}
}

func TestCredentialsReplyNamesTheAdaptersSetting(t *testing.T) {
	t.Parallel()
	refused := &apiclient.Error{Provider: apiclient.ProviderGoogle, Op: apiclient.OpDomainStatus, Class: apiclient.ClassCredentials, Setting: "GOOGLE_ADMIN"}
	r, _, _ := statusReply(t, "", refused)
	if !strings.Contains(r.Text, "GOOGLE_ADMIN") || strings.Contains(r.Text, "GOOGLE_CREDENTIALS") {
		t.Errorf("a refusal naming GOOGLE_ADMIN answered %q", r.Text)
	}
	refused.Setting = ""
	r, _, _ = statusReply(t, "", refused)
	if !strings.Contains(r.Text, "GOOGLE_CREDENTIALS_FILE") {
		t.Errorf("a refusal naming no setting answered %q, want the configured GOOGLE_CREDENTIALS_FILE", r.Text)
	}
}
