package commands_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/commands"
)

// googleWorld is the Google sandbox over HTTPS with the verified domains
// example.com and other.org, the users ada, bob and carol of example.com,
// the aliases sales@example.com (ada's), team@example.com and
// bob@other.org (bob's), and a real client acting as the sandbox's admin
// (returned too).
func googleWorld(t testing.TB) (*googlesim.Server, *google.Client, string) {
	t.Helper()
	sim := googlesim.New()
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	acct := sim.NewAccount()
	c, err := google.New(ts.URL, acct.KeyFile(ts.URL), acct.Admin, google.Settings{}, apiclient.WithHTTPClient(ts.Client()), aliasRetry)
	if err != nil {
		t.Fatal(err)
	}
	sim.AddDomain("example.com")
	sim.AddDomain("other.org")
	for _, login := range []string{"ada", "bob", "carol"} {
		if _, err := c.AddMailbox(t.Context(), "example.com", login, "Secret-1234", false); err != nil {
			t.Fatal(err)
		}
	}
	for alias, to := range map[string]string{"sales@example.com": "ada@example.com", "team@example.com": "bob@example.com", "bob@other.org": "bob@example.com"} {
		if _, err := c.AddAlias(t.Context(), alias, to); err != nil {
			t.Fatal(err)
		}
	}
	return sim, c, acct.Admin
}

// unchanged fails the test if the sandbox's record of address is not
// before.
func unchanged(t *testing.T, sim *googlesim.Server, address string, before googlesim.MailboxInfo, what string) {
	t.Helper()
	if got, _ := sim.Mailbox(address); got != before {
		t.Errorf("%s changed %s: %+v, was %+v", what, address, got, before)
	}
}

// An alias given where a mailbox is meant is refused in words naming the
// mailbox it delivers to, for every command on an existing mailbox, with
// nothing written, no audit entry and no password shown.
func TestResolveAliasRefused(t *testing.T) {
	t.Parallel()
	sim, api, _ := googleWorld(t)
	e := newEnv(t, api, commands.Config{People: directory()}, nil)
	ada, _ := sim.Mailbox("ada@example.com")
	bob, _ := sim.Mailbox("bob@example.com")
	for _, line := range []string{
		"/mailbox reset sales@example.com",
		"/mailbox reset sales@example.com for <@UADA>",
		"/mailbox block sales@example.com",
		"/mailbox unblock sales@example.com",
		"/mailbox offboard sales@example.com",
		"/mailbox offboard ada@example.com to team@example.com",
		"/mailbox alias add info@example.com sales@example.com",
	} {
		_, label := e.typed(admin1, line)
		r := e.msgr.lastTo(admin1)
		if label != commands.LabelError && label != commands.LabelRefused || !r.Error || !strings.Contains(r.Text, "is an alias of") ||
			!strings.Contains(r.Text, "Nothing was done") || secretOf(r) != "" {
			t.Errorf("%s: %q\n%s\nwant a refusal naming the mailbox the alias delivers to", line, label, r.PlainText())
		}
		unchanged(t, sim, "ada@example.com", ada, line)
		unchanged(t, sim, "bob@example.com", bob, line)
	}
	if r := e.msgr.lastTo(admin1); !strings.Contains(r.Text, "sales@example.com is an alias of ada@example.com") {
		t.Errorf("refusal %q: want it to name sales@example.com and ada@example.com", r.Text)
	}
	if got := sim.Aliases("ada@example.com"); len(got) != 1 {
		t.Errorf("ada's aliases %q: want sales alone (no alias added to an alias)", got)
	}
	if n := len(e.audit()); n != 0 {
		t.Errorf("%d audit entries: want none for refusals", n)
	}
	if offers := e.msgr.handoverCalls("offer"); len(offers) != 0 {
		t.Errorf("a hand-over was offered: %+v", offers[0].View.Handover)
	}
}

// An administrator (super or delegated) and the account mailbot acts as
// are refused for reset, block and offboard; unblock and a plain
// mailbox's reset are not refused.
func TestResolveAdminRefused(t *testing.T) {
	t.Parallel()
	sim, api, self := googleWorld(t)
	if err := sim.SetAdmin("ada@example.com", googlesim.RoleSuper); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetAdmin("carol@example.com", googlesim.RoleDelegated); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, api, commands.Config{}, nil)
	ada, _ := sim.Mailbox("ada@example.com")
	carol, _ := sim.Mailbox("carol@example.com")
	for _, line := range []string{"/mailbox reset ada@example.com", "/mailbox block carol@example.com", "/mailbox offboard ada@example.com"} {
		e.typed(admin1, line)
		r := e.msgr.lastTo(admin1)
		if !r.Error || !strings.Contains(r.Text, "is an administrator: change it in the provider's console") || secretOf(r) != "" {
			t.Errorf("%s:\n%s\nwant refused as an administrator", line, r.PlainText())
		}
	}
	unchanged(t, sim, "ada@example.com", ada, "an administrator's reset")
	unchanged(t, sim, "carol@example.com", carol, "an administrator's block")
	before, _ := sim.Mailbox(self)
	e.typed(admin1, "/mailbox reset "+self)
	if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Text, self+" is the account mailbot acts as") {
		t.Errorf("reset of the account mailbot acts as:\n%s", r.PlainText())
	}
	unchanged(t, sim, self, before, "a reset of the account mailbot acts as")
	if _, label := e.typed(admin1, "/mailbox reset bob@example.com"); label != commands.LabelOK {
		t.Errorf("a plain mailbox's reset: %q\n%s", label, e.msgr.lastTo(admin1).PlainText())
	}
	if _, label := e.typed(admin1, "/mailbox unblock ada@example.com"); label != commands.LabelOK {
		t.Errorf("an administrator's unblock, which locks nobody out: %q", label)
	}
	if n := len(e.audit()); n != 2 {
		t.Errorf("%d audit entries: want the two that ran", n)
	}
}

// The resolve step comes before the approval request: an alias is refused
// with nothing asked of the admins, and a request for a mailbox names
// its own address. The allow-list cannot be walked around through an
// alias in an allowed domain.
func TestResolveBeforeApprovalAndAllowList(t *testing.T) {
	t.Parallel()
	sim, api, _ := googleWorld(t)
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, Domains: []string{"other.org"}}, nil)
	bob, _ := sim.Mailbox("bob@example.com")
	_, label := e.typed(user1, "/mailbox reset bob@other.org")
	r := e.msgr.lastTo(user1)
	if label != commands.LabelRefused || !strings.Contains(r.Text, "bob@other.org is an alias of bob@example.com") || !strings.Contains(r.Text, "Nothing was asked of the admins") {
		t.Errorf("a request through an alias in an allowed domain: %q\n%s", label, r.PlainText())
	}
	if _, ok := e.msgr.last("post"); ok {
		t.Error("a request for an alias was posted for the admins")
	}
	if _, label := e.typed(admin1, "/mailbox block bob@other.org"); label == commands.LabelOK {
		t.Errorf("an admin's block through an alias: %q", label)
	}
	unchanged(t, sim, "bob@example.com", bob, "a request through an alias")
	e2 := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, _ := e2.request(user1, "/mailbox reset bob@example.com")
	if p.Op.Target() != "bob@example.com" {
		t.Errorf("the request names %s, want bob@example.com", p.Op.Target())
	}
}

// Self-service resets only the mailbox whose own address is the caller's
// confirmed e-mail: a shared alias is refused, before the reset is
// counted, and the mailbox it delivers to is unchanged.
func TestResolveSelfServiceSharedAlias(t *testing.T) {
	t.Parallel()
	sim, api, _ := googleWorld(t)
	people := directory()
	people.people["UCAROL"] = commands.Person{Email: "team@example.com", EmailConfirmed: true}
	e := newEnv(t, api, commands.Config{SelfService: commands.SelfServiceReset, People: people}, nil)
	bob, _ := sim.Mailbox("bob@example.com")
	_, label := e.typed("UCAROL", "/mailbox reset")
	r := e.msgr.lastTo("UCAROL")
	if label != commands.LabelRefused || !strings.Contains(r.Text, "team@example.com is an alias of bob@example.com") || secretOf(r) != "" {
		t.Errorf("self-service by a shared alias: %q\n%s", label, r.PlainText())
	}
	unchanged(t, sim, "bob@example.com", bob, "self-service by a shared alias")
	if offers := e.msgr.handoverCalls("offer"); len(offers) != 0 {
		t.Errorf("a hand-over was offered: %+v", offers[0].View.Handover)
	}
	if _, label := e.typed(newHire, "/mailbox reset"); label != commands.LabelOK {
		t.Errorf("self-service by the own address (Ada@Example.com): %q\n%s", label, e.msgr.lastTo(newHire).PlainText())
	}
}

// A look-up that fails temporarily is a temporary failure with nothing
// done, never a guess.
func TestResolveLookupFails(t *testing.T) {
	t.Parallel()
	sim, api, _ := googleWorld(t)
	e := newEnv(t, api, commands.Config{}, nil)
	ada, _ := sim.Mailbox("ada@example.com")
	if err := sim.InjectFault(googlesim.Fault503, 3); err != nil {
		t.Fatal(err)
	}
	_, label := e.typed(admin1, "/mailbox reset ada@example.com")
	r := e.msgr.lastTo(admin1)
	if label != commands.LabelError || !strings.Contains(r.Note, "Nothing was done") || secretOf(r) != "" {
		t.Errorf("reset whose look-up failed: %q\n%s", label, r.PlainText())
	}
	unchanged(t, sim, "ada@example.com", ada, "a reset whose look-up failed")
}

// Yandex 360: a user's name in another domain of the organisation is
// refused naming the user's own address; mailcow: an alias is refused
// naming its mailbox.
func TestResolveOtherNamesYandex360AndMailcow(t *testing.T) {
	t.Parallel()
	ysim, yapi := y360World(t)
	e := newEnv(t, yapi, commands.Config{}, nil)
	_, label := e.typed(admin1, "/mailbox block alice@example.org")
	if r := e.msgr.lastTo(admin1); label == commands.LabelOK || !strings.Contains(r.Text, "alice@example.org is another name of alice@example.com") {
		t.Errorf("Yandex 360 block by another domain's name: %q\n%s", label, r.PlainText())
	}
	if m, _ := ysim.Mailbox("alice@example.com"); m.State != "active" {
		t.Errorf("alice is %s, want active", m.State)
	}
	msim, mapi := mailcowWorld(t)
	if _, err := msim.AddAlias("sales@example.com", "alice@example.com"); err != nil {
		t.Fatal(err)
	}
	before, _ := msim.Mailbox("alice@example.com")
	e = newEnv(t, mapi, commands.Config{}, nil)
	e.typed(admin1, "/mailbox reset sales@example.com")
	if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Text, "sales@example.com is an alias of alice@example.com") || secretOf(r) != "" {
		t.Errorf("mailcow reset of an alias:\n%s", r.PlainText())
	}
	if after, _ := msim.Mailbox("alice@example.com"); after != before {
		t.Errorf("mailcow: alice changed: %+v, was %+v", after, before)
	}
}

// A hand-over's click looks the mailbox up again: one that has become an
// administrator since the offer is refused, and its password is not set.
func TestResolveHandoverClickOfAnAdministrator(t *testing.T) {
	t.Parallel()
	sim, api, _ := googleWorld(t)
	e := newEnv(t, api, commands.Config{People: directory()}, nil)
	if _, label := e.typed(admin1, "/mailbox reset bob@example.com for <@UADA>"); label != commands.LabelOK {
		t.Fatalf("reset for: %q\n%s", label, e.msgr.lastTo(admin1).PlainText())
	}
	offer := offered(t, e)
	if err := sim.SetAdmin("bob@example.com", googlesim.RoleSuper); err != nil {
		t.Fatal(err)
	}
	before, _ := sim.Mailbox("bob@example.com")
	if got := e.show(offer, newHire); got != commands.LabelRefused {
		t.Fatalf("the click on an administrator's hand-over: %q, want refused", got)
	}
	r := e.msgr.lastTo(newHire)
	if secretOf(r) != "" || !strings.Contains(r.Text, "bob@example.com is an administrator") || strings.Contains(r.Note, "button still works") {
		t.Errorf("the click's answer:\n%s\nwant refused as an administrator, no password", r.PlainText())
	}
	unchanged(t, sim, "bob@example.com", before, "the click on an administrator's hand-over")
}
