package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot"
)

// TestShutdownWithBacklogAnswersEveryone is a delivery guarantee under failure: a backlog of
// /mailbox add, two workers, a sandbox that holds requests and a short
// shutdown budget. Two commands finish before the stop, two are cut by the
// budget while the PDD API holds them, and the rest never start: every
// acknowledged command gets a final answer, and the ops channel hears of
// every operation that reached the PDD API.
func TestShutdownWithBacklogAnswersEveryone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withBotConfig(func(c *bot.Config) { c.Concurrency, c.ShutdownTimeout = 2, 300*time.Millisecond }))
	h.ownDomain("example.com")
	g := h.holdRequests()
	const n = 10
	ids := make([]string, n)
	for i := range n {
		id, ack := h.command(admin, "/mailbox", fmt.Sprintf("add user%d@example.com", i))
		ids[i] = id
		wantContains(t, "ack", ackMessage(t, ack).shown(), "Working on it")
	}
	g.next(t)
	g.next(t)
	g.allow(2) // the first two finish
	g.next(t)
	g.next(t) // two more are held by the PDD API
	done := 0
	if err := h.slack.Wait(wait, "two results", func() bool {
		done = 0
		for _, id := range ids {
			done += len(h.slack.Posts(id))
		}
		return done == 2
	}); err != nil {
		t.Fatal(err)
	}

	h.r.cancel()
	if err := h.r.wait(); err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}

	var created, uncertain, notRun int
	for i, id := range ids {
		posts := h.slack.Posts(id)
		if len(posts) != 1 {
			t.Errorf("command %d got %d answers after its ack, want 1", i, len(posts))
			continue
		}
		switch shown := decodeMessage(t, posts[0].Raw).shown(); {
		case strings.Contains(shown, "may exist"): // before "created": its advice says "whether the mailbox was created"
			uncertain++
		case strings.Contains(shown, "created"):
			created++
		case strings.Contains(shown, "Not run") && strings.Contains(shown, "repeat it"):
			notRun++
		default:
			t.Errorf("command %d was answered:\n%s\nwant its result, not run, or may have happened", i, shown)
		}
	}
	if created != 2 || uncertain != 2 || notRun != n-4 {
		t.Errorf("answers: %d created, %d may exist, %d not run; want 2, 2, %d", created, uncertain, notRun, n-4)
	}
	if got := h.sim.Requests(pddsim.OpAddMailbox); got != 4 {
		t.Errorf("the PDD API saw %d email/add, want 4", got)
	}
	var notices []string
	for _, m := range h.opsMessages() {
		notices = append(notices, m.shown())
	}
	for _, s := range h.secrets.all() { // one password per email/add that reached the API
		if s.kind != "password" {
			continue
		}
		if countContaining(notices, s.target) != 1 {
			t.Errorf("the ops channel heard %d times of %s, which reached the PDD API; want once:\n%s",
				countContaining(notices, s.target), s.target, strings.Join(notices, "\n"))
		}
	}
}

// TestCloseSocketFirst: with a database, the stop closes the Socket Mode
// connection first, so that Slack sends new commands to other replicas,
// and then finishes the work in flight and answers it.
func TestCloseSocketFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withBotConfig(func(c *bot.Config) { c.CloseSocketFirst = true }))
	g := h.holdRequests()
	id, _ := h.command(admin, "/maildomain", "register inflight.com")
	g.next(t)
	h.r.cancel()
	if err := h.slack.Wait(wait, "the socket closed", func() bool { return h.slack.Socket.Connections() == 0 }); err != nil {
		t.Fatal(err)
	}
	if h.r.bot.Ready() {
		t.Error("the bot says it is ready with its socket closed")
	}
	if len(h.slack.Posts(id)) != 0 {
		t.Fatal("the work finished before the socket closed: the test shows nothing")
	}
	g.release()
	if err := h.r.wait(); err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
	wantContains(t, "the work in flight", h.result(id).shown(), "inflight.com", "registered")
	h.waitOps(t, "inflight.com")
}
