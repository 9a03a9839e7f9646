package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// sweep runs one sweep and checks how many expiries and reminders it did.
func (e *env) sweep(wantExpired, wantReminded int) {
	e.t.Helper()
	expired, reminded := e.core.Sweep(e.t.Context())
	if expired != wantExpired || reminded != wantReminded {
		e.t.Errorf("at %s, Sweep = %d expired, %d reminded; want %d, %d",
			e.clk.Now().Format("15:04:05.000"), expired, reminded, wantExpired, wantReminded)
	}
}

// TestExpiry expires a request by the sweep, without a click, at its
// deadline and not before: its message loses the buttons, the requester
// is told once, a second sweep does nothing, and a click after it runs
// nothing.
func TestExpiry(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: time.Hour}, nil)
	p, ref := e.request(user1, "/mailbox add erin@example.com")
	e.clk.Advance(time.Hour - time.Millisecond)
	e.sweep(0, 0)
	mark := e.msgr.mark()
	e.clk.Advance(time.Millisecond)
	e.sweep(1, 0)
	e.sweep(0, 0)
	e.clk.Advance(time.Minute)
	e.sweep(0, 0)
	ups := e.msgr.of("update")
	if len(ups) != 1 || ups[0].Ref != ref || ups[0].View.State != commands.StateExpired || ups[0].View.Buttons() {
		t.Errorf("request message updates = %+v, want one, expired, without buttons", ups)
	}
	if rs := e.msgr.to(user1); len(rs) != 2 || rs[1].Title != "Request expired" {
		t.Errorf("the requester got %+v, want the pending notice and one expiry", rs)
	}
	sweepCalls := e.msgr.since(mark)
	if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelDecided {
		t.Errorf("approve after the expiry = %q, want already decided", label)
	}
	if r := e.msgr.lastTo(admin1); !strings.Contains(r.Text, "expired without a decision") {
		t.Errorf("the late approver was told %q, want that it expired", r.Text)
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
	if rs := e.msgr.to(user1); len(rs) != 2 {
		t.Errorf("the requester got %d answers after a late click, want still 2", len(rs))
	}
	commands.Golden(t, "flow/expired", e.msgr.transcript(sweepCalls))
}

// TestExpiryByClick checks a click that comes after the deadline but
// before the sweep: it runs nothing, expires the request, and tells the
// requester once; the sweep then has nothing to do.
func TestExpiryByClick(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: time.Hour}, nil)
	p, ref := e.request(user1, "/maildomain register example.com")
	q, qref := e.request(user2, "/maildomain register example.org")
	e.clk.Advance(time.Hour)
	if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelExpired {
		t.Errorf("approve at the deadline = %q, want expired", label)
	}
	if label := e.click(commands.ButtonDeny, q, admin1, qref); label != commands.LabelExpired {
		t.Errorf("deny at the deadline = %q, want expired", label)
	}
	e.sweep(0, 0)
	for _, u := range []string{user1, user2} {
		if rs := e.msgr.to(u); len(rs) != 2 || rs[1].Title != "Request expired" {
			t.Errorf("%s got %+v, want the pending notice and one expiry", u, rs)
		}
	}
	if ups := e.msgr.of("update"); len(ups) != 2 || ups[0].View.State != commands.StateExpired || ups[1].View.State != commands.StateExpired {
		t.Errorf("updates = %s, want two, expired", e.msgr.transcript(ups))
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
}

// TestReminders reminds the admins once per request still pending after
// RemindAfter, in its thread, mentioning users and groups; a request
// decided or cancelled before then gets none.
func TestReminders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalsRequired: 2,
		Admins: []string{admin1, admin2, "SADMINS"}, ApprovalTTL: 2 * time.Hour, RemindAfter: 30 * time.Minute}, nil)
	_, wref := e.request(user1, "/mailbox add fay@example.com")
	e.clk.Advance(5 * time.Minute)
	denied, dref := e.request(user1, "/mailbox add gus@example.com")
	cancelled, _ := e.request(user2, "/mailbox add hal@example.com")
	counted, cref := e.request(user2, "/mailbox add ida@example.com")
	e.clk.Advance(10 * time.Minute)
	e.click(commands.ButtonDeny, denied, admin1, dref)
	e.click(commands.ButtonCancel, cancelled, user2, commands.MessageRef{})
	e.click(commands.ButtonApprove, counted, admin1, cref)
	e.clk.Advance(15*time.Minute - time.Millisecond) // 29:59.999 after the first
	e.sweep(0, 0)
	e.clk.Advance(time.Millisecond)
	e.sweep(0, 1)
	e.sweep(0, 0)
	e.clk.Advance(5 * time.Minute)
	e.sweep(0, 1)
	e.clk.Advance(time.Hour)
	e.sweep(0, 0)
	rs := e.msgr.of("remind")
	if len(rs) != 2 || rs[0].Ref != wref || rs[1].Ref != cref {
		t.Fatalf("reminders = %s, want one for each request still pending, in its thread", e.msgr.transcript(rs))
	}
	for _, r := range rs {
		if !strings.Contains(r.Text, "<@UADMIN1> <@UADMIN2> <!subteam^SADMINS>") {
			t.Errorf("reminder %q does not mention every admin, groups as groups", r.Text)
		}
	}
	if !strings.Contains(rs[1].Text, "1 of 2 approvals: <@UADMIN1>") {
		t.Errorf("reminder of a request with one approval = %q, want the approvals so far", rs[1].Text)
	}
	commands.Golden(t, "flow/reminders", e.msgr.transcript(rs))
}

// TestSweepStoreDown checks that a sweep whose store cannot be reached
// does nothing, and catches up once it is back: each expiry once.
func TestSweepStoreDown(t *testing.T) {
	t.Parallel()
	e, ds := newDownEnv(t, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: time.Hour, RemindAfter: time.Minute}, true)
	e.request(user1, "/maildomain register example.com")
	e.clk.Advance(2 * time.Hour)
	ds.set(true, "ClaimExpired", "ClaimReminders")
	e.sweep(0, 0)
	if ups := e.msgr.of("update"); len(ups) != 0 {
		t.Errorf("a sweep without its store updated %d messages", len(ups))
	}
	ds.set(false, "ClaimExpired", "ClaimReminders")
	e.sweep(1, 0)
	e.sweep(0, 0)
}
