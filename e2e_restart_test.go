package main

import (
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

// Restarts without a database (interface §6, §7, §10): the request
// message is the only record that survives, so mailbot reads it back
// before it runs an approved request.

// testE2ERestartWithoutDatabase is interface §6 and §7 without a
// database: after SIGTERM and a restart (state in the process is gone), a
// stale Approve on a request approved before runs nothing, and a request
// still pending from before the restart can be approved and runs once.
func testE2ERestartWithoutDatabase(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_APPROVALS": "requests"})
	first := w.serve("first", env)
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add bob@example.com onboarding")
	done := w.waitRequest(1)
	w.result(w.click(w.fake.Via(0), e2eAdmin1, done, e2eApprove))
	w.waitUpdate(done.ts, "Approved by")
	w.command(w.fake.Via(0), "UCAROL", "/mailbox", "add carol@example.com onboarding")
	pending := w.waitRequest(2)
	first.term()
	if code := first.wait(e2eWait); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0", code)
	}

	second := w.serve("second", env)
	w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, done, e2eApprove))
	if n := w.sim.Requests(apiclient.OpAddMailbox); n != 1 {
		t.Errorf("a stale Approve after a restart without a database: %d adds, want 1", n)
	}
	w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, pending, e2eApprove))
	w.waitUpdate(pending.ts, "Approved by")
	pw, ok := w.sim.Mailbox("carol@example.com")
	if !ok || w.sim.Requests(apiclient.OpAddMailbox) != 2 {
		t.Fatalf("a request pending across the restart, approved after it: exists %v, %d adds; want true, 2", ok, w.sim.Requests(apiclient.OpAddMailbox))
	}
	if err := w.fake.Wait(e2eWait, "the requester's result", func() bool { return w.deliveredTo("UCAROL", pw) > 0 }); err != nil {
		t.Fatal(err)
	}
	w.seenOnlyBy("the password of a request approved after a restart", pw, "UCAROL")
}

// testE2ERefusedUpdateThenRestart: without a database, Slack refuses the
// update of the request message when it is approved; the add runs. After
// a restart, a second admin whose client still shows the buttons clicks
// Approve: the request must not run again (interface §10: never two
// executions of one approved request, before or after a restart).
func testE2ERefusedUpdateThenRestart(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_APPROVALS": "requests"})
	first := w.serve("first", env)
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add bob@example.com onboarding")
	req := w.waitRequest(1)
	refusals := make([]string, 10)
	for i := range refusals {
		refusals[i] = "internal_error"
	}
	w.fake.FailNext("chat.update", refusals...)
	w.result(w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove))
	w.fake.FailNext("chat.update") // no more refusals
	first.term()
	if code := first.wait(e2eWait); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0", code)
	}
	second := w.serve("second", env)
	answer := w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, req, e2eApprove))
	if n := w.sim.Requests(apiclient.OpAddMailbox); n != 1 {
		// BUG: commands/decide.go (approve → runApproved) calls the PDD API
		// first and updates the request message (commands/flow.go
		// updateRequest) only after the run, logging a failure and going
		// on. Without a database that update is the only record of the
		// decision (ShowsDecision reads it back after a restart), so when
		// it is refused the decision is lost and the next Approve runs the
		// add again. The message must show the decision ("running") before
		// the PDD call, and without a durable store nothing may run when
		// that update fails.
		t.Errorf("a stale Approve after a restart, the first decision's update refused by Slack: %d adds, want 1; the clicker was told:\n%s", n, answer.shown())
	}
}

// testE2EKillThenRestart: without a database, mailbot is killed (SIGKILL,
// as after Kubernetes' grace period or the OOM killer) after the PDD API
// created the mailbox and before the request message shows the decision.
// After a restart, a stale Approve must not run the request again.
func testE2EKillThenRestart(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_APPROVALS": "requests"})
	first := w.serve("first", env)
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add bob@example.com onboarding")
	req := w.waitRequest(1)
	w.fake.SetMethodDelay("chat.update", time.Hour) // the process is killed meanwhile
	w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove)
	if _, err := w.fake.WaitCalls("chat.update", 1, e2eWait); err != nil {
		t.Fatal(err)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait(e2eWait)
	w.fake.SetMethodDelay("chat.update", 0)
	if _, ok := w.sim.Mailbox("bob@example.com"); !ok {
		t.Fatal("the mailbox was not created before the kill")
	}
	second := w.serve("second", env)
	answer := w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, req, e2eApprove))
	if n := w.sim.Requests(apiclient.OpAddMailbox); n != 1 {
		// BUG: the same cause as in testE2ERefusedUpdateThenRestart: the
		// decision reaches the request message only after the PDD call, so
		// a crash in between leaves a message that shows no decision, and
		// after the restart the add is sent again (the sandbox answers
		// occupied; the requester, who has the password of the first run
		// nowhere, is told the mailbox exists).
		t.Errorf("a stale Approve after a kill between the run and the update: %d adds, want 1; the clicker was told:\n%s", n, answer.shown())
	}
}
