package m365_test

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
)

// A new user gets the usage location, the name from the form and the
// licence; the result says when the mailbox appears.
func TestAddNamedMailbox(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, func(s *m365.Settings) { s.UsageLocation = "de" })
	mb, err := c.AddNamedMailbox(t.Context(), "example.com", "ada", apiclient.NameOf("Ada King Lovelace"), "Secret-123", true)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := w.sim.Mailbox("ada@example.com")
	if !m.Licensed || m.UsageLocation != "DE" || m.DisplayName != "Ada King Lovelace" || m.GivenName != "Ada King" || m.Surname != "Lovelace" || !m.ForcePasswordChange {
		t.Errorf("the sandbox holds %+v", m)
	}
	if mb.UID != m.UID || !mb.PasswordChangeRequired || len(mb.Warnings) != 1 || !strings.Contains(mb.Warnings[0], "within a few minutes") {
		t.Errorf("result %+v", mb)
	}
}

// A user whose licence fails (no seat) is kept and reported; the same add
// again, once a seat is free, sets the new password and assigns the
// licence; an add of a user who holds it is "exists".
func TestAddWithoutSeat(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	if err := w.sim.SetSeats(m365sim.SKUExchange, 0); err != nil {
		t.Fatal(err)
	}
	mb, err := c.AddMailbox(t.Context(), "example.com", "bob", "First-Secret-1", false)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := w.sim.Mailbox("bob@example.com"); !ok || m.Licensed || len(mb.Warnings) != 1 ||
		!strings.Contains(mb.Warnings[0], "could not be assigned") || !strings.Contains(mb.Warnings[0], "available licenses") {
		t.Fatalf("without a seat: sandbox %+v, result %+v", m, mb)
	}
	if err := w.sim.SetSeats(m365sim.SKUExchange, 10); err != nil {
		t.Fatal(err)
	}
	mb, err = c.AddMailbox(t.Context(), "example.com", "bob", "Second-Secret-2", true)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := w.sim.Mailbox("bob@example.com"); !m.Licensed || m.Password != "Second-Secret-2" || !m.ForcePasswordChange || !mb.PasswordChangeRequired {
		t.Errorf("completed: sandbox %+v, result %+v", m, mb)
	}
	_, err = c.AddMailbox(t.Context(), "example.com", "bob", "Third-Secret-3", false)
	if apiclient.ReasonOf(err) != apiclient.ReasonExists {
		t.Errorf("an add of a licensed user: %v, want exists", err)
	}
	if m, _ := w.sim.Mailbox("bob@example.com"); m.Password != "Second-Secret-2" {
		t.Error("an add of a licensed user changed its password")
	}
}

// A user without a licence whose sign-in is blocked is not one an add
// left unfinished (an add creates users enabled) but, typically, a former
// employee whose licence was taken back at offboarding: an add of that
// address is the exists refusal, with no new password and no licence, so
// that nobody is handed a password to someone else's account.
func TestAddDoesNotCompleteABlockedUser(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	if err := w.sim.SetSeats(m365sim.SKUExchange, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.com", "dee", "First-Secret-1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetLoginEnabled(t.Context(), "example.com", "dee", false); err != nil {
		t.Fatal(err)
	}
	if err := w.sim.SetSeats(m365sim.SKUExchange, 10); err != nil {
		t.Fatal(err)
	}
	_, err := c.AddMailbox(t.Context(), "example.com", "dee", "Second-Secret-2", false)
	if apiclient.ReasonOf(err) != apiclient.ReasonExists {
		t.Errorf("an add of a blocked user without a licence: %v, want exists", err)
	}
	if m, _ := w.sim.Mailbox("dee@example.com"); m.Password != "First-Secret-1" || m.Licensed {
		t.Errorf("an add of a blocked user without a licence changed it: %+v", m)
	}
}

// An add whose answer was lost leaves a user without its licence: the
// look-up the core makes next says so.
func TestLookupWithoutLicence(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	if err := c.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.sim.InjectFault(m365sim.FaultReset, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.com", "cy", "Lost-Secret-1", false); apiclient.ClassOf(err) != apiclient.ClassUncertain {
		t.Fatalf("lost add: %v", err)
	}
	mb, err := c.LookupMailbox(t.Context(), "example.com", "cy")
	if err != nil || len(mb.Warnings) != 1 || !strings.Contains(mb.Warnings[0], "no licence") {
		t.Errorf("look-up: %+v, %v", mb, err)
	}
}

// A block sets accountEnabled false and ends the sessions; the blocked
// user still receives mail (the capability says so); an unblock ends none.
func TestBlockRevokesSessions(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 1)
	c := w.client(t, nil)
	if !c.Capabilities().KeepsMailWhenBlocked || !c.Capabilities().ReadOnlyAliases {
		t.Errorf("capabilities %+v", c.Capabilities())
	}
	mb, err := c.SetLoginEnabled(t.Context(), "example.com", "user0001", false)
	if m, _ := w.sim.Mailbox("user0001@example.com"); err != nil || mb.State != apiclient.StateBlocked || m.State != "blocked" || m.Revoked != 1 || !m.Licensed {
		t.Errorf("block: %+v, %v; sandbox %+v", mb, err, m)
	}
	if _, err := c.SetLoginEnabled(t.Context(), "example.com", "user0001", true); err != nil {
		t.Fatal(err)
	}
	if m, _ := w.sim.Mailbox("user0001@example.com"); m.State != "active" || m.Revoked != 1 {
		t.Errorf("unblock: sandbox %+v", m)
	}
}

// An address is its user's own (userPrincipalName), an alias of another
// (a proxy address), or nothing; a user holding a directory role is an
// administrator. Aliases are the lower-case smtp: proxy addresses.
func TestResolveMailbox(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 2)
	c := w.client(t, nil)
	for _, p := range []string{"smtp:Sales@example.com", "SIP:user0001@example.com", "smtp:info@example.com"} {
		if err := w.sim.AddProxyAddress("user0001@example.com", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.sim.AddRole("user0002@example.com", "Exchange Administrator"); err != nil {
		t.Fatal(err)
	}
	r, err := c.ResolveMailbox(t.Context(), "example.com", "sales")
	if err != nil || !r.Alias || r.Address != "user0001@example.com" || r.Admin {
		t.Errorf("an alias: %+v, %v", r, err)
	}
	r, err = c.ResolveMailbox(t.Context(), "example.com", "user0002")
	if err != nil || r.Alias || !r.Admin || r.Address != "user0002@example.com" {
		t.Errorf("an administrator: %+v, %v", r, err)
	}
	if _, err := c.ResolveMailbox(t.Context(), "example.com", "nobody"); apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
		t.Errorf("nothing: %v", err)
	}
	got, err := c.ListAliases(t.Context(), "user0001@example.com")
	if err != nil || strings.Join(got, " ") != "info@example.com sales@example.com" {
		t.Errorf("aliases %q, %v", got, err)
	}
}

// A domain's list is Graph's advanced query (the sandbox refuses it
// without $count and ConsistencyLevel), a page at a time by the
// $skiptoken of @odata.nextLink; every page carries @odata.count as the
// total.
func TestListPages(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 25)
	c := w.client(t, nil)
	cursor, seen := "", 0
	for pages := 1; ; pages++ {
		p, err := c.ListMailboxes(t.Context(), "example.com", cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 25 || len(p.Mailboxes) > 10 {
			t.Errorf("page %d: total %d, %d mailboxes", pages, p.Total, len(p.Mailboxes))
		}
		seen += len(p.Mailboxes)
		if cursor = p.Next; cursor == "" || pages > 3 {
			break
		}
	}
	if seen != 25 || cursor != "" {
		t.Errorf("%d mailboxes listed, cursor %q", seen, cursor)
	}
}

// The DNS a domain must publish is what serviceConfigurationRecords say
// (the MX host, SPF, the autodiscover CNAME as advice), DKIM's selector1
// and selector2 CNAMEs as advice, and, while the domain is not verified,
// its MS=ms… record, a secret.
func TestMailDNSRecords(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	if _, err := c.RegisterDomain(t.Context(), "fresh.example"); err != nil {
		t.Fatal(err)
	}
	dns, err := c.MailDNS(t.Context(), "fresh.example")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]apiclient.Record{}
	for _, r := range dns.Records {
		got[r.Purpose+" "+r.Name] = r
	}
	checks := []struct {
		key, value string
		advice     bool
	}{
		{"SPF ", "spf.protection.outlook.com", false},
		{"Autodiscover autodiscover", "autodiscover.outlook.com", true},
		{"DKIM selector1._domainkey", "", true},
		{"DKIM selector2._domainkey", "", true},
		{"Verification ", w.sim.VerificationRecord("fresh.example"), false},
	}
	for _, c := range checks {
		if r, ok := got[c.key]; !ok || r.Value != c.value || r.Advice != c.advice {
			t.Errorf("%s: %+v (found %v), want value %q, advice %v", c.key, r, ok, c.value, c.advice)
		}
	}
	if mx := got["MX "]; len(mx.MX) != 1 || mx.MX[0].Host != "fresh-example.mail.protection.outlook.com" {
		t.Errorf("MX %+v", mx)
	}
	if !got["Verification "].Secret || got["DKIM selector1._domainkey"].Type != apiclient.TypeCNAME {
		t.Errorf("the verification record is no secret, or DKIM no CNAME: %+v", dns.Records)
	}
}
