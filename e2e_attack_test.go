package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// Two defects found under attack: a request message whose
// reference the database did not take while it was posted, and a signed
// value clicked on another request's message.

// testE2EBlipWhilePosting: a non-admin sends two requests; Slack answers
// their chat.postMessage with 429, and the database is cut from then
// until both messages are posted, so that neither message's reference
// reaches the store at first. Once the database is back, the first is
// approved from the Home tab (a click that carries no message) and the
// second expires: each message ends showing what happened, without
// buttons, and the requester is told of the expiry once.
func testE2EBlipWhilePosting(t *testing.T, bin string, cluster *pgtest.Cluster) {
	proxy := pgtest.NewProxy(t, cluster.NewDatabase(t))
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	p := w.serve("mailbot", w.env(map[string]string{"MAILBOT_DATABASE_URL": proxy.DSN(), "MAILBOT_APPROVALS": "requests",
		"MAILBOT_APPROVAL_TTL": "12s"}))
	w.fake.Faults.RateLimitNext("chat.postMessage", 4) // each post: 429, 429, then posted (Retry-After: 1)
	id1, _ := w.command(w.fake.Via(0), e2eUser, "/mailbox", "add first@example.com during a blip")
	id2, _ := w.command(w.fake.Via(0), e2eUser, "/mailbox", "add second@example.com during a blip")
	if err := w.fake.Wait(e2eWait, "both requests recorded and their posts answered 429", func() bool {
		return len(opsPostAttempts(w)) >= 2 // a post follows its request's record
	}); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	for _, id := range []string{id1, id2} {
		if err := w.fake.Wait(e2eWait, "the requester told the request waits", func() bool {
			return w.deliveredTo(e2eUser, "Request waiting for approval", id) > 0 // after the message's reference was tried
		}); err != nil {
			t.Fatal(err)
		}
	}
	proxy.Restore()
	// The log reaches the test through a pipe, possibly after the reply
	// that followed it: wait for the lines, then count them.
	testkit.Until(e2eWait, p.stderr.Written, func() bool { return strings.Count(p.stderr.String(), "request message not recorded") >= 2 })
	if n := strings.Count(p.stderr.String(), "request message not recorded"); n != 2 {
		t.Fatalf("the blip did not hit both requests' message references (%d logged failures, want 2): the scenario did not happen", n)
	}
	reqs := w.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d request messages in the ops channel, want 2", len(reqs))
	}
	// The two requests are posted concurrently: tell them apart by what
	// they ask, not by the order Slack took them in.
	first, second := requestFor(t, reqs, "first@example.com"), requestFor(t, reqs, "second@example.com")

	approveFromHome(t, w, e2eAdmin1, "first@example.com")
	if upd := w.waitUpdate(first.ts, "Approved by"); upd.HasButtons() {
		t.Errorf("the request approved from the Home tab still offers buttons:\n%s", upd.shown())
	}
	pw, ok := w.sim.Mailbox("first@example.com")
	if err := w.fake.Wait(e2eWait, "the requester's result", func() bool { return ok && w.deliveredTo(e2eUser, pw) > 0 }); err != nil {
		t.Error(err)
	}
	if upd := w.waitUpdate(second.ts, "Expired"); upd.HasButtons() {
		t.Errorf("the expired request still offers buttons:\n%s", upd.shown())
	}
	if err := w.fake.Wait(e2eWait, "the expiry told to the requester", func() bool { return w.deliveredTo(e2eUser, e2eExpiredText, id2) > 0 }); err != nil {
		t.Error(err)
	}
	if n := w.deliveredTo(e2eUser, e2eExpiredText, id2); n != 1 {
		t.Errorf("the requester was told %d times that the request expired, want once", n)
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("%d adds, want 1 (the approved request's)", n)
	}
	for _, m := range w.fake.Messages(e2eOps) {
		if msg := messageOf(m.Blocks); msg.HasButtons() {
			t.Errorf("a request message in the ops channel still offers buttons:\n%s", msg.shown())
		}
	}
}

// approveFromHome opens admin's Home tab and clicks Approve on the
// request it describes as concerning target.
func approveFromHome(t *testing.T, w *world, admin, target string) {
	t.Helper()
	ev, err := w.fake.AppHomeOpened(admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(ev, e2eWait); err != nil {
		t.Fatal(err)
	}
	home, err := w.fake.WaitHome(admin, 1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	block := homeButtonBlockFor(home, e2eApprove, target)
	if block == "" {
		t.Fatalf("the admin's Home tab offers no request for %s:\n%s", target, viewText(home))
	}
	if _, err := w.fake.ClickInView(admin, home.ID, block, e2eApprove, ""); err != nil {
		t.Fatal(err)
	}
}

// opsPostAttempts returns mailbot's calls to post a request message, the
// ones Slack refused included.
func opsPostAttempts(w *world) []string {
	var out []string
	for _, c := range w.fake.Calls("chat.postMessage") {
		if c.Form.Get("channel") == e2eOps && c.Form.Get("thread_ts") == "" {
			out = append(out, c.TS)
		}
	}
	return out
}

// requestFor is the one request message of reqs that concerns target.
func requestFor(t *testing.T, reqs []e2eRequest, target string) e2eRequest {
	t.Helper()
	var found []e2eRequest
	for _, r := range reqs {
		if strings.Contains(r.msg.shown(), target) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d request messages concern %s, want 1", len(found), target)
	}
	return found[0]
}

// messageOf is a message's blocks as the fake keeps them.
func messageOf(blocks []any) e2eMsg {
	raw, _ := json.Marshal(map[string]any{"blocks": blocks})
	return decodeMsg(string(raw))
}

// testE2EMovedValue: without a database, after a restart, a click on one
// pending request's message that carries another request's signed value
// (which only someone who injects envelopes can send) is refused, Deny
// and Approve alike: the request already run is not run again, and
// neither message changes. The message's own Approve still works.
func testE2EMovedValue(t *testing.T, bin string) {
	w, env, first, a := requestWithoutDatabase(t, bin)
	w.command(w.fake.Via(0), "UCAROL", "/mailbox", "add carol@example.com onboarding")
	b := w.waitRequest(2)
	w.result(w.click(w.fake.Via(0), e2eAdmin1, a, e2eApprove))
	w.waitUpdate(a.ts, "Approved by")
	first.term()
	if code := first.wait(e2eWait); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0", code)
	}
	second := w.serve("second", env)
	moved := e2eRequest{ts: b.ts, value: a.value}
	updatesA, updatesB := len(w.updates(a.ts)), len(w.updates(b.ts))
	for _, action := range []string{e2eApprove, e2eDeny} {
		answer := w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, moved, action))
		if !strings.Contains(answer.shown(), "Nothing was done") {
			t.Errorf("%s with A's value on B's message: the clicker was told:\n%s", action, answer.shown())
		}
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("A's value on B's message: %d adds, want 1 (A's own approval)", n)
	}
	if got := len(w.updates(a.ts)); got != updatesA {
		t.Errorf("A's value on B's message updated A's message %d times", got-updatesA)
	}
	if got := len(w.updates(b.ts)); got != updatesB {
		t.Errorf("A's value on B's message updated B's message %d times:\n%s", got-updatesB, w.updates(b.ts)[updatesB].shown())
	}
	answer := w.result(w.click(w.fake.Via(second.conn), e2eAdmin2, b, e2eApprove))
	w.waitUpdate(b.ts, "Approved by")
	if _, ok := w.sim.Mailbox("carol@example.com"); !ok || w.sim.Requests(pddsim.OpAddMailbox) != 2 {
		t.Errorf("B's own Approve after the moved value: carol exists %v, %d adds (want true, 2); the clicker was told:\n%s",
			ok, w.sim.Requests(pddsim.OpAddMailbox), answer.shown())
	}
}
