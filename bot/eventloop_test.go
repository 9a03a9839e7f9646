package bot_test

import (
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
)

// TestEventLoopOnlyAcknowledges is a delivery guarantee under failure: a refused click
// whose answer meets a slow Slack Web API (the response_url expired, and
// chat.postEphemeral answers late, with channel_not_found, so that the
// messenger goes on to conversations.open), followed by /maildomain help.
// The help's ack arrives while the click's slow call is still in flight:
// before the call to conversations.open that follows its completion.
func TestEventLoopOnlyAcknowledges(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h.env, stranger, "/maildomain", "register example.com")
	h.slack.ExpireResponseURLs(true)
	h.slack.Faults.SetMethodDelay("chat.postEphemeral", 2*time.Second)
	h.slack.Faults.FailNext("chat.postEphemeral", "channel_not_found")

	click(t, h.env, "UOTHER", req, approve) // refused: not an admin
	if err := h.slack.Wait(wait, "the refusal's slow call", func() bool { return len(h.ephemeralsTo("UOTHER")) == 1 }); err != nil {
		t.Fatal(err)
	}
	_, ack := h.command(stranger, "/maildomain", "help")
	h.slack.Faults.SetMethodDelay("chat.postEphemeral", 0) // later calls are fast
	if n := len(h.slack.Calls("conversations.open")); n != 0 {
		t.Errorf("the help's ack came after the click's slow chat.postEphemeral completed (%d conversations.open calls already)", n)
	}
	wantContains(t, "help ack", ackMessage(t, ack).shown(), "/maildomain register")
	opens, err := h.slack.WaitCalls("conversations.open", 1, wait)
	if err != nil {
		t.Fatal(err)
	}
	if !ack.At.Before(opens[0].At) {
		t.Errorf("help acked at %s, after the slow call completed at %s", ack.At, opens[0].At)
	}
	// The refusal still reaches the clicker, by the DM.
	if _, err := h.slack.WaitCalls("chat.postEphemeral", 2, wait); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "refusal", callMessage(t, h.ephemeralsTo("UOTHER")[1]).shown(), "Not allowed")
	if h.sim.Requests("") != 0 {
		t.Error("a refused click reached the PDD API")
	}
}

// TestRedeliveredEnvelopeRunsOnce is a delivery guarantee under failure: Slack re-sends the
// envelope of a /mailbox add (it did not see the ack in time). The bot
// acknowledges it again and does not run it again. One worker serves the
// commands in order: a third command, sent after the re-delivery, finishes
// after anything the re-delivery could have queued.
func TestRedeliveredEnvelopeRunsOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withBotConfig(func(c *bot.Config) { c.Concurrency = 1 }))
	h.slack.Socket.SetRedeliveryAfter(0) // the test re-delivers
	h.ownDomain("example.com")
	g := h.holdRequests()
	id, _ := h.command(admin, "/mailbox", "add alice@example.com")
	g.next(t) // the worker runs it
	if err := h.slack.Redeliver(id); err != nil {
		t.Fatal(err)
	}
	acks, err := h.slack.Socket.WaitAcks(id, 2, wait)
	if err != nil {
		t.Fatal(err)
	}
	if d := h.slack.Socket.Deliveries(id); len(d) != 2 || d[1].Attempt != 1 || d[1].Reason != "timeout" {
		t.Errorf("deliveries %+v, want the first and one re-delivery", d)
	}
	last, _ := h.command(admin, "/mailbox", "add bob@example.com")
	g.release()
	h.result(last)
	h.waitOps(t, "bob@example.com")

	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 2 {
		t.Errorf("the PDD API saw %d email/add, want 2 (alice once, bob)", n)
	}
	posts := h.slack.Posts(id)
	if len(posts) != 1 {
		t.Fatalf("%d answers to the re-sent command, want 1", len(posts))
	}
	spans := codeSpans(decodeMessage(t, posts[0].Raw).blocksText())
	if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("the answer shows %q, the sandbox stored %q", spans, stored)
	}
	if n := len(h.opsMessages()); n != 2 {
		t.Errorf("%d ops notices, want 2", n)
	}
	if len(acks) != 2 {
		t.Errorf("%d acks, want 2", len(acks))
	}
}
