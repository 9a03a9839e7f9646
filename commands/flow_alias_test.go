package commands_test

import (
	"context"
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
	if d.Verdict != commands.VerdictRun || label != commands.LabelOK {
		t.Fatalf("alias add: verdict %v, label %q: %s", d.Verdict, label, e.msgr.lastTo(admin1).PlainText())
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Fatalf("bob's aliases at the sandbox: %q", got)
	}
	notice, _ := e.msgr.last("notify")
	if want := "<@UADMIN1> added alias sales@example.com to mailbox bob@example.com; reason: new team"; notice.Text != want {
		t.Errorf("ops notice %q, want %q", notice.Text, want)
	}
	a := e.audit()
	if last := a[len(a)-1]; last.Action != commands.ActionAliasAdd || last.Login != "sales" || last.To != "bob@example.com" || last.Result != commands.ResultOK {
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
		if d.Verdict != commands.VerdictReply || !strings.Contains(e.msgr.lastTo(admin1).Text, "other.org") {
			t.Errorf("%s: verdict %v, reply %q; want a refusal naming other.org", line, d.Verdict, e.msgr.lastTo(admin1).Text)
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
		if d.Verdict != commands.VerdictReply || !strings.Contains(r.Text, "has no aliases") {
			t.Errorf("%s: verdict %v, reply %q", line, d.Verdict, r.Text)
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

// An offboarding blocks the mailbox and moves each alias, recording each
// step before it runs; run again, it skips every step and changes nothing.
func TestOffboardMailcow(t *testing.T) {
	sim, api := mailcowWorld(t)
	for _, a := range []string{"sales", "info", "jobs"} {
		if _, err := sim.AddAlias(a+"@example.com", "alice@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, api, commands.Config{}, nil)
	_, label := e.typed(admin1, "/mailbox offboard alice@example.com to bob@example.com left the company")
	r := e.msgr.lastTo(admin1)
	if label != commands.LabelOK || len(r.Steps) != 4 || !strings.HasPrefix(r.Steps[0], "Block alice@example.com: blocked") {
		t.Fatalf("offboard: label %q:\n%s", label, r.PlainText())
	}
	if m, _ := sim.Mailbox("alice@example.com"); m.State != "blocked" {
		t.Errorf("alice is %s", m.State)
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"info@example.com", "jobs@example.com", "sales@example.com"}) {
		t.Errorf("bob's aliases %q", got)
	}
	var steps []string
	for _, a := range e.audit() {
		steps = append(steps, string(a.Action)+" "+a.Login+"@"+a.Domain+" "+a.Result)
	}
	want := []string{"offboard alice@example.com ok", "block alice@example.com ok", "alias_move info@example.com ok",
		"alias_move jobs@example.com ok", "alias_move sales@example.com ok"}
	if !slices.Equal(steps, want) {
		t.Errorf("audit %q, want %q", steps, want)
	}
	notice, _ := e.msgr.last("notify")
	if !strings.Contains(notice.Text, "steps: Block alice@example.com: blocked") || !strings.Contains(notice.Text, "Move alias sales@example.com to bob@example.com: moved") {
		t.Errorf("ops notice %q lists not every step", notice.Text)
	}
	before := snapshot(sim)
	e.typed(admin1, "/mailbox offboard alice@example.com to bob@example.com")
	r = e.msgr.lastTo(admin1)
	if snapshot(sim) != before || !strings.Contains(r.Text, "Nothing was left to do") || !strings.Contains(r.Steps[0], "skipped") {
		t.Errorf("a second offboarding changed something (%q, was %q):\n%s", snapshot(sim), before, r.PlainText())
	}
}

// snapshot is the sandbox's record of alice's state and of alice's and
// bob's aliases: what an offboarding changes.
func snapshot(sim *mailcowsim.Server) string {
	m, _ := sim.Mailbox("alice@example.com")
	return m.State + strings.Join(sim.Aliases("alice@example.com"), ",") + strings.Join(sim.Aliases("bob@example.com"), ",")
}

// A step that fails stops the rest and the reply says what was and was
// not done; running it again finishes it, skipping what is done.
func TestOffboardStopsAndResumes(t *testing.T) {
	sim, api := mailcowWorld(t)
	for _, a := range []string{"a1", "a2", "a3"} {
		if _, err := sim.AddAlias(a+"@example.com", "alice@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	// successor, block look-up, block, list, move a1 (find, edit), move a2
	// (find, edit: refused).
	var n atomic.Int64
	sim.OnRequest(func() {
		if n.Add(1) == 8 {
			sim.FailNextWith(1, "alias_invalid")
		}
	})
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/mailbox offboard alice@example.com to bob@example.com")
	sim.OnRequest(nil)
	r := e.msgr.lastTo(admin1)
	want := []string{"Block alice@example.com: blocked", "Move alias a1@example.com to bob@example.com: moved",
		"Move alias a2@example.com to bob@example.com: failed", "Move alias a3@example.com to bob@example.com: not done"}
	if !r.Error || len(r.Steps) != len(want) {
		t.Fatalf("a failed offboarding:\n%s", r.PlainText())
	}
	for i, w := range want {
		if !strings.HasPrefix(r.Steps[i], w) {
			t.Errorf("step %d: %q, want %q…", i+1, r.Steps[i], w)
		}
	}
	e.typed(admin1, "/mailbox offboard alice@example.com to bob@example.com")
	r = e.msgr.lastTo(admin1)
	if r.Error || !strings.Contains(r.Steps[0], "skipped") || len(r.Steps) != 3 {
		t.Errorf("the second run:\n%s", r.PlainText())
	}
	if got := sim.Aliases("bob@example.com"); len(got) != 3 {
		t.Errorf("bob's aliases %q, want all three", got)
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
		if n.Add(1) == 3 { // the domains, the users, then the POST
			if err := sim.InjectFault(y360sim.FaultReset, 1); err != nil {
				t.Error(err)
			}
		}
	})
	e.typed(admin1, "/mailbox alias add info@example.com bob@example.com")
	sim.OnRequest(nil)
	if n.Load() != 5 { // the add's three, then the look-up's domains and users
		t.Errorf("an add whose answer was lost made %d requests, want 5: three, then a look-up and no second add", n.Load())
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

// failingBegin fails Begin from its n-th call on, as a database that went
// away mid-operation.
type failingBegin struct {
	commands.Store
	n, calls int
}

func (f *failingBegin) Begin(ctx context.Context, e commands.AuditEntry) (int64, error) {
	f.calls++
	if f.calls >= f.n {
		return 0, errDown
	}
	return f.Store.Begin(ctx, e)
}

// A step that cannot be recorded is not run: the offboarding stops there,
// and since a step changed something, the ops notice says what was done.
func TestOffboardStepNotRecorded(t *testing.T) {
	sim, api := mailcowWorld(t)
	if _, err := sim.AddAlias("sales@example.com", "alice@example.com"); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, api, commands.Config{}, func(s commands.Store) commands.Store { return &failingBegin{Store: s, n: 3} })
	e.typed(admin1, "/mailbox offboard alice@example.com to bob@example.com")
	r := e.msgr.lastTo(admin1)
	if !r.Error || len(r.Steps) != 2 || !strings.Contains(r.Steps[0], "blocked") || !strings.HasSuffix(r.Steps[1], "not done") {
		t.Errorf("reply:\n%s", r.PlainText())
	}
	if got := sim.Aliases("alice@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Errorf("a step that was not recorded ran: alice has %q", got)
	}
	if notice, ok := e.msgr.last("notify"); !ok || !strings.Contains(notice.Text, "Block alice@example.com: blocked") {
		t.Errorf("ops notice %q, want the step that was done", notice.Text)
	}
}

// An offboarding needs approval once, by as many admins as configured:
// nothing happens until the last approval, and the run carries the
// successor from the signed request.
func TestOffboardNofM(t *testing.T) {
	sim, api := mailcowWorld(t)
	if _, err := sim.AddAlias("sales@example.com", "alice@example.com"); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsAll, ApprovalsRequired: 2}, nil)
	p, ref := e.request(admin1, "/mailbox offboard alice@example.com to bob@example.com leaving")
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelCounted {
		t.Fatalf("first approval: %q", label)
	}
	if m, _ := sim.Mailbox("alice@example.com"); m.State != "active" || len(sim.Aliases("bob@example.com")) != 0 {
		t.Fatalf("something ran before the last approval: alice %s, bob %q", m.State, sim.Aliases("bob@example.com"))
	}
	if label := e.click(commands.ButtonApprove, p, admin3, ref); label != commands.LabelOK {
		t.Fatalf("second approval: %q", label)
	}
	if m, _ := sim.Mailbox("alice@example.com"); m.State != "blocked" || !slices.Equal(sim.Aliases("bob@example.com"), []string{"sales@example.com"}) {
		t.Errorf("after the approvals: alice %s, bob %q", m.State, sim.Aliases("bob@example.com"))
	}
	var run []string
	for _, a := range e.audit() {
		if a.Event == commands.EventRun {
			run = append(run, string(a.Action)+" "+a.RequestID+" "+strings.Join(a.Deciders, ","))
		}
	}
	want := []string{"offboard " + p.ID + " UADMIN2,UADMIN3", "block " + p.ID + " UADMIN2,UADMIN3", "alias_move " + p.ID + " UADMIN2,UADMIN3"}
	if !slices.Equal(run, want) {
		t.Errorf("audit runs %q, want %q", run, want)
	}
}
