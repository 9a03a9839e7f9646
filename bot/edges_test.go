package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// TestRedeliveredAnswerKeepsItsPayload: Slack re-sends an envelope when
// it did not see the ack in time, and then ignores that late ack. When
// the ack itself was the answer (help, a refusal, a form's errors), the
// ack of the re-sent envelope must carry it again, or the person never
// gets one (no acknowledged command without an answer).
func TestRedeliveredAnswerKeepsItsPayload(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.Socket.SetRedeliveryAfter(0) // the test re-delivers
	for _, tc := range []struct{ user, cmd, text, want string }{
		{stranger, "/maildomain", "help", "/maildomain register"},
		{stranger, "/mailbox", "add alice@example.com", "Not allowed"},
		{admin, "/maildomain", "register exa_mple.com", "exa_mple.com"},
	} {
		id, first := h.command(tc.user, tc.cmd, tc.text)
		wantContains(t, "first ack", ackMessage(t, first).shown(), tc.want)
		if err := h.slack.Redeliver(id); err != nil {
			t.Fatal(err)
		}
		acks, err := h.slack.Socket.WaitAcks(id, 2, wait)
		if err != nil {
			t.Fatal(err)
		}
		if got := ackMessage(t, acks[1]).shown(); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: the ack of the re-sent envelope shows %q, want the answer again (%q)", tc.cmd, tc.text, got, tc.want)
		}
	}
	// A form with a bad user name, re-sent: its errors again.
	view, _ := openForm(t, h.env, admin, "/mailbox", "")
	id, err := h.slack.SubmitView(admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(userInput, inputAction, "-alice"), slackfake.Text(domainInput, inputAction, "example.com")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.Socket.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	if err := h.slack.Redeliver(id); err != nil {
		t.Fatal(err)
	}
	acks, err := h.slack.Socket.WaitAcks(id, 2, wait)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(acks[1].Payload), `"errors"`) {
		t.Errorf("the ack of the re-sent form is %s, want its errors again (%s)", acks[1].Payload, acks[0].Payload)
	}
	if err := h.r.stop(); err != nil { // whatever it queued is done
		t.Fatal(err)
	}
	if h.sim.Requests("") != 0 {
		t.Error("a re-sent envelope reached the PDD API")
	}
}

// TestFormNotHeldUpBySlowHome: the form of a bare command must open
// within its trigger's life (3 s at Slack; 1 s here), even while Slack is
// slow to take someone's Home tab.
// (A form once queued behind every other short answer on one worker.)
func TestFormNotHeldUpBySlowHome(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.SetTriggerTTL(time.Second)
	h.slack.Faults.SetMethodDelay("views.publish", 1500*time.Millisecond)
	if _, err := h.slack.AppHomeOpened(stranger); err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitCalls("views.publish", 1, wait); err != nil {
		t.Fatal(err)
	}
	id, _ := h.command(admin, "/mailbox", "")
	if err := h.slack.Wait(wait, "a form or the usage", func() bool {
		return len(h.slack.Views()) > 1 || len(h.slack.Posts(id)) > 0
	}); err != nil {
		t.Fatal(err)
	}
	if posts := h.slack.Posts(id); len(posts) > 0 {
		late := "never called"
		if opens := h.slack.Calls("views.open"); len(opens) > 0 {
			late = fmt.Sprintf("called %s after the ack", opens[0].At.Sub(h.slack.Socket.AcksOf(id)[0].At).Round(time.Millisecond))
		}
		t.Errorf("the form did not open behind a slow Home tab (views.open %s, the trigger lives 1s); the person got the usage instead", late)
	}
}

// TestFormTriggerExpiredAnswersUsage: when the form cannot open (its
// trigger expired), the person gets the usage instead, privately.
func TestFormTriggerExpiredAnswersUsage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.SetTriggerTTL(time.Nanosecond)
	id, _ := h.command(admin, "/mailbox", "add")
	res := h.result(id)
	if res.ResponseType != "ephemeral" {
		t.Errorf("usage response_type %q, want ephemeral", res.ResponseType)
	}
	wantContains(t, "usage", res.shown(), "/mailbox add")
	if n := len(h.slack.Views()); n != 0 {
		t.Errorf("%d views opened with an expired trigger", n)
	}
}

// TestHomeWithManyLongRequestsFitsSlack: 25 pending requests with reasons
// of the longest kind, and 25 operations in the trail: the admin's Home
// tab is one Slack accepts (the harness checks Rejected), with at most 20
// of each.
func TestHomeWithManyLongRequestsFitsSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	reason := strings.Repeat("𝔸<&>", 200) // long, wide and escaped
	for i := range 25 {
		id, _ := h.command(admin, "/maildomain", fmt.Sprintf("register admin%02d.example %s", i, reason))
		h.result(id)
		user := fmt.Sprintf("U%03d", i)
		if _, err := h.slack.SlashCommand(user, general, "/maildomain", fmt.Sprintf("register req%02d.example %s", i, reason)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.slack.Wait(wait, "25 requests", func() bool { return len(h.approvalRequests()) == 25 }); err != nil {
		t.Fatal(err)
	}
	_, sent := openHome(t, h.env, admin, 1)
	if n := len(homeButtons(sent)); n != 40 {
		t.Errorf("%d buttons on the admin's Home, want 40 (20 requests)", n)
	}
	text := strings.Join(slackfake.Flatten(mustJSON(sent)), "\n")
	if !strings.Contains(text, "admin24.example") || strings.Contains(text, "admin04.example") {
		t.Error("the admin's Home does not show the 20 latest operations")
	}
	if r := h.slack.Rejected(); len(r) != 0 {
		t.Errorf("Slack refused %v", r)
	}
}

// TestFormWithLongAllowedDomain: a domain name may have 253 characters,
// but a select option's value at most 150: an allow-list that names a
// long domain still gives a form Slack accepts, where that domain can be
// chosen or typed. (It is 190 characters: the dots of the labels count.)
//
// BUG: bot/forms.go:88 (domainInput) makes each allowed domain an option
// whose value is the domain, uncut (a value cannot be cut), and Slack
// refuses an option value over 150 characters (invalid_arguments): the
// whole form fails and every bare command answers with the usage. When an
// allowed domain is longer than 150 characters, use a text input (or
// values that are indexes into the signed list).
func TestFormWithLongAllowedDomain(t *testing.T) {
	t.Parallel()
	label := strings.Repeat("a", 60)
	longDomain := label + "." + label + "." + label + ".example"
	h := newHarness(t, withDomains("example.com", longDomain))
	id, _ := h.command(admin, "/maildomain", "")
	if err := h.slack.Wait(wait, "a form or the usage", func() bool {
		return len(h.slack.Views()) > 0 || len(h.slack.Posts(id)) > 0
	}); err != nil {
		t.Fatal(err)
	}
	if len(h.slack.Views()) == 0 {
		t.Errorf("no form opened for an allow-list with a %d-character domain; Slack refused %v", len(longDomain), h.slack.Rejected())
	}
}

// TestFormDuringStopSaysRestarting: a form submitted while mailbot stops
// (without a database: the socket stays open for the drain) is a new
// command: nothing runs, and the person is told that mailbot is
// restarting (docs/delivery.md), as a typed command is, in the form's errors
// so that it stays open to submit again.
func TestFormDuringStopSaysRestarting(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	view, _ := openForm(t, h.env, admin, "/maildomain", "")
	g := h.holdRequests()
	h.command(admin, "/maildomain", "register inflight.com")
	g.next(t) // keeps the drain going
	h.r.cancel()
	if err := h.slack.Wait(wait, "draining", func() bool { return !h.r.bot.Ready() }); err != nil {
		t.Fatal(err)
	}
	p := submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{slackfake.Text(domainInput, inputAction, "late.com")}})
	told := fmt.Sprint(formErrors(t, p)[domainInput])
	g.release()
	if !strings.Contains(told, "restarting") || !strings.Contains(told, "Nothing was done") {
		t.Errorf("a form submitted during the stop was answered %q, want that mailbot is restarting and nothing was done", told)
	}
	if err := h.r.wait(); err != nil {
		t.Error(err)
	}
	if n := h.sim.Requests(""); n != 2 {
		t.Errorf("the API saw %d requests, want 2 (the command in flight: its status read and its register)", n)
	}
}

// TestRequestNotPostedIsEnded: when the request cannot be posted to the
// ops channel (the bot is not in it), the requester is told, nothing runs,
// and the request is not left pending.
func TestRequestNotPostedIsEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.slack.Faults.SetChannelNotFound(ops)
	id, _ := h.command(stranger, "/maildomain", "register example.com")
	wantContains(t, "reply", h.result(id).shown(), "could not be sent to the admins", "Nothing was done")
	recs, err := h.store.Pending(t.Context(), "", 10)
	if err != nil || len(recs) != 0 {
		t.Errorf("pending requests %v (%v), want none", recs, err)
	}
	if h.sim.Requests("") != 0 {
		t.Error("an unposted request reached the PDD API")
	}
}
