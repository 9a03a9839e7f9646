package commands_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/commands"
)

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
		steps = append(steps, string(a.Action)+" "+a.Login+"@"+a.Domain+" "+a.Outcome)
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
