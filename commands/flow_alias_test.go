package commands_test

import (
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands"
)

var aliasRetry = apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})

// mailcowWorld is the mailcow sandbox over HTTPS with the domain
// example.com and the mailboxes alice and bob, and a real client of it.
func mailcowWorld(t *testing.T) (*mailcowsim.Server, *mailcow.Client) {
	t.Helper()
	sim := mailcowsim.New()
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	c, err := mailcow.New(ts.URL, sim.NewAccount(), sim.Hostname(), apiclient.WithHTTPClient(ts.Client()), aliasRetry)
	if err != nil {
		t.Fatal(err)
	}
	sim.AddDomain("example.com")
	for _, login := range []string{"alice", "bob"} {
		if _, err := c.AddMailbox(t.Context(), "example.com", login, "Secret-12", false); err != nil {
			t.Fatal(err)
		}
	}
	return sim, c
}

// y360World is the Yandex 360 sandbox over HTTPS whose organisation has
// example.com (default) and example.org, the users alice and bob, and a
// real client of it.
func y360World(t *testing.T) (*y360sim.Server, *yandex360.Client) {
	t.Helper()
	sim := y360sim.New(y360sim.WithDefaultDomain("example.com"))
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	creds := sim.NewAccount()
	c, err := yandex360.New(ts.URL, creds.Token, yandex360.Settings{OrgID: creds.OrgID}, apiclient.WithHTTPClient(ts.Client()), aliasRetry)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.AddDomain("example.org"); err != nil {
		t.Fatal(err)
	}
	for _, login := range []string{"alice", "bob"} {
		if _, err := c.AddMailbox(t.Context(), "example.com", login, "Secret-12", false); err != nil {
			t.Fatal(err)
		}
	}
	return sim, c
}

// An admin adds, lists and removes an alias on mailcow: each change is an
// operation (audit entry with both addresses, ops notice), the list a read.
func TestAliasAddListRemove(t *testing.T) {
	sim, api := mailcowWorld(t)
	e := newEnv(t, api, commands.Config{Domains: []string{"example.com"}}, nil)
	d, label := e.typed(admin1, "/mailbox alias add sales@example.com bob@example.com new team")
	if d.Step != commands.StepRun || label != commands.LabelOK {
		t.Fatalf("alias add: verdict %v, label %q: %s", d.Step, label, e.msgr.lastTo(admin1).PlainText())
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Fatalf("bob's aliases at the sandbox: %q", got)
	}
	notice, _ := e.msgr.last("notify")
	if want := "<@UADMIN1> added alias sales@example.com to mailbox bob@example.com; reason: new team"; notice.Text != want {
		t.Errorf("ops notice %q, want %q", notice.Text, want)
	}
	a := e.audit()
	if last := a[len(a)-1]; last.Action != commands.ActionAliasAdd || last.Login != "sales" || last.To != "bob@example.com" || last.Outcome != commands.OutcomeOK {
		t.Errorf("audit entry %+v", last)
	}
	e.typed(admin1, "/mailbox aliases bob@example.com")
	if r := e.msgr.lastTo(admin1); !strings.Contains(r.PlainText(), "Alias: sales@example.com") {
		t.Errorf("aliases read:\n%s", r.PlainText())
	}
	entries := len(e.audit())
	e.typed(admin1, "/mailbox alias remove sales@example.com")
	if got := sim.Aliases("bob@example.com"); len(got) != 0 {
		t.Errorf("after the removal bob has %q", got)
	}
	if r := e.msgr.lastTo(admin1); r.Error || !strings.Contains(r.Title, "removed") {
		t.Errorf("remove reply:\n%s", r.PlainText())
	}
	if n := len(e.audit()); n != entries+1 {
		t.Errorf("the read and the removal made %d audit entries, want 1 (the read none)", n-entries)
	}
}

// Both addresses' domains must be allowed; a refusal calls nothing.
func TestAliasAllowList(t *testing.T) {
	sim, api := mailcowWorld(t)
	e := newEnv(t, api, commands.Config{Domains: []string{"example.com"}}, nil)
	before := sim.Requests()
	for _, line := range []string{
		"/mailbox alias add sales@example.com bob@other.org",
		"/mailbox alias add sales@other.org bob@example.com",
		"/mailbox offboard alice@example.com to bob@other.org",
		"/mailbox aliases bob@other.org",
	} {
		d, _ := e.typed(admin1, line)
		if d.Step != commands.StepReply || !strings.Contains(e.msgr.lastTo(admin1).Text, "other.org") {
			t.Errorf("%s: verdict %v, reply %q; want a refusal naming other.org", line, d.Step, e.msgr.lastTo(admin1).Text)
		}
	}
	if sim.Requests() != before {
		t.Errorf("refusals sent %d requests", sim.Requests()-before)
	}
}

// Under approvals, the request carries both addresses, signed: the
// approved run adds the alias to the mailbox asked for.
func TestAliasUnderApproval(t *testing.T) {
	sim, api := mailcowWorld(t)
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox alias add sales@example.com bob@example.com please")
	if p.Op.To != "bob@example.com" || !strings.Contains(p.Summary(nil), "add alias sales@example.com to mailbox bob@example.com") {
		t.Fatalf("pending %+v: %s", p.Op, p.Summary(nil))
	}
	decoded, err := e.core.DecodePending(e.core.EncodePending(p))
	if err != nil || decoded.Op != p.Op {
		t.Fatalf("the signed request decodes to %+v, %v; want %+v", decoded.Op, err, p.Op)
	}
	if rec := e.record(p.ID); rec.Op.To != "bob@example.com" {
		t.Errorf("the store keeps %+v", rec.Op)
	}
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK {
		t.Fatalf("approve: %q", label)
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Errorf("bob's aliases after approval: %q", got)
	}
}

// PDD has no aliases: alias commands and offboard … to are refused in
// words before any call; offboard without a successor still blocks.
func TestAliasesOnPDD(t *testing.T) {
	sb := newSandbox(t)
	if _, err := sb.client.AddMailbox(t.Context(), "example.com", "alice", "Secret-12", false); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, sb.client, commands.Config{}, nil)
	for _, line := range []string{
		"/mailbox alias add sales@example.com alice@example.com",
		"/mailbox alias remove sales@example.com",
		"/mailbox aliases alice@example.com",
		"/mailbox offboard alice@example.com to bob@example.com",
	} {
		d, _ := e.typed(admin1, line)
		r := e.msgr.lastTo(admin1)
		if d.Step != commands.StepReply || !strings.Contains(r.Text, "has no aliases") {
			t.Errorf("%s: verdict %v, reply %q", line, d.Step, r.Text)
		}
		if strings.HasPrefix(line, "/mailbox alias ") && strings.Contains(r.Note, "/mailbox alias") {
			t.Errorf("%s: the refusal suggests another alias command, which cannot work here either: %q", line, r.Note)
		}
	}
	if len(e.audit()) != 0 {
		t.Errorf("refusals were audited: %+v", e.audit())
	}
	e.typed(admin1, "/mailbox offboard alice@example.com leaving")
	if r := e.msgr.lastTo(admin1); r.Error || !strings.Contains(r.PlainText(), "Block alice@example.com: blocked") {
		t.Errorf("offboard without a successor:\n%s", r.PlainText())
	}
}

// On Yandex 360 an alias is a name at every domain of the organisation:
// the reply says so; one in a domain outside the organisation is refused
// in words before any write; an add whose answer is lost is looked up and
// not sent twice.
func TestAliasYandex360(t *testing.T) {
	sim, api := y360World(t)
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/mailbox alias add sales@example.org bob@example.com")
	if r := e.msgr.lastTo(admin1); r.Error || !strings.Contains(r.Text, "every domain of the organisation") {
		t.Errorf("Yandex 360 alias add:\n%s", r.PlainText())
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales"}) {
		t.Errorf("bob's aliases %q", got)
	}
	e.typed(admin1, "/mailbox alias add jobs@elsewhere.net bob@example.com")
	if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Text, "not a domain of the organisation") {
		t.Errorf("an alias outside the organisation:\n%s", r.PlainText())
	}
	var n atomic.Int64
	sim.OnRequest(func() {
		if n.Add(1) == 5 { // the resolve step's domains and users, the add's domains and users, then the POST
			if err := sim.InjectFault(y360sim.FaultReset, 1); err != nil {
				t.Error(err)
			}
		}
	})
	e.typed(admin1, "/mailbox alias add info@example.com bob@example.com")
	sim.OnRequest(nil)
	if n.Load() != 7 { // the resolve step's two, the add's three, then the look-up's domains and users
		t.Errorf("an add whose answer was lost made %d requests, want 7: the mailbox resolved, the add's three, then a look-up and no second add", n.Load())
	}
	if r := e.msgr.lastTo(admin1); r.Error {
		t.Errorf("an add whose answer was lost, then found:\n%s", r.PlainText())
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales", "info"}) {
		t.Errorf("bob's aliases %q: the lost add must be found, not sent again", got)
	}
	e.typed(admin1, "/mailbox offboard bob@example.com to alice@example.com")
	if r := e.msgr.lastTo(admin1); r.Error || len(r.Steps) != 3 {
		t.Errorf("Yandex 360 offboarding:\n%s", r.PlainText())
	}
	if got := sim.Aliases("alice@example.com"); len(got) != 2 {
		t.Errorf("alice's aliases %q", got)
	}
}

// Bare user names take the default domain, for the alias as for the
// mailbox; without one the refusal shows the alias command to type.
func TestAliasDefaultDomain(t *testing.T) {
	sim, api := mailcowWorld(t)
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/mailbox alias add info alice")
	if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Note, "/mailbox alias add sales@example.com bob@example.com") {
		t.Errorf("without a default domain:\n%s", r.PlainText())
	}
	e = newEnv(t, api, commands.Config{DefaultDomain: "example.com"}, nil)
	e.typed(admin1, "/mailbox alias add info alice")
	if got := sim.Aliases("alice@example.com"); !slices.Equal(got, []string{"info@example.com"}) {
		t.Errorf("alice's aliases %q:\n%s", got, e.msgr.lastTo(admin1).PlainText())
	}
	e.typed(admin1, "/mailbox offboard alice to bob")
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"info@example.com"}) {
		t.Errorf("bob's aliases %q:\n%s", got, e.msgr.lastTo(admin1).PlainText())
	}
}
