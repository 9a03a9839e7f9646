package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
)

// The form's block_ids; each field's element has the action_id "value".
const (
	e2eFormUser   = "mailbot_user"
	e2eFormDomain = "mailbot_domain"
	e2eFormReason = "mailbot_reason"
	e2eFormValue  = "value"
)

// testE2EFormsHome is the forms and the Home tab from the binary: a bare /mailbox leads
// through the form to a mailbox whose password only the submitter sees;
// an admin's Home tab shows the pending request and approves it exactly
// once; the requester cancels a request from the pending notice; a
// non-admin's form requires the reason and becomes a request.
func testE2EFormsHome(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	w.serve("mailbot", w.env(map[string]string{"MAILBOT_APPROVALS": "requests", "MAILBOT_ADMINS": e2eAdmin1}))

	formAdd(t, w)
	homeApproval(t, w)
	cancelByRequester(t, w)
	formRequest(t, w)
}

// testE2EFormChoice is the form (docs/commands.md) with an allow-list of exact
// names: the domain is a choice of them with the default preselected, and
// a form that names only the user creates the mailbox in the default.
func testE2EFormChoice(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	w.serve("mailbot", w.env(map[string]string{"MAILBOT_DOMAINS": "other.org,example.com", "MAILBOT_DEFAULT_DOMAIN": "example.com"}))
	w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "")
	modal, err := w.fake.WaitModal(e2eAdmin1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	var view struct {
		Blocks []struct {
			BlockID string `json:"block_id"`
			Element struct {
				Type    string `json:"type"`
				Initial struct {
					Value string `json:"value"`
				} `json:"initial_option"`
				Options []struct {
					Value string `json:"value"`
				} `json:"options"`
			} `json:"element"`
		} `json:"blocks"`
	}
	raw, _ := json.Marshal(modal.JSON)
	_ = json.Unmarshal(raw, &view)
	for _, b := range view.Blocks {
		if b.BlockID == e2eFormDomain && (b.Element.Type != "static_select" || b.Element.Initial.Value != "example.com" || len(b.Element.Options) != 2) {
			t.Errorf("the domain field is %+v, want a choice of the 2 allowed domains, example.com preselected", b.Element)
		}
	}
	id, err := w.fake.SubmitView(e2eAdmin1, slackfake.Submission{ViewID: modal.ID, Values: []slackfake.Value{slackfake.Text(e2eFormUser, e2eFormValue, "zed")}})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := w.fake.Socket.WaitAck(id, e2eWait); err != nil || jsonField(ack.Payload, "response_action") != "clear" {
		t.Fatalf("the form with the default domain: ack %s (%v), want response_action clear", ack.Payload, err)
	}
	if err := w.fake.Wait(e2eWait, "the form's result", func() bool {
		pw, ok := w.sim.Mailbox("zed@example.com")
		return ok && w.deliveredTo(e2eAdmin1, pw) > 0
	}); err != nil {
		t.Error(err)
	}
}

// formAdd: the form of a bare /mailbox, an invalid submission answered
// next to its field without a PDD call, then a valid one.
func formAdd(t *testing.T, w *world) {
	w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "")
	modal, err := w.fake.WaitModal(e2eAdmin1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(modal.JSON)
	view := decodeMsg(string(raw))
	var ids []string
	for _, b := range view.Blocks {
		ids = append(ids, b.BlockID)
	}
	if strings.Join(ids, ",") != e2eFormUser+",mailbot_name,"+e2eFormDomain+",mailbot_for,"+e2eFormReason {
		t.Fatalf("the form of /mailbox has the blocks %q, want user, name (optional), domain, the optional person and reason", ids)
	}
	submit := func(domain string) map[string]any {
		t.Helper()
		id, err := w.fake.SubmitView(e2eAdmin1, slackfake.Submission{ViewID: modal.ID, Values: []slackfake.Value{
			slackfake.Text(e2eFormUser, e2eFormValue, "alice"), slackfake.Text(e2eFormDomain, e2eFormValue, domain)}})
		if err != nil {
			t.Fatal(err)
		}
		ack, err := w.fake.Socket.WaitAck(id, e2eWait)
		if err != nil {
			t.Fatal(err)
		}
		var payload map[string]any
		_ = json.Unmarshal(ack.Payload, &payload)
		return payload
	}
	bad := submit("exa_mple.com")
	errs, _ := bad["errors"].(map[string]any)
	if bad["response_action"] != "errors" || errs[e2eFormDomain] == nil {
		t.Errorf("an invalid domain in the form: ack %v, want errors next to the domain", bad)
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Fatalf("an invalid form reached the PDD API (%d adds)", n)
	}
	if good := submit("example.com"); good["response_action"] != "clear" {
		t.Errorf("a valid form: ack %v, want response_action clear", good)
	}
	var pw string
	if err := w.fake.Wait(e2eWait, "the form's result", func() bool {
		p, ok := w.sim.Mailbox("alice@example.com")
		pw = p
		return ok && w.deliveredTo(e2eAdmin1, p) > 0
	}); err != nil {
		t.Fatal(err)
	}
	w.seenOnlyBy("the form's password", pw, e2eAdmin1)
	for _, c := range w.fake.Calls("chat.postEphemeral") {
		if strings.Contains(callMsg(c).shown(), pw) && c.Form.Get("channel") != e2eGeneral {
			t.Errorf("the form's result went to %s, want the channel it was typed in (%s)", c.Form.Get("channel"), e2eGeneral)
		}
	}
}

// homeApproval: an admin approves a stranger's request from the Home tab
// (clicked twice at once): one add, the password to the requester alone,
// the Home tab re-published without the request, a stale click on the
// ops message runs nothing.
func homeApproval(t *testing.T, w *world) {
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add bob@example.com onboarding")
	req := w.waitRequest(1)
	ev, err := w.fake.AppHomeOpened(e2eAdmin1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(ev, e2eWait); err != nil {
		t.Fatal(err)
	}
	home, err := w.fake.WaitHome(e2eAdmin1, 1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	block := homeButtonBlock(home, e2eApprove)
	if block == "" || !strings.Contains(viewText(home), "bob@example.com") || !strings.Contains(viewText(home), "onboarding") {
		t.Fatalf("the admin's Home tab does not offer the pending request:\n%s", viewText(home))
	}
	// The add is slow, so the Home tab is re-published only after both
	// clicks: the second reaches mailbot while the first one runs.
	w.sim.SetLatency(time.Second)
	for i := range 2 {
		id, err := w.fake.ClickInView(e2eAdmin1, home.ID, block, e2eApprove, "")
		if err != nil {
			t.Fatalf("click %d on the Home tab refused by the fake: %v", i+1, err)
		}
		if _, err := w.fake.Socket.WaitAck(id, e2eWait); err != nil {
			t.Fatalf("click %d on the Home tab: %v", i+1, err)
		}
	}
	upd := w.waitUpdate(req.ts, "Approved by")
	w.sim.SetLatency(0)
	if upd.HasButtons() {
		t.Errorf("the request message still offers buttons after the approval")
	}
	pw, ok := w.sim.Mailbox("bob@example.com")
	if !ok {
		t.Fatal("the approved mailbox does not exist")
	}
	if err := w.fake.Wait(e2eWait, "the requester's result", func() bool { return w.deliveredTo(e2eUser, pw) > 0 }); err != nil {
		t.Fatal(err)
	}
	w.seenOnlyBy("the approved password", pw, e2eUser)
	home2, err := w.fake.WaitHome(e2eAdmin1, home.Version+1, e2eWait)
	if err != nil {
		t.Errorf("the Home tab was not re-published after the decision: %v", err)
	} else if homeButtonBlock(home2, e2eApprove) != "" {
		t.Errorf("the re-published Home tab still offers Approve:\n%s", viewText(home2))
	} else if text := viewText(home2); strings.Index(text, "add bob@example.com") > strings.Index(text, "add alice@example.com") ||
		!strings.Contains(text, "add alice@example.com") {
		t.Errorf("the Home tab's latest operations are not newest first (bob's approved add, then alice's form):\n%s", text)
	}
	w.result(w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove))
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 2 {
		t.Errorf("%d adds reached the PDD API, want 2 (the form's and one approved)", n)
	}
}

// cancelByRequester: a reason's mentions and link reach the ops channel
// inert; the requester's Home tab offers Cancel; another user cannot
// cancel; the requester cancels from the pending notice; a stale
// Approve after it runs nothing.
func cancelByRequester(t *testing.T, w *world) {
	id, _ := w.command(w.fake.Via(0), e2eUser, "/mailbox", "add carol@example.com for the team <!channel> <@UADMIN1> <http://evil.example|docs>")
	notice := w.result(id)
	value, ok := notice.Button(e2eReplyBlock, e2eCancel)
	if !ok {
		t.Fatalf("the pending notice has no Cancel button:\n%s", notice.shown())
	}
	req := w.waitRequest(2)
	for _, c := range w.fake.Calls("chat.postMessage") {
		if c.TS != req.ts {
			continue
		}
		for _, mark := range []string{"<!channel>", "<@UADMIN1>", "evil.example"} {
			if raw := c.Form.Get("text") + c.Form.Get("blocks"); strings.Contains(raw, mark) {
				t.Errorf("the request message carries the requester's %s: %s", mark, raw)
			}
		}
	}
	ev, err := w.fake.AppHomeOpened(e2eUser)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(ev, e2eWait); err != nil {
		t.Fatal(err)
	}
	if home, err := w.fake.WaitHome(e2eUser, 1, e2eWait); err != nil || homeButtonBlock(home, e2eCancel) == "" ||
		!strings.Contains(viewText(home), "carol@example.com") || homeButtonBlock(home, e2eApprove) != "" {
		t.Errorf("the requester's Home tab (%v) does not show their request with Cancel alone:\n%s", err, viewText(home))
	}
	other, err := w.fake.Click("UOTHER", e2eGeneral, "", e2eReplyBlock, e2eCancel, value)
	if err != nil {
		t.Fatal(err)
	}
	w.result(other)
	for _, u := range w.updates(req.ts) {
		if strings.Contains(u.shown(), "ancelled") {
			t.Errorf("another user's Cancel cancelled the request")
		}
	}
	mine, err := w.fake.Click(e2eUser, e2eGeneral, "", e2eReplyBlock, e2eCancel, value)
	if err != nil {
		t.Fatal(err)
	}
	w.result(mine)
	if upd := w.waitUpdate(req.ts, "Cancelled by the requester"); upd.HasButtons() {
		t.Errorf("the cancelled request message still offers buttons")
	}
	w.result(w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove))
	if _, ok := w.sim.Mailbox("carol@example.com"); ok || w.sim.Requests(pddsim.OpAddMailbox) != 2 {
		t.Errorf("an Approve after the cancel ran the request")
	}
}

// formRequest: "/mailbox add" alone opens the form too; for a non-admin
// the reason is required (Slack's client will not submit it empty), and
// the submitted form becomes a request for the admins, nothing run.
func formRequest(t *testing.T, w *world) {
	const user = "UDAN"
	w.command(w.fake.Via(0), user, "/mailbox", "add")
	modal, err := w.fake.WaitModal(user, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(modal.JSON)
	for _, b := range decodeMsg(string(raw)).Blocks {
		if b.BlockID == e2eFormReason && b.Optional {
			t.Errorf("a non-admin's form (approval needed) has an optional reason")
		}
	}
	values := []slackfake.Value{slackfake.Text(e2eFormUser, e2eFormValue, "dan"), slackfake.Text(e2eFormDomain, e2eFormValue, "example.com")}
	if _, err := w.fake.SubmitView(user, slackfake.Submission{ViewID: modal.ID, Values: values}); err == nil {
		t.Errorf("the form was submitted without the required reason")
	}
	id, err := w.fake.SubmitView(user, slackfake.Submission{ViewID: modal.ID, Values: append(values, slackfake.Text(e2eFormReason, e2eFormValue, "via the form"))})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := w.fake.Socket.WaitAck(id, e2eWait); err != nil || jsonField(ack.Payload, "response_action") != "clear" {
		t.Errorf("the non-admin's valid form: ack %s (%v), want response_action clear", ack.Payload, err)
	}
	req := w.waitRequest(3)
	if !strings.Contains(req.msg.shown(), "dan@example.com") || !strings.Contains(req.msg.shown(), "via the form") {
		t.Errorf("the form's request message:\n%s", req.msg.shown())
	}
	if err := w.fake.Wait(e2eWait, "the pending notice of the form", func() bool { return w.deliveredTo(user, "needs an admin's approval") > 0 }); err != nil {
		t.Error(err)
	}
	if _, ok := w.sim.Mailbox("dan@example.com"); ok {
		t.Errorf("a form that needs approval ran at once")
	}
}

// homeButtonBlock returns the block_id of the first Home tab block that
// offers the button action, or "".
func homeButtonBlock(v slackfake.View, action string) string {
	return homeButtonBlockFor(v, action, "")
}

// homeButtonBlockFor is the block_id of the first Home tab button block
// offering action whose request (the section just above it) mentions
// target.
func homeButtonBlockFor(v slackfake.View, action, target string) string {
	raw, _ := json.Marshal(v.JSON)
	above := ""
	for _, b := range decodeMsg(string(raw)).Blocks {
		if !strings.HasPrefix(b.BlockID, e2eHomePrefix) {
			if b.Text != nil {
				above = b.Text.Text
			}
			continue
		}
		if !strings.Contains(above, target) {
			continue
		}
		for _, e := range b.Elements {
			if e.ActionID == action {
				return b.BlockID
			}
		}
	}
	return ""
}

// viewText is every string of a view.
func viewText(v slackfake.View) string {
	raw, _ := json.Marshal(v.JSON)
	return decodeMsg(string(raw)).shown()
}
