package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// TestStaleRun: an approved run whose end cannot be recorded (the database
// went away as it finished) stays running in the store; the sweep, once
// commands.StaleRun has passed, ends it as uncertain, shows that in the
// request message without buttons and tells the requester, once.
func TestStaleRun(t *testing.T) {
	t.Parallel()
	var ds *downStore
	api := &fakePDD{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: 24 * time.Hour},
		func(s commands.Store) commands.Store {
			ds = newDownStore(true)(s).(*downStore)
			return ds
		})
	p, ref := e.request(user1, "/mailbox add alice@example.com")
	ds.set(true, "Finish")
	e.click(commands.ButtonApprove, p, admin1, ref)
	ds.set(false, "Finish")
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
