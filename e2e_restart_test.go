package main

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// Restarts without a database (docs/state.md): the request
// message is the only record that survives, so mailbot reads it back
// before it runs an approved request.

// requestWithoutDatabase starts mailbot ("first") without a database, in
// mode requests, and has a non-admin ask to add bob@example.com; it
// returns the world, the environment for a restart, the process and the
// request.
func requestWithoutDatabase(t *testing.T, bin string) (*world, map[string]string, *proc, e2eRequest) {
	t.Helper()
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_APPROVALS": "requests"})
	first := w.serve("first", env)
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add bob@example.com onboarding")
	return w, env, first, w.waitRequest(1)
}

// testE2ERestartWithoutDatabase is the approval flow without a
// database: after SIGTERM and a restart (state in the process is gone), a
// stale Approve on a request approved before runs nothing, and a request
// still pending from before the restart can be approved and runs once.
func testE2ERestartWithoutDatabase(t *testing.T, bin string) {
	w, env, first, done := requestWithoutDatabase(t, bin)
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
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("a stale Approve after a restart without a database: %d adds, want 1", n)
	}
	w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, pending, e2eApprove))
	w.waitUpdate(pending.ts, "Approved by")
	pw, ok := w.sim.Mailbox("carol@example.com")
	if !ok || w.sim.Requests(pddsim.OpAddMailbox) != 2 {
		t.Fatalf("a request pending across the restart, approved after it: exists %v, %d adds; want true, 2", ok, w.sim.Requests(pddsim.OpAddMailbox))
	}
	if err := w.fake.Wait(e2eWait, "the requester's result", func() bool { return w.deliveredTo("UCAROL", pw) > 0 }); err != nil {
		t.Fatal(err)
	}
	w.seenOnlyBy("the password of a request approved after a restart", pw, "UCAROL")
}

// testE2ERefusedUpdateThenRestart: without a database the request
// message is the only record of a decision that outlives mailbot, so it
// must show the approval before the PDD API is called. When Slack refuses
// that update, nothing runs and the request can be approved again; after
// a restart, a second admin's Approve runs it, exactly once.
func testE2ERefusedUpdateThenRestart(t *testing.T, bin string) {
	w, env, first, req := requestWithoutDatabase(t, bin)
	w.fake.Faults.FailNext("chat.update", "internal_error") // the "running" mark
	answer := w.result(w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove))
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 0 || !strings.Contains(answer.shown(), "did not run") {
		t.Fatalf("approve with the message's update refused: %d adds, want 0; the clicker was told:\n%s", n, answer.shown())
	}
	first.term()
	if code := first.wait(e2eWait); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0", code)
	}
	second := w.serve("second", env)
	answer = w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, req, e2eApprove))
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 || !strings.Contains(answer.shown(), "Request approved") {
		t.Errorf("approve after the restart: %d adds, want 1; the clicker was told:\n%s", n, answer.shown())
	}
}

// testE2EKillThenRestart: without a database, mailbot is killed (SIGKILL,
// as after Kubernetes' grace period or the OOM killer) after the PDD API
// created the mailbox and before the request message shows the outcome.
// The message showed the approval ("running", no buttons) before the PDD
// call, so after a restart a stale Approve runs nothing.
func testE2EKillThenRestart(t *testing.T, bin string) {
	w, env, first, req := requestWithoutDatabase(t, bin)
	held, arrived := make(chan struct{}), make(chan struct{}, 1)
	release := sync.OnceFunc(func() { close(held) })
	t.Cleanup(release)
	w.sim.OnRequest(func(op pddsim.Op) {
		if op == pddsim.OpAddMailbox {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-held
		}
	})
	defer w.sim.OnRequest(nil)
	w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove)
	select {
	case <-arrived:
	case <-time.After(e2eWait):
		t.Fatal("the add never reached the sandbox")
	}
	if n := len(w.fake.Calls("chat.update")); n != 1 {
		t.Fatalf("%d updates of the request message before the PDD call, want 1 (running)", n)
	}
	w.fake.Faults.SetMethodDelay("chat.update", time.Hour) // the outcome's update never lands: the process is killed meanwhile
	release()
	if _, err := w.fake.WaitCalls("chat.update", 2, e2eWait); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.sim.Mailbox("bob@example.com"); !ok {
		t.Fatal("the mailbox was not created before the kill")
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait(e2eWait)
	w.fake.Faults.SetMethodDelay("chat.update", 0)
	second := w.serve("second", env)
	answer := w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, req, e2eApprove))
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 || !strings.Contains(answer.shown(), "Already decided") {
		t.Errorf("a stale Approve after a kill between the run and the outcome's update: %d adds, want 1; the clicker was told:\n%s", n, answer.shown())
	}
}
