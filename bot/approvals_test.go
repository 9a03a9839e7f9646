package bot_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/testkit"
)

func TestApprovalRequestPostedAndNothingRuns(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	h.ownDomain("example.com")
	before := h.sim.Requests("")

	pending, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com for the new hire")

	expires := epoch.Add(commands.DefaultApprovalTTL)
	if pending.ResponseType != "ephemeral" {
		t.Errorf("pending reply response_type = %q, want ephemeral", pending.ResponseType)
	}
	wantContains(t, "pending reply", pending.shown(), "waiting for approval", "add mailbox alice@example.com", expires.Format("2006-01-02 15:04 UTC"))
	if _, ok := pending.Button(replyBlock, cancelButton); !ok {
		t.Errorf("the pending reply offers no Cancel: %+v", pending.Blocks)
	}
	if got := req.call.Form.Get("channel"); got != ops {
		t.Errorf("request posted in %q, want %q", got, ops)
	}
	wantContains(t, "request message", req.msg.shown(),
		"<@"+stranger+">", "<#"+general+">", "add mailbox alice@example.com", "for the new hire", "*Expires:* "+expires.Format(time.RFC1123))

	type button struct {
		Block, Action, Label, Style string
		Confirm                     bool
	}
	var got []button
	for _, b := range req.msg.Blocks {
		for _, e := range b.Elements {
			if e.Type != "button" {
				continue
			}
			var label struct{ Text string }
			_ = json.Unmarshal(e.Text, &label)
			got = append(got, button{b.BlockID, e.ActionID, label.Text, e.Style, len(e.Confirm) > 0 && string(e.Confirm) != "null"})
			if e.Value != req.value || e.Value == "" {
				t.Errorf("button %s carries %q, want the request (%q)", e.ActionID, e.Value, req.value)
			}
		}
	}
	want := []button{
		{approvalBlock, approve, "Approve", "primary", false},
		{approvalBlock, deny, "Deny", "danger", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request buttons (-want +got):\n%s", diff)
	}
	if n := h.sim.Requests(""); n != before {
		t.Errorf("sandbox saw %d requests after the request, want %d: nothing runs before approval", n, before)
	}
	if n := len(h.slack.Calls("chat.update")) + len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d chat.update or chat.postEphemeral calls before any click, want 0", n)
	}
}

func TestApprovalApproveDeliversCredentialOnce(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	h.ownDomain("example.com")
	_, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com new hire")
	clk.Advance(time.Hour)

	answer := decide(t, h.env, admin, req, approve)

	wantContains(t, "answer to the approver", answer.shown(), "Request approved", "alice@example.com")
	assertAddedOnce(t, h.env, req)
	result, spans := credential(t, h.ephemeralsTo(stranger)[0], general, stranger)
	uid := regexp.MustCompile(`UID:\* (\d+)`).FindStringSubmatch(result.blocksText())
	if uid == nil || len(spans) != 1 {
		t.Fatalf("requester's result lacks the uid or the password:\n%s", result.blocksText())
	}
	updated := callMessage(t, h.updates(req)[0])
	if updated.HasButtons() {
		t.Errorf("updated request still offers buttons: %+v", updated.Blocks)
	}
	wantContains(t, "updated request", updated.shown(),
		"Approved by <@"+admin+"> at "+epoch.Add(time.Hour).Format("2006-01-02 15:04 UTC"),
		"add mailbox alice@example.com", "uid "+uid[1], "<@"+stranger+">")
	if n := len(h.slack.Calls("chat.postMessage")); n != 1 {
		t.Errorf("%d chat.postMessage calls, want 1: the update of the request is the ops notice", n)
	}
	if strings.Contains(answer.shown(), spans[0]) {
		t.Errorf("the password in the answer to the approver")
	}
}

func TestApprovalDeny(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h.env, stranger, "/maildomain", "register example.com")

	answer := decide(t, h.env, admin, req, deny)

	wantContains(t, "answer to the denier", answer.shown(), "denied")
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests after a denial, want 0", n)
	}
	ups := h.updates(req)
	if len(ups) != 1 {
		t.Fatalf("%d chat.update calls, want 1", len(ups))
	}
	updated := callMessage(t, ups[0])
	if updated.HasButtons() {
		t.Errorf("the denied request still offers buttons")
	}
	wantContains(t, "updated request", updated.shown(), "Denied by <@"+admin+">", "register domain example.com")
	eph := h.ephemeralsTo(stranger)
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 1", len(eph))
	}
	told, _ := credential(t, eph[0], general, stranger)
	wantContains(t, "denial for the requester", told.shown(), "denied", admin, "register domain example.com")
}

func TestApprovalClickByNonAdminChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h.env, stranger, "/maildomain", "register example.com")

	for _, c := range []struct{ user, action string }{
		{stranger, approve}, // the requester
		{"UOTHER", approve},
		{"UOTHER", deny},
	} {
		answer := decide(t, h.env, c.user, req, c.action)
		wantContains(t, c.user+"'s "+c.action+" answer", answer.shown(), "Not allowed", "admins")
	}
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests after non-admins' clicks, want 0", n)
	}
	if n := len(h.slack.Calls("chat.update")) + len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d chat.update or chat.postEphemeral calls after non-admins' clicks, want 0", n)
	}
	// The request is untouched: an admin may still approve it.
	wantContains(t, "admin's answer", decide(t, h.env, admin, req, approve).shown(), "Request approved")
	if n := h.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Errorf("sandbox saw %d register requests, want 1", n)
	}
}

func TestApprovalSelfApprovalRefusedInModeAll(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsAll))
	pending, req := ask(t, h.env, admin, "/maildomain", "register example.com")
	wantContains(t, "pending reply", pending.shown(), "another admin")

	for _, action := range []string{approve, deny} {
		answer := decide(t, h.env, admin, req, action)
		wantContains(t, "self-"+action+" answer", answer.shown(), "Not allowed", "another admin")
	}
	if n := h.sim.Requests("") + len(h.slack.Calls("chat.update")); n != 0 {
		t.Errorf("%d PDD requests and chat.update calls after self-approval, want 0", n)
	}

	wantContains(t, "other admin's answer", decide(t, h.env, admin2, req, approve).shown(), "Request approved")
	if n := h.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Fatalf("sandbox saw %d register requests, want 1", n)
	}
	wantContains(t, "updated request", callMessage(t, h.updates(req)[0]).shown(), "Approved by <@"+admin2+">", "domain-activate")
	eph := h.ephemeralsTo(admin)
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 1", len(eph))
	}
	_, secrets := credential(t, eph[0], general, admin)
	dom, err := h.pdd().RegisterDomain(t.Context(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{dom.Secrets.Name, dom.Secrets.Content}, secrets); diff != "" {
		t.Errorf("secrets the requester sees (-sandbox +shown):\n%s", diff)
	}
}

func TestApprovalConcurrentClicksRunOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.ownDomain("example.com")
	_, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")

	const clicks = 10
	ids, users, errs := make([]string, clicks), make([]string, clicks), make([]error, clicks)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clicks {
		users[i] = []string{admin, admin2}[i%2]
		wg.Go(func() {
			<-start
			ids[i], errs[i] = h.slack.Click(users[i], ops, req.call.TS, approvalBlock, approve, req.value)
		})
	}
	close(start)
	wg.Wait()

	winner := ""
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		switch shown := h.result(id).shown(); {
		case strings.Contains(shown, "Request approved"):
			if winner != "" {
				t.Errorf("two clicks approved: %s and %s", winner, users[i])
			}
			winner = users[i]
		case !strings.Contains(shown, "Already decided"):
			t.Errorf("answer to click %d by %s:\n%s\nwant approved or already decided", i, users[i], shown)
		}
	}
	if winner == "" {
		t.Fatal("no click approved")
	}
	for i, id := range ids {
		if users[i] != winner || !strings.Contains(h.result(id).shown(), "Request approved") {
			wantContains(t, "answer to a losing click", h.result(id).shown(), "approved by <@"+winner+">")
		}
	}
	// A later click, approve or deny, changes nothing either.
	for _, action := range []string{approve, deny} {
		wantContains(t, "answer to a repeated "+action, decide(t, h.env, admin2, req, action).shown(), "Already decided", "approved by <@"+winner+">")
	}
	assertAddedOnce(t, h.env, req)
}

func TestApprovalExpiredOnClick(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	_, req := ask(t, h.env, stranger, "/maildomain", "register example.com")
	clk.Advance(commands.DefaultApprovalTTL + time.Second)

	wantContains(t, "answer to a late click", decide(t, h.env, admin, req, approve).shown(), "Request expired")

	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests for an expired request, want 0", n)
	}
	ups := h.updates(req)
	if len(ups) != 1 {
		t.Fatalf("%d chat.update calls, want 1 (the request marked expired)", len(ups))
	}
	if updated := callMessage(t, ups[0]); updated.HasButtons() || !strings.Contains(updated.shown(), "Expired") {
		t.Errorf("updated request %q with buttons %v, want expired without buttons", updated.shown(), updated.HasButtons())
	}
	if eph := h.ephemeralsTo(stranger); len(eph) != 1 || !strings.Contains(callMessage(t, eph[0]).shown(), "expired") {
		t.Errorf("the requester got %d ephemerals, want one saying the request expired", len(eph))
	}
	// A second late click tells of the expiry and announces nothing more.
	wantContains(t, "answer to a second late click", decide(t, h.env, admin2, req, approve).shown(), "expired")
	if n, m := len(h.updates(req)), len(h.ephemeralsTo(stranger)); n != 1 || m != 1 {
		t.Errorf("after a second late click: %d updates and %d ephemerals for the requester, want 1 and 1", n, m)
	}
}

// TestApprovalAcrossRestart restarts mailbot without a database (a new
// store): a request pending before still works, and one decided before is
// not run again, because its message shows the decision.
func TestApprovalAcrossRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.ownDomain("example.com")
	_, decided := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")
	_, waiting := ask(t, h.env, stranger, "/mailbox", "add bob@example.com")
	decide(t, h.env, admin, decided, approve)
	if err := h.r.stop(); err != nil {
		t.Fatalf("first bot stopped with %v", err)
	}
	h.r = h.start(withStore(memstore.New(memstore.Options{}))) // a new process: same key, nothing else kept

	wantContains(t, "a stale click after the restart", decide(t, h.env, admin2, decided, approve).shown(), "Already decided")
	wantContains(t, "a click on a pending request after the restart", decide(t, h.env, admin2, waiting, approve).shown(), "Request approved")
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 2 {
		t.Errorf("sandbox saw %d email/add requests, want 2 (one per request)", n)
	}
	if n := len(h.slack.Calls("conversations.history")); n != 2 {
		t.Errorf("%d conversations.history calls, want 2 (one per click on a request the new process did not know)", n)
	}
}

func TestApprovalResultFallsBackToDirectMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.ownDomain("example.com")
	_, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")
	h.slack.Faults.SetChannelNotFound(general) // the bot is not in the requester's channel

	decide(t, h.env, admin, req, approve)

	opens := h.slack.Calls("conversations.open")
	if len(opens) != 1 || opens[0].Form.Get("users") != stranger {
		t.Fatalf("conversations.open calls %v, want one for %s", opens, stranger)
	}
	eph := h.ephemeralsTo(stranger)
	if len(eph) != 2 || eph[0].Form.Get("channel") != general {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 2 (the request's channel, then the DM)", len(eph))
	}
	_, spans := credential(t, eph[1], "D"+strings.TrimPrefix(stranger, "U"), stranger)
	if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("requester sees %q in the DM, sandbox stored %q", spans, stored)
	}
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests, want 1", n)
	}
}

// TestApprovalSecretsReachOnlyTheRequester runs both operations through
// approvals and scans what the harness does not: the answers to the
// approvers, the acks and the metrics' labels.
func TestApprovalSecretsReachOnlyTheRequester(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, reg := ask(t, h.env, stranger, "/maildomain", "register example.com")
	decide(t, h.env, admin, reg, approve)
	_, add := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")
	decide(t, h.env, admin2, add, approve)

	var secrets []string
	for _, c := range h.ephemeralsTo(stranger) {
		secrets = append(secrets, codeSpans(callMessage(t, c).blocksText())...)
	}
	password, _ := h.sim.Mailbox("alice@example.com")
	if len(secrets) != 3 || secrets[2] != password || password == "" {
		t.Fatalf("requester's secrets %q, want the two verification secrets and the password %q", secrets, password)
	}
	var others []string // response_url posts and acks: the approvers' answers, the pending replies
	for _, p := range h.slack.Posts("") {
		others = append(others, slackfake.Flatten(p.Raw)...)
	}
	for _, a := range h.slack.Socket.Acks() {
		others = append(others, slackfake.Flatten(string(a.Payload))...)
	}
	families, err := h.r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				others = append(others, l.GetValue())
			}
		}
	}
	for _, s := range secrets {
		if n := countContaining(others, s); n > 0 {
			t.Errorf("secret %q in %d replies, acks or metric labels", s, n)
		}
	}
}
