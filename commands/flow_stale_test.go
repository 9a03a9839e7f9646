package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// TestStaleRun: an approved run whose end cannot be recorded (the database
// went away as it finished, for longer than commands.StaleRun) stays
// running in the store; the sweep, once StaleRun has passed, ends it as
// uncertain, shows that in the request message without buttons and tells
// the requester, once; the late end of the run, once the store takes it
// again, changes nothing.
func TestStaleRun(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e, ds := newDownEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: 24 * time.Hour}, true)
	p, ref := e.request(user1, "/mailbox add alice@example.com")
	ds.set(true, "Finish")
	e.click(commands.ButtonApprove, p, admin1, ref)
	if rec := e.record(p.ID); rec.State != commands.StateRunning {
		t.Fatalf("record = %s, want running: its Finish failed", rec.State)
	}
	e.clk.Advance(commands.StaleRun - time.Minute)
	e.core.Sweep(t.Context())
	if rec := e.record(p.ID); rec.State != commands.StateRunning {
		t.Fatalf("record = %s before StaleRun, want running", rec.State)
	}
	before := len(e.msgr.to(user1))
	e.clk.Advance(2 * time.Minute)
	e.core.Sweep(t.Context())
	ds.set(false, "Finish")
	e.core.Sweep(t.Context())
	if rec := e.record(p.ID); rec.State != commands.StateUncertain {
		t.Fatalf("record = %s after StaleRun, want uncertain", rec.State)
	}
	up, _ := e.msgr.last("update")
	if up.View.Buttons() || !strings.Contains(up.View.Text, "may or may not have happened") {
		t.Errorf("request message = %+v, want no buttons and an unknown outcome", up.View)
	}
	got := e.msgr.to(user1)[before:]
	if len(got) != 1 || !strings.Contains(got[0].Text, "may or may not have happened") {
		t.Errorf("the requester was told %+v, want one message that the outcome is unknown", got)
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
}

// TestReopenAfterOutage: the database goes away between the approval and
// the run, so the run cannot be recorded and nothing reaches the PDD API;
// putting the request back to pending fails too. Once the database is
// back, the next sweep reopens it by itself: it can be approved again and
// runs once (the approval is not used up, and mailbot resumes by
// itself).
func TestReopenAfterOutage(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e, ds := newDownEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: 24 * time.Hour}, true)
	p, ref := e.request(user1, "/mailbox add alice@example.com")
	ds.set(true, "Begin", "Finish", "Get")
	e.click(commands.ButtonApprove, p, admin1, ref)
	if n := api.calls.Load(); n != 0 {
		t.Fatalf("API calls = %d while the run could not be recorded, want 0", n)
	}
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label == commands.LabelOK {
		t.Fatalf("a click while the request is stuck ran it")
	}
	ds.set(false, "Begin", "Finish", "Get")
	e.core.Sweep(t.Context())
	if rec := e.record(p.ID); rec.State != commands.StatePending {
		t.Fatalf("record = %s after the database came back and a sweep, want pending", rec.State)
	}
	if up, _ := e.msgr.last("update"); !up.View.Buttons() {
		t.Errorf("request message after the reopen = %+v, want its buttons again", up.View)
	}
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK || api.calls.Load() != 1 {
		t.Errorf("approve after the reopen = %q with %d API calls, want ok and 1", label, api.calls.Load())
	}
}
