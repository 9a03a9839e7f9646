package commands_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
)

// TestApprovalRequestedThenApproved follows a request from a non-admin:
// the admins get the request message with the buttons, the requester a
// pending notice with Cancel, the API nothing; then an admin approves, the
// operation runs once, the message shows the outcome without buttons, and
// the result with the password goes to the requester alone.
func TestApprovalRequestedThenApproved(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox add bob@example.com new hire")
	post, _ := e.msgr.last("post")
	if v := post.View; v.State != commands.StatePending || !v.Buttons() || v.Need != 1 || v.Pending != p {
		t.Errorf("request message = %+v, want the pending request with the buttons", v)
	}
	if got, err := e.core.DecodePending(post.View.Value); err != nil || got != p {
		t.Errorf("the buttons' value decodes to %+v, %v; want the request", got, err)
	}
	pending := e.msgr.lastTo(user1)
	if len(pending.Buttons) != 1 || pending.Buttons[0].Kind != commands.ButtonCancel || !strings.Contains(pending.PlainText(), p.ID) {
		t.Errorf("pending notice = %+v, want the request ID and a Cancel button", pending)
	}
	if got, err := e.core.DecodePending(pending.Buttons[0].Value); err != nil || got != p {
		t.Errorf("the Cancel value decodes to %+v, %v; want the request", got, err)
	}
	if rec := e.record(p.ID); rec.State != commands.StatePending || rec.Message != ref {
		t.Errorf("store record = %+v, want pending with its message %+v", rec, ref)
	}
	if n := api.calls.Load(); n != 0 || len(e.msgr.of("notify")) != 0 {
		t.Fatalf("a request for approval made %d API calls and %d notices, want none", n, len(e.msgr.of("notify")))
	}
	requested := e.msgr.transcript(nil)
	e.clk.Advance(5 * time.Minute)
	mark := e.msgr.mark()
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK {
		t.Fatalf("approve label = %q, want ok", label)
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
	result := e.msgr.lastTo(user1)
	password := api.passwords()[0]
	if field(t, result, "Password") != password {
		t.Errorf("the requester's result shows another password than the one sent")
	}
	update, ok := e.msgr.last("update")
	if !ok || update.Ref != ref || update.View.State != commands.StateDone || update.View.Buttons() ||
		!strings.Contains(update.View.Text, "Approved by <@UADMIN2>") {
		t.Errorf("request message update = %+v, want done, by UADMIN2, without buttons", update)
	}
	if rec := e.record(p.ID); rec.State != commands.StateDone || !slices.Equal(rec.Approvers, []string{admin2}) {
		t.Errorf("store record = %+v, want done, approved by UADMIN2", rec)
	}
	e.noSecrets(user1, password)
	commands.Golden(t, "flow/approval-requested", requested)
	commands.Golden(t, "flow/approved", e.msgr.transcript(e.msgr.since(mark), password))
}

// TestApproveConcurrent clicks Approve 50 times at once, by 50 different
// admins, on the sandbox over HTTP: the mailbox is added once, the others
// hear that it was decided, and the requester gets one result.
func TestApproveConcurrent(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	const n = 50
	admins := make([]string, n)
	for i := range admins {
		admins[i] = fmt.Sprintf("UADMIN%02d", i)
	}
	e := newEnv(t, sb.client, commands.Config{Approvals: commands.ApprovalsRequests, Admins: admins}, nil)
	p, ref := e.request(user1, "/mailbox add carol@example.com")
	release := make(chan struct{})
	var arrived atomic.Int64
	sb.sim.OnRequest(func(op pddsim.Op) {
		if op == pddsim.OpAddMailbox && arrived.Add(1) == 1 {
			<-release // the first run waits while the other clicks are made
		}
	})
	labels := make(chan string, n)
	for _, a := range admins {
		go func() { labels <- e.click(commands.ButtonApprove, p, a, ref) }()
	}
	got := map[string]int{}
	for range n - 1 { // all but the one running answer while it runs
		got[<-labels]++
	}
	close(release)
	got[<-labels]++
	if diff := cmp.Diff(map[string]int{commands.LabelOK: 1, commands.LabelDecided: n - 1}, got); diff != "" {
		t.Errorf("labels mismatch (-want +got):\n%s", diff)
	}
	if adds := sb.adds(); adds != 1 {
		t.Errorf("email/add requests = %d, want exactly 1", adds)
	}
	if rs := e.msgr.to(user1); len(rs) != 2 || !strings.Contains(rs[1].Title, "created") {
		t.Errorf("the requester got %d answers, want the pending notice and one result", len(rs))
	}
	// Without a database the message shows the approval before the run
	// (its only record that outlives mailbot), then the outcome.
	if ups := e.msgr.of("update"); len(ups) != 2 || ups[0].View.State != commands.StateRunning || ups[0].View.Buttons() || ups[1].View.State != commands.StateDone {
		t.Errorf("request message updates = %+v, want running (no buttons), then done", ups)
	}
	password, _ := sb.sim.Mailbox("carol@example.com")
	e.noSecrets(user1, password)
}

// TestTwoApprovals needs two admins in mode all: the requester cannot
// approve their own request, the first approval is counted and shown, the
// same admin twice counts once, and the second admin's approval runs it
// once. A Deny after one approval ends another request.
func TestTwoApprovals(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsAll, ApprovalsRequired: 2}, nil)
	p, ref := e.request(admin1, "/maildomain register example.com launch")
	steps := []struct {
		who   string
		kind  commands.ButtonKind
		label string
		state commands.State
		count int
	}{
		{admin1, commands.ButtonApprove, commands.LabelRefused, commands.StatePending, 0},
		{user2, commands.ButtonApprove, commands.LabelRefused, commands.StatePending, 0},
		{admin2, commands.ButtonApprove, commands.LabelCounted, commands.StatePending, 1},
		{admin2, commands.ButtonApprove, commands.LabelDecided, commands.StatePending, 1},
		{admin3, commands.ButtonApprove, commands.LabelOK, commands.StateDone, 2},
		{admin2, commands.ButtonDeny, commands.LabelDecided, commands.StateDone, 2},
	}
	for i, s := range steps {
		if label := e.click(s.kind, p, s.who, ref); label != s.label {
			t.Errorf("step %d: %s clicks %s: label %q, want %q", i, s.who, s.kind, label, s.label)
		}
		if rec := e.record(p.ID); rec.State != s.state || len(rec.Approvers) != s.count {
			t.Errorf("step %d: record %s with approvers %v, want %s with %d", i, rec.State, rec.Approvers, s.state, s.count)
		}
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
	ups := e.msgr.of("update")
	if len(ups) != 3 || ups[0].View.Text != "1 of 2 approvals: <@UADMIN2>" || !ups[0].View.Buttons() ||
		ups[1].View.State != commands.StateRunning || ups[1].View.Buttons() ||
		ups[2].View.State != commands.StateDone || ups[2].View.Buttons() || !strings.Contains(ups[2].View.Text, "<@UADMIN2> and <@UADMIN3>") {
		t.Errorf("updates = %s, want \"1 of 2 approvals: <@UADMIN2>\" with the buttons, then running, then done by both", e.msgr.transcript(ups))
	}
	e.noSecrets(admin1, secretContent)
	commands.Golden(t, "flow/two-approvals", e.msgr.transcript(nil, secretName, secretContent))

	// Another request: one approval, then a Deny ends it.
	q, qref := e.request(admin1, "/maildomain register example.org")
	mark := e.msgr.mark()
	e.click(commands.ButtonApprove, q, admin2, qref)
	if label := e.click(commands.ButtonDeny, q, admin3, qref); label != commands.LabelDenied {
		t.Errorf("deny after one approval = %q, want denied", label)
	}
	if label := e.click(commands.ButtonApprove, q, admin3, qref); label != commands.LabelDecided {
		t.Errorf("approve after the deny = %q, want already decided", label)
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d after a denied request, want still 1", n)
	}
	if r := e.msgr.lastTo(admin1); r.Title != "Request denied" || !strings.Contains(r.Text, "<@UADMIN3> denied") {
		t.Errorf("the requester was told %+v, want who denied", r)
	}
	commands.Golden(t, "flow/approval-then-deny", e.msgr.transcript(e.msgr.since(mark)))
}

// TestCancel checks that only the requester may withdraw a pending
// request, that the message then loses its buttons, and that a stale
// Approve after the cancel runs nothing.
func TestCancel(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox add dave@example.com")
	mark := e.msgr.mark()
	for _, who := range []string{user2, admin1} {
		if label := e.click(commands.ButtonCancel, p, who, commands.MessageRef{}); label != commands.LabelRefused {
			t.Errorf("%s cancels another's request: %q, want refused", who, label)
		}
		if r := e.msgr.lastTo(who); !r.Error || !strings.Contains(r.Text, "Only the person who made the request") {
			t.Errorf("%s was told %+v, want why not", who, r)
		}
	}
	if label := e.click(commands.ButtonCancel, p, user1, commands.MessageRef{}); label != commands.LabelCancelled {
		t.Fatalf("the requester cancels: %q, want cancelled", label)
	}
	up, ok := e.msgr.last("update")
	if !ok || up.Ref != ref || up.View.State != commands.StateCancelled || up.View.Buttons() || !strings.Contains(up.View.Text, "Cancelled by the requester") {
		t.Errorf("request message update = %+v, want cancelled by the requester, without buttons", up)
	}
	if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelDecided {
		t.Errorf("a stale Approve after the cancel = %q, want already decided", label)
	}
	if r := e.msgr.lastTo(admin1); !strings.Contains(r.Text, "was cancelled by the requester") {
		t.Errorf("the stale approver was told %q, want that it was cancelled", r.Text)
	}
	if label := e.click(commands.ButtonCancel, p, user1, commands.MessageRef{}); label != commands.LabelDecided {
		t.Errorf("a second cancel = %q, want already decided", label)
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
	commands.Golden(t, "flow/cancelled", e.msgr.transcript(e.msgr.since(mark)))
}

// TestDeny checks a plain Deny: the message, the requester and the
// denier are told, nothing runs, and a non-admin cannot deny.
func TestDeny(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/maildomain register example.com")
	if label := e.click(commands.ButtonDeny, p, user2, ref); label != commands.LabelRefused {
		t.Errorf("a non-admin denies: %q, want refused", label)
	}
	mark := e.msgr.mark()
	if label := e.click(commands.ButtonDeny, p, admin1, ref); label != commands.LabelDenied {
		t.Fatalf("an admin denies: %q, want denied", label)
	}
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelDecided {
		t.Errorf("approve after the deny = %q, want already decided", label)
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
	commands.Golden(t, "flow/denied", e.msgr.transcript(e.msgr.since(mark)))
}

// TestApproveRevalidates checks that a request approved after the
// allow-list changed (a restart with another MAILBOT_DOMAINS) is refused
// without calling the API.
func TestApproveRevalidates(t *testing.T) {
	t.Parallel()
	before := newEnv(t, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := before.request(user1, "/maildomain register example.net")
	api := &fakeProvider{}
	after := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, Domains: []string{"example.com"}}, nil)
	after.msgr.shows = func(commands.MessageRef) (string, error) { return before.core.EncodePending(p), nil }
	if label := after.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelInvalid {
		t.Errorf("approve outside the new allow-list = %q, want invalid", label)
	}
	if r := after.msgr.lastTo(admin1); !strings.Contains(r.Text, "may not touch") {
		t.Errorf("the approver was told %q, want why", r.Text)
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
}
