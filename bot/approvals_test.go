package bot_test

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// The approval request's actions block and buttons, as Slack hands them
// back in a click.
const (
	approvalBlock = "mailbot_approval"
	approve       = "approve"
	deny          = "deny"
)

// epoch is the fake clock's start: whole seconds, so that the times the
// bot shows can be predicted exactly.
var epoch = time.Date(2030, time.January, 2, 3, 4, 5, 0, time.UTC)

// clock is a settable clock for the core (withClock).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *clock { return &clock{now: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// approvalRequest is a request message the bot posted for the admins.
type approvalRequest struct {
	call  slackfake.Call // the chat.postMessage; call.TS is the message's ts
	msg   message
	value string // the value both buttons carry
}

// approvalRequests returns the request messages posted so far, in order.
func approvalRequests(t *testing.T, h *harness) []approvalRequest {
	t.Helper()
	var out []approvalRequest
	for _, c := range h.slack.Calls("chat.postMessage") {
		m := formMessage(t, c)
		for _, b := range m.Blocks {
			if b.BlockID == approvalBlock && len(b.Elements) > 0 {
				out = append(out, approvalRequest{call: c, msg: m, value: b.Elements[0].Value})
			}
		}
	}
	return out
}

// ask sends a command that needs approval and returns the reply the
// requester sees and the request message posted for the admins.
func ask(t *testing.T, h *harness, user, cmd, text string) (message, approvalRequest) {
	t.Helper()
	before := len(approvalRequests(t, h))
	id, _ := h.command(user, cmd, text)
	pending := h.result(id)
	var reqs []approvalRequest
	if err := h.slack.Wait(wait, "the approval request", func() bool {
		reqs = approvalRequests(t, h)
		return len(reqs) > before
	}); err != nil {
		t.Fatal(err)
	}
	return pending, reqs[before]
}

// click clicks a button of the request message as user and waits for the
// ack; it returns the envelope id.
func click(t *testing.T, h *harness, user string, req approvalRequest, action string) string {
	t.Helper()
	id, err := h.slack.Click(user, req.call.Form.Get("channel"), req.call.TS, approvalBlock, action, req.value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	return id
}

// decide clicks and returns the bot's answer to the clicker. The bot
// answers the clicker last, so everything the click did is done by then.
func decide(t *testing.T, h *harness, user string, req approvalRequest, action string) message {
	t.Helper()
	answer := h.result(click(t, h, user, req, action))
	if answer.ResponseType != "ephemeral" || answer.ReplaceOriginal {
		t.Errorf("answer to %s's click: response_type %q, replace_original %v; want ephemeral, false (the request message is for everyone)",
			user, answer.ResponseType, answer.ReplaceOriginal)
	}
	return answer
}

// ownDomain registers domain in the sandbox for the bot's PDD account, as
// an operator would have done before, so that mailboxes can be added.
func ownDomain(t *testing.T, h *harness, domain string) {
	t.Helper()
	pdd, err := apiclient.New(h.simURL, h.token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pdd.RegisterDomain(t.Context(), domain); err != nil {
		t.Fatal(err)
	}
}

// ephemeralsTo returns the chat.postEphemeral calls for user.
func ephemeralsTo(h *harness, user string) []slackfake.Call {
	var out []slackfake.Call
	for _, c := range h.slack.Calls("chat.postEphemeral") {
		if c.Form.Get("user") == user {
			out = append(out, c)
		}
	}
	return out
}

// allText is every text of a message as a person sees it, context blocks
// included.
func allText(m message) string {
	parts := []string{m.shown()}
	for _, b := range m.Blocks {
		for _, e := range b.Elements {
			var s string
			if json.Unmarshal(e.Text, &s) == nil {
				parts = append(parts, unescape(s))
			}
		}
	}
	return strings.Join(parts, "\n")
}

// hasButtons reports whether a message still offers buttons.
func hasButtons(m message) bool {
	for _, b := range m.Blocks {
		if b.Type == "actions" {
			return true
		}
		for _, e := range b.Elements {
			if e.Type == "button" {
				return true
			}
		}
	}
	return false
}

// visible returns the strings in raw as Slack shows them.
func visible(raw string) []string { return slackfake.Flatten(raw) }

// callShows reports whether any field of a Web API call shows s.
func callShows(c slackfake.Call, s string) bool {
	for _, vals := range c.Form {
		for _, v := range vals {
			for _, txt := range visible(v) {
				if strings.Contains(txt, s) {
					return true
				}
			}
		}
	}
	return false
}

// wantContains reports each of wants missing from text.
func wantContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// credential returns the one secret (code span) of the result the
// requester got ephemerally, checking where it was posted.
func credential(t *testing.T, c slackfake.Call, channel, user string) (message, []string) {
	t.Helper()
	if c.Form.Get("channel") != channel || c.Form.Get("user") != user {
		t.Errorf("chat.postEphemeral to user %q in %q, want user %q in %q", c.Form.Get("user"), c.Form.Get("channel"), user, channel)
	}
	m := formMessage(t, c)
	return m, codeSpans(m.blocksText())
}

func TestApprovalRequestPostedAndNothingRuns(t *testing.T) {
	t.Parallel()
	clk := newClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	ownDomain(t, h, "example.com")
	before := h.sim.Requests("")

	pending, req := ask(t, h, stranger, "/mailbox", "add alice@example.com for the new hire")

	expires := epoch.Add(commands.DefaultApprovalTTL).Format(time.RFC1123)
	if pending.ResponseType != "ephemeral" {
		t.Errorf("pending reply response_type = %q, want ephemeral", pending.ResponseType)
	}
	wantContains(t, "pending reply", pending.shown(), "waiting for approval", "add mailbox alice@example.com", ops, expires)
	if got := req.call.Form.Get("channel"); got != ops {
		t.Errorf("request posted in %q, want %q", got, ops)
	}
	wantContains(t, "request message", allText(req.msg),
		"<@"+stranger+">", "<#"+general+">", "add mailbox alice@example.com", "for the new hire", "*Expires:* "+expires)

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
	clk := newClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	ownDomain(t, h, "example.com")
	_, req := ask(t, h, stranger, "/mailbox", "add alice@example.com new hire")
	clk.Advance(time.Hour)

	answer := decide(t, h, admin, req, approve)

	wantContains(t, "answer to the approver", answer.shown(), "Request approved", "alice@example.com")
	if n := h.sim.Requests(apiclient.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests, want 1", n)
	}
	eph := h.slack.Calls("chat.postEphemeral")
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls, want 1 (the result for the requester)", len(eph))
	}
	result, spans := credential(t, eph[0], general, stranger)
	if len(spans) != 1 {
		t.Fatalf("requester's result has code spans %q, want exactly the password:\n%s", spans, result.blocksText())
	}
	password := spans[0]
	if stored, ok := h.sim.Mailbox("alice@example.com"); !ok || stored != password {
		t.Errorf("sandbox has mailbox %v with password %q; the requester sees %q", ok, stored, password)
	}
	uid := regexp.MustCompile(`UID:\* (\d+)`).FindStringSubmatch(result.blocksText())
	if uid == nil {
		t.Fatalf("requester's result lacks the uid:\n%s", result.blocksText())
	}

	ups := h.slack.Calls("chat.update")
	if len(ups) != 1 {
		t.Fatalf("%d chat.update calls, want 1", len(ups))
	}
	if ch, ts := ups[0].Form.Get("channel"), ups[0].Form.Get("ts"); ch != ops || ts != req.call.TS {
		t.Errorf("chat.update of %s in %s, want the request message %s in %s", ts, ch, req.call.TS, ops)
	}
	updated := formMessage(t, ups[0])
	if hasButtons(updated) {
		t.Errorf("updated request still offers buttons: %+v", updated.Blocks)
	}
	wantContains(t, "updated request", allText(updated),
		"Approved by <@"+admin+"> at "+epoch.Add(time.Hour).UTC().Format("2006-01-02 15:04 UTC"),
		"add mailbox alice@example.com", "uid "+uid[1], "<@"+stranger+">")
	if n := len(h.slack.Calls("chat.postMessage")); n != 1 {
		t.Errorf("%d chat.postMessage calls, want 1: the update of the request is the ops notification", n)
	}

	if callShows(ups[0], password) {
		t.Errorf("password %q in the updated request message", password)
	}
	if strings.Contains(answer.shown(), password) {
		t.Errorf("password %q in the answer to the approver", password)
	}
	h.assertNoSecret(password)
}

func TestApprovalDeny(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h, stranger, "/maildomain", "register example.com")

	answer := decide(t, h, admin, req, deny)

	wantContains(t, "answer to the denier", answer.shown(), "denied")
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests after a denial, want 0", n)
	}
	ups := h.slack.Calls("chat.update")
	if len(ups) != 1 {
		t.Fatalf("%d chat.update calls, want 1", len(ups))
	}
	updated := formMessage(t, ups[0])
	if ups[0].Form.Get("ts") != req.call.TS || hasButtons(updated) {
		t.Errorf("update of %q with buttons %v, want the request %q without buttons", ups[0].Form.Get("ts"), hasButtons(updated), req.call.TS)
	}
	wantContains(t, "updated request", allText(updated), "Denied by <@"+admin+">", "register domain example.com")
	eph := ephemeralsTo(h, stranger)
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 1", len(eph))
	}
	told, _ := credential(t, eph[0], general, stranger)
	wantContains(t, "denial for the requester", told.shown(), "denied", admin, "register domain example.com")
}

func TestApprovalClickByNonAdminChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h, stranger, "/maildomain", "register example.com")

	for _, c := range []struct{ user, action string }{
		{stranger, approve}, // the requester
		{"UOTHER", approve},
		{"UOTHER", deny},
	} {
		answer := decide(t, h, c.user, req, c.action)
		wantContains(t, c.user+"'s "+c.action+" answer", answer.shown(), "Not allowed", "admins")
	}
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests after non-admins' clicks, want 0", n)
	}
	if n := len(h.slack.Calls("chat.update")) + len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d chat.update or chat.postEphemeral calls after non-admins' clicks, want 0", n)
	}

	// The request is untouched: an admin may still approve it.
	answer := decide(t, h, admin, req, approve)
	wantContains(t, "admin's answer", answer.shown(), "Request approved")
	if n := h.sim.Requests(apiclient.OpRegisterDomain); n != 1 {
		t.Errorf("sandbox saw %d register requests, want 1", n)
	}
}

func TestApprovalSelfApprovalRefusedInModeAll(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsAll))
	pending, req := ask(t, h, admin, "/maildomain", "register example.com")
	wantContains(t, "pending reply", pending.shown(), "another admin")

	for _, action := range []string{approve, deny} {
		answer := decide(t, h, admin, req, action)
		wantContains(t, "self-"+action+" answer", answer.shown(), "Not allowed", "another admin")
	}
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests after self-approval, want 0", n)
	}
	if n := len(h.slack.Calls("chat.update")); n != 0 {
		t.Errorf("%d chat.update calls after self-approval, want 0", n)
	}

	answer := decide(t, h, admin2, req, approve)
	wantContains(t, "other admin's answer", answer.shown(), "Request approved")
	if n := h.sim.Requests(apiclient.OpRegisterDomain); n != 1 {
		t.Fatalf("sandbox saw %d register requests, want 1", n)
	}
	ups := h.slack.Calls("chat.update")
	if len(ups) != 1 {
		t.Fatalf("%d chat.update calls, want 1", len(ups))
	}
	wantContains(t, "updated request", allText(formMessage(t, ups[0])), "Approved by <@"+admin2+">", "domain-activate")
	eph := ephemeralsTo(h, admin)
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 1", len(eph))
	}
	_, secrets := credential(t, eph[0], general, admin)
	// The owner registering again gets the same secrets from the sandbox.
	pdd, err := apiclient.New(h.simURL, h.token)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := pdd.RegisterDomain(t.Context(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{dom.Secrets.Name, dom.Secrets.Content}, secrets); diff != "" {
		t.Errorf("secrets the requester sees (-sandbox +shown):\n%s", diff)
	}
	for _, c := range ephemeralsTo(h, admin2) {
		if callShows(c, dom.Secrets.Name) || callShows(c, dom.Secrets.Content) {
			t.Errorf("the approver got a secret: %v", c.Form)
		}
	}
	h.assertNoSecret(dom.Secrets.Name, dom.Secrets.Content)
}

func TestApprovalConcurrentClicksRunOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	ownDomain(t, h, "example.com")
	_, req := ask(t, h, stranger, "/mailbox", "add alice@example.com")

	const clicks = 10
	ids := make([]string, clicks)
	users := make([]string, clicks)
	errs := make([]error, clicks)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clicks {
		users[i] = admin
		if i%2 == 1 {
			users[i] = admin2
		}
		wg.Go(func() {
			<-start
			ids[i], errs[i] = h.slack.Click(users[i], ops, req.call.TS, approvalBlock, approve, req.value)
		})
	}
	close(start)
	wg.Wait()

	winner := ""
	var already []int
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		answer := h.result(id)
		switch shown := answer.shown(); {
		case strings.Contains(shown, "Request approved"):
			if winner != "" {
				t.Errorf("two clicks approved: %s and %s", winner, users[i])
			}
			winner = users[i]
		case strings.Contains(shown, "Already decided"):
			already = append(already, i)
		default:
			t.Errorf("answer to click %d by %s:\n%s\nwant approved or already decided", i, users[i], shown)
		}
	}
	if winner == "" || len(already) != clicks-1 {
		t.Fatalf("clicks: winner %q and %d told already decided, want one winner and %d", winner, len(already), clicks-1)
	}
	for _, i := range already {
		wantContains(t, "answer to a later click", h.result(ids[i]).shown(), "<@"+winner+"> already approved")
	}

	// A later click, approve or deny, changes nothing either.
	for _, action := range []string{approve, deny} {
		answer := decide(t, h, admin2, req, action)
		wantContains(t, "answer to a repeated "+action, answer.shown(), "Already decided", "<@"+winner+"> already approved")
	}

	assertAddedOnce(t, h)
}

func TestApprovalExpired(t *testing.T) {
	t.Parallel()
	clk := newClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	_, req := ask(t, h, stranger, "/maildomain", "register example.com")
	clk.Advance(commands.DefaultApprovalTTL + time.Second)

	answer := decide(t, h, admin, req, approve)

	wantContains(t, "answer to a late click", answer.shown(), "Request expired")
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests for an expired request, want 0", n)
	}
	ups := h.slack.Calls("chat.update")
	if len(ups) != 1 {
		t.Fatalf("%d chat.update calls, want 1 (the request marked expired)", len(ups))
	}
	updated := formMessage(t, ups[0])
	if ups[0].Form.Get("ts") != req.call.TS || hasButtons(updated) {
		t.Errorf("update of %q with buttons %v, want the request %q without buttons", ups[0].Form.Get("ts"), hasButtons(updated), req.call.TS)
	}
	wantContains(t, "updated request", allText(updated), "Expired", "Nothing was done")
	if n := len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d chat.postEphemeral calls for an expired request, want 0", n)
	}
}

func TestApprovalAfterRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	ownDomain(t, h, "example.com")
	_, req := ask(t, h, stranger, "/mailbox", "add alice@example.com")
	if err := h.stop(); err != nil {
		t.Fatalf("first bot stopped with %v", err)
	}
	h.start() // a new process: same signing key, nothing else kept

	answer := decide(t, h, admin, req, approve)

	wantContains(t, "answer after the restart", answer.shown(), "Request approved")
	assertAddedOnce(t, h)
}

func TestApprovalResultFallsBackToDirectMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	ownDomain(t, h, "example.com")
	_, req := ask(t, h, stranger, "/mailbox", "add alice@example.com")
	h.slack.FailNext("chat.postEphemeral", "channel_not_found") // the bot is not in the requester's channel

	decide(t, h, admin, req, approve)

	opens := h.slack.Calls("conversations.open")
	if len(opens) != 1 || opens[0].Form.Get("users") != stranger {
		t.Fatalf("conversations.open calls %v, want one for %s", opens, stranger)
	}
	eph := h.slack.Calls("chat.postEphemeral")
	if len(eph) != 2 {
		t.Fatalf("%d chat.postEphemeral calls, want 2 (the request's channel, then the DM)", len(eph))
	}
	if ch := eph[0].Form.Get("channel"); ch != general {
		t.Errorf("first chat.postEphemeral in %q, want the request's channel %q", ch, general)
	}
	dm := "D" + strings.TrimPrefix(stranger, "U") // the channel the fake opens
	_, spans := credential(t, eph[1], dm, stranger)
	if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("requester sees %q in the DM, sandbox stored %q", spans, stored)
	}
	if n := h.sim.Requests(apiclient.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests, want 1", n)
	}
}

func TestApprovalForgedValueRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsAll))
	_, req := ask(t, h, admin, "/maildomain", "register example.com")

	parts := strings.Split(req.value, ".")
	if len(parts) != 3 {
		t.Fatalf("button value %q, want version.payload.signature", req.value)
	}
	// The same signature on a payload that names another domain and
	// another requester (so that the admin could approve it himself).
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	payload["d"], payload["u"] = "evil.example", stranger
	raw, err = json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]
	// A well-formed request signed by a mailbot with another key.
	pdd, err := apiclient.New(h.simURL, h.token)
	if err != nil {
		t.Fatal(err)
	}
	other, err := commands.New(pdd, commands.Config{Admins: []string{admin}, SigningKey: []byte("another key")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := other.EncodePending(commands.Pending{ID: "forged0001", Requester: stranger, Channel: general,
		Op: commands.Operation{Action: commands.ActionRegisterDomain, Domain: "evil.example"}, Created: time.Now()})

	for _, tc := range []struct{ name, value string }{
		{"garbage", "approve everything"},
		{"empty", ""},
		{"tampered payload", tampered},
		{"signed with another key", otherKey},
		{"cut signature", req.value[:len(req.value)-4]},
		{"signature on the wrong request", parts[0] + "." + parts[1] + "." + strings.Split(otherKey, ".")[2]},
	} {
		forged := req
		forged.value = tc.value
		answer := decide(t, h, admin2, forged, approve)
		wantContains(t, tc.name+": answer", answer.shown(), "not valid", "Nothing was done")
	}
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("sandbox saw %d requests after forged clicks, want 0", n)
	}
	if n := len(h.slack.Calls("chat.update")) + len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d chat.update or chat.postEphemeral calls after forged clicks, want 0", n)
	}

	// The genuine request is untouched.
	answer := decide(t, h, admin2, req, approve)
	wantContains(t, "genuine approval", answer.shown(), "Request approved", "example.com")
	if n, evil := h.sim.Requests(apiclient.OpRegisterDomain), strings.Contains(h.logs.String(), "evil.example"); n != 1 || evil {
		t.Errorf("sandbox saw %d register requests (want 1); evil.example in the logs: %v", n, evil)
	}
}

// TestApprovalSecretsReachOnlyTheRequester scans everything the bot sent
// and logged, and its metrics: the verification secrets and the password
// appear only in the ephemeral results for the requester.
func TestApprovalSecretsReachOnlyTheRequester(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, reg := ask(t, h, stranger, "/maildomain", "register example.com")
	decide(t, h, admin, reg, approve)
	_, add := ask(t, h, stranger, "/mailbox", "add alice@example.com")
	decide(t, h, admin2, add, approve)

	var secrets []string
	for _, c := range ephemeralsTo(h, stranger) {
		secrets = append(secrets, codeSpans(formMessage(t, c).blocksText())...)
	}
	password, _ := h.sim.Mailbox("alice@example.com")
	if len(secrets) != 3 || secrets[2] != password || password == "" {
		t.Fatalf("requester's secrets %q, want the two verification secrets and the password %q", secrets, password)
	}

	h.assertNoSecret(secrets...) // logs, chat.postMessage and chat.update
	if n := len(h.slack.Calls("chat.update")); n != 2 {
		t.Errorf("%d chat.update calls, want 2", n)
	}
	for _, c := range h.slack.Calls("") {
		if c.Method == "chat.postEphemeral" && c.Form.Get("user") == stranger {
			continue
		}
		for _, s := range secrets {
			if callShows(c, s) {
				t.Errorf("secret %q in %s to %q in %q", s, c.Method, c.Form.Get("user"), c.Form.Get("channel"))
			}
		}
	}
	var others []string // response_url posts and acks: the approvers' answers, the pending replies
	for _, p := range h.slack.Posts("") {
		others = append(others, visible(p.Raw)...)
	}
	for _, a := range h.slack.Acks() {
		others = append(others, visible(string(a.Payload))...)
	}
	families, err := h.reg.Gather()
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
		for _, txt := range others {
			if strings.Contains(txt, s) {
				t.Errorf("secret %q in a reply, ack or metric: %s", s, txt)
			}
		}
	}
}

// assertAddedOnce checks that an approved add of alice@example.com for
// stranger ran exactly once: one email/add, one update of the request
// message, and one ephemeral for the requester whose password is the one
// the sandbox stored.
func assertAddedOnce(t *testing.T, h *harness) {
	t.Helper()
	if n := h.sim.Requests(apiclient.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests, want exactly 1", n)
	}
	if n := len(h.slack.Calls("chat.update")); n != 1 {
		t.Errorf("%d chat.update calls, want 1", n)
	}
	eph := ephemeralsTo(h, stranger)
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 1", len(eph))
	}
	_, spans := credential(t, eph[0], general, stranger)
	if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("requester sees %q, sandbox stored %q", spans, stored)
	}
}
