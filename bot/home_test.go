package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/testkit"
)

// cancelClick clicks Cancel in a pending notice as user and returns the
// answer to the clicker.
func cancelClick(t *testing.T, e *env, user string, pending message) message {
	t.Helper()
	value, ok := pending.Button(replyBlock, cancelButton)
	if !ok {
		t.Fatalf("the pending notice offers no Cancel: %+v", pending.Blocks)
	}
	id, err := e.slack.Click(user, general, "", replyBlock, cancelButton, value)
	if err != nil {
		t.Fatal(err)
	}
	return e.result(id)
}

func TestCancelByTheRequesterOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.ownDomain("example.com")
	pending, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")

	for _, u := range []string{admin, "UOTHER"} {
		wantContains(t, u+"'s cancel", cancelClick(t, h.env, u, pending).shown(), "Not allowed", "Only the person who made the request")
	}
	if n := len(h.updates(req)); n != 0 {
		t.Fatalf("%d updates of the request after others' cancels, want 0", n)
	}
	wantContains(t, "requester's cancel", cancelClick(t, h.env, stranger, pending).shown(), "Request cancelled")
	updated := h.waitUpdate(req, 1)
	if updated.HasButtons() {
		t.Error("the cancelled request still offers buttons")
	}
	wantContains(t, "cancelled request", updated.shown(), "Cancelled by the requester", "<@"+stranger+">")

	// A stale Approve (an admin's client still shows the buttons) and a
	// second Cancel change nothing.
	wantContains(t, "stale approve", decide(t, h.env, admin, req, approve).shown(), "Already decided", "cancelled")
	wantContains(t, "second cancel", cancelClick(t, h.env, stranger, pending).shown(), "Already decided")
	if n := h.sim.Requests(pddsim.OpAddMailbox) + len(h.updates(req)) - 1; n != 0 {
		t.Errorf("%d email/add and further updates after the cancel, want 0", n)
	}
	entries, err := h.store.Audit(context.Background(), time.Time{}, 0, false)
	if err != nil || len(entries) != 1 || entries[0].Event != commands.EventCancelled || entries[0].Deciders[0] != stranger {
		t.Errorf("audit trail %+v (%v), want one cancellation by %s", entries, err, stranger)
	}
}

// homeScene makes the requests a Home tab shows, a minute apart on the
// clock: stranger asks to register stranger.com and to add alice, UOTHER
// to register other.com; the admin registered admin.com directly before.
func homeScene(t *testing.T, h *harness, clk *testkit.Clock) []approvalRequest {
	t.Helper()
	h.ownDomain("example.com")
	id, _ := h.command(admin, "/maildomain", "register admin.com")
	h.result(id)
	var reqs []approvalRequest
	for _, r := range []struct{ user, cmd, text string }{
		{stranger, "/maildomain", "register stranger.com for the shop"},
		{"UOTHER", "/maildomain", "register other.com"},
		{stranger, "/mailbox", "add alice@example.com new hire"},
	} {
		clk.Advance(time.Minute)
		_, req := ask(t, h.env, r.user, r.cmd, r.text)
		reqs = append(reqs, req)
	}
	return reqs
}

// openHome sends app_home_opened for user and waits for the version of
// their Home tab; it returns the view as the bot sent it and as the fake
// holds it.
func openHome(t *testing.T, e *env, user string, version int) (slackfake.View, map[string]any) {
	t.Helper()
	id, err := e.slack.AppHomeOpened(user)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.slack.Socket.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	return waitHome(t, e, user, version)
}

// waitHome waits for a version of user's Home tab.
func waitHome(t *testing.T, e *env, user string, version int) (slackfake.View, map[string]any) {
	t.Helper()
	v, err := e.slack.WaitHome(user, version, wait)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	for _, c := range e.slack.Calls("views.publish") {
		if c.JSON["user_id"] == user {
			sent, _ = c.JSON["view"].(map[string]any)
		}
	}
	return v, sent
}

// homeButtons lists the buttons of a Home view: "block action".
func homeButtons(view map[string]any) []string {
	var out []string
	for _, b := range asList(view["blocks"]) {
		bm := b.(map[string]any)
		for _, e := range asList(bm["elements"]) {
			if em := e.(map[string]any); em["type"] == "button" {
				out = append(out, fmt.Sprintf("%s %s", bm["block_id"], em["action_id"]))
			}
		}
	}
	return out
}

// ids returns the replacements of the pending requests' IDs by REQ-n, in
// the order of their creation, for golden files.
func ids(t *testing.T, e *env) []string {
	t.Helper()
	recs, err := e.store.Pending(context.Background(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, r := range recs {
		out = append(out, r.ID, fmt.Sprintf("REQ-%d", i+1))
	}
	return out
}

func TestHomeTab(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	reqs := homeScene(t, h, clk)
	replace := ids(t, h.env)

	adminView, adminSent := openHome(t, h.env, admin, 1)
	if got, want := strings.Join(homeButtons(adminSent), ", "),
		"mailbot_home_0 approve, mailbot_home_0 deny, mailbot_home_1 approve, mailbot_home_1 deny, mailbot_home_2 approve, mailbot_home_2 deny"; got != want {
		t.Errorf("admin's Home buttons: %s\nwant %s", got, want)
	}
	adminText := strings.Join(slackfake.Flatten(mustJSON(adminSent)), "\n")
	wantContains(t, "admin's Home", adminText, "stranger.com", "other.com", "alice@example.com", "for the shop",
		"register admin.com by <@"+admin+">: ok provider=pdd status=domain-activate")
	golden(t, "home_admin", signed(adminSent), replace...)

	_, strangerSent := openHome(t, h.env, stranger, 1)
	if got, want := strings.Join(homeButtons(strangerSent), ", "), "mailbot_home_0 cancel, mailbot_home_1 cancel"; got != want {
		t.Errorf("requester's Home buttons: %s\nwant %s", got, want)
	}
	strangerText := strings.Join(slackfake.Flatten(mustJSON(strangerSent)), "\n")
	if strings.Contains(strangerText, "other.com") || strings.Contains(strangerText, "admin.com") {
		t.Error("the requester's Home shows others' requests or the audit trail")
	}
	golden(t, "home_requester", signed(strangerSent), replace...)
	h.assertNoSecretInViews(t)

	// Approve the add from the admin's Home: it runs once, the request
	// message is updated, and the admin's Home is published again.
	id, err := h.slack.ClickInView(admin, adminView.ID, "mailbot_home_2", approve, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.Socket.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	_, again := waitHome(t, h.env, admin, 2)
	assertAddedOnce(t, h.env, reqs[2])
	if updated := callMessage(t, h.updates(reqs[2])[0]); updated.HasButtons() || !strings.Contains(updated.shown(), "Approved by <@"+admin+">") {
		t.Errorf("the request message after the Home approval: %q, buttons %v", updated.shown(), updated.HasButtons())
	}
	if got := len(homeButtons(again)); got != 4 {
		t.Errorf("the admin's Home shows %d buttons after the approval, want 4 (two requests)", got)
	}
	wantContains(t, "admin's Home after", strings.Join(slackfake.Flatten(mustJSON(again)), "\n"), "add alice@example.com by <@"+stranger+">, decided by <@"+admin+">: ok")
	// The approver's answer goes to the approver alone, by the DM.
	answer, _ := credential(t, h.waitEphemeral(admin, 1), "D"+strings.TrimPrefix(admin, "U"), admin)
	wantContains(t, "answer to the approver", answer.shown(), "Request approved")
	h.assertNoSecretInViews(t)
}

// assertNoSecretInViews checks every view the bot opened or published:
// none holds a password or verification secret (the harness allows the
// requester to see them; a view must not show them even to them).
func (e *env) assertNoSecretInViews(t *testing.T) {
	t.Helper()
	for _, v := range e.slack.Views() {
		text := strings.Join(slackfake.Flatten(mustJSON(v.JSON)), "\n")
		for _, s := range e.secrets.all() {
			if strings.Contains(text, s.value) {
				t.Errorf("%s %q of %s in %s's %s view", s.kind, s.value, s.target, v.User, v.Type)
			}
		}
	}
}

// TestHomeDenyAndCancel: Deny from an admin's Home and Cancel from a
// requester's act as the buttons of the messages do, and each Home is
// published again without the request.
func TestHomeDenyAndCancel(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withClock(clk.Now))
	_, first := ask(t, h.env, stranger, "/maildomain", "register one.example")
	clk.Advance(time.Minute)
	_, second := ask(t, h.env, stranger, "/maildomain", "register two.example")

	adminView, _ := openHome(t, h.env, admin, 1)
	click := func(user, viewID, block, action string) {
		t.Helper()
		id, err := h.slack.ClickInView(user, viewID, block, action, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.slack.Socket.WaitAck(id, wait); err != nil {
			t.Fatal(err)
		}
	}
	click(admin, adminView.ID, "mailbot_home_0", deny)
	_, again := waitHome(t, h.env, admin, 2)
	if got := homeButtons(again); len(got) != 2 {
		t.Errorf("the admin's Home after the denial offers %v, want the other request's two buttons", got)
	}
	wantContains(t, "denied request", h.waitUpdate(first, 1).shown(), "Denied by <@"+admin+">")

	strangerView, _ := openHome(t, h.env, stranger, 1)
	click(stranger, strangerView.ID, "mailbot_home_0", cancelButton)
	_, mine := waitHome(t, h.env, stranger, 2)
	if got := homeButtons(mine); len(got) != 0 {
		t.Errorf("the requester's Home after the cancel offers %v, want nothing", got)
	}
	wantContains(t, "cancelled request", h.waitUpdate(second, 1).shown(), "Cancelled by the requester")
	if h.sim.Requests("") != 0 {
		t.Error("a denied or cancelled request reached the PDD API")
	}
}
