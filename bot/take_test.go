package bot_test

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// TestRefusedAlikeWhenBusy fills the one worker and the queue of one, then
// sends a command, a form and a click: each is refused with the same
// words, says that nothing was done, and the click is counted as busy.
func TestRefusedAlikeWhenBusy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withBotConfig(func(c *bot.Config) { c.Concurrency, c.MaxQueue = 1, 1 }))
	_, req := ask(t, h.env, stranger, "/maildomain", "register asked.com")
	view, _ := openForm(t, h.env, admin, "/maildomain", "")
	g, first, second := fillQueue(t, h)

	_, ack := h.command(admin, "/maildomain", "register three.com")
	wantContains(t, "the command", ackMessage(t, ack).shown(), "mailbot is busy", "Nothing was done")
	p := submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{slackfake.Text(domainInput, inputAction, "four.com")}})
	wantContains(t, "the form", strings.ToLower(formErrors(t, p)[domainInput].(string)), "mailbot is busy", "nothing was done")
	wantContains(t, "the click", h.result(click(t, h.env, admin, req, approve)).shown(), "mailbot is busy", "Nothing was done")

	g.release()
	h.result(first)
	h.result(second)
	if n := h.sim.Requests(""); n != 4 {
		t.Errorf("the API saw %d requests, want 4 (the command running and the one queued: each register reads the domain's status first)", n)
	}
	if n := counter(t, h.r.reg, "mailbot_approvals_total", commands.LabelBusy); n != 1 {
		t.Errorf("mailbot_approvals_total{decision=busy} = %v, want 1", n)
	}
}

// fillQueue has the one worker of h run "register one.com", held at the
// API by the gate it returns, and "register two.com" wait in the queue of
// one. It returns the gate and the two commands' envelope ids.
func fillQueue(t *testing.T, h *harness) (g *gate, first, second string) {
	t.Helper()
	g = h.holdRequests()
	first, _ = h.command(admin, "/maildomain", "register one.com")
	g.next(t) // the worker is busy with it
	second, _ = h.command(admin, "/maildomain", "register two.com")
	return g, first, second
}

// TestClickDuringStopSaysRestarting: a click while mailbot stops runs
// nothing, and the clicker is told that mailbot is restarting, as a
// command is.
func TestClickDuringStopSaysRestarting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h.env, stranger, "/maildomain", "register asked.com")
	g := h.holdRequests()
	id, _ := h.command(admin, "/maildomain", "register inflight.com")
	g.next(t) // keeps the drain going
	h.r.cancel()
	if err := h.slack.Wait(wait, "draining", func() bool { return !h.r.bot.Ready() }); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "the click", h.result(click(t, h.env, admin, req, approve)).shown(), "mailbot is restarting", "Nothing was done")
	g.release()
	h.result(id)
	if err := h.r.wait(); err != nil {
		t.Error(err)
	}
	if n := h.sim.Requests(""); n != 2 {
		t.Errorf("the API saw %d requests, want 2 (the command in flight: its status read and its register)", n)
	}
	if n := counter(t, h.r.reg, "mailbot_approvals_total", commands.LabelRestarting); n != 1 {
		t.Errorf("mailbot_approvals_total{decision=restarting} = %v, want 1", n)
	}
}
