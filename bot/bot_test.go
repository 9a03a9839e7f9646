package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/testkit"
)

func TestRegisterAndAddAsAdmin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)

	id, ack := h.command(admin, "/maildomain", "register Example.COM. first try")
	if got := ackMessage(t, ack); got.ResponseType != "ephemeral" {
		t.Errorf("ack response_type = %q, want ephemeral", got.ResponseType)
	}
	reg := h.result(id)
	if reg.ResponseType != "ephemeral" || !reg.ReplaceOriginal {
		t.Errorf("register result: response_type %q replace_original %v, want ephemeral, true", reg.ResponseType, reg.ReplaceOriginal)
	}
	// The secrets the sandbox holds: the owner registering again sees them.
	dom, err := h.pdd().RegisterDomain(context.Background(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "register reply", reg.shown(), "example.com", "domain-activate", dom.Secrets.Name, dom.Secrets.Content, "mx.yandex.net")

	id, _ = h.command(admin, "/mailbox", "add alice@example.com")
	add := h.result(id)
	spans := codeSpans(add.blocksText())
	if len(spans) != 1 {
		t.Fatalf("add reply has code spans %q, want exactly the password:\n%s", spans, add.blocksText())
	}
	if stored, ok := h.sim.Mailbox("alice@example.com"); !ok || stored != spans[0] {
		t.Errorf("sandbox has mailbox %v with password %q; the reply shows %q", ok, stored, spans[0])
	}
	wantContains(t, "add reply", add.shown(), "alice@example.com", "UID")

	// One ops notice per operation, naming who and what.
	calls, err := h.slack.WaitCalls("chat.postMessage", 2, wait)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c.Form.Get("channel") != ops {
			t.Errorf("notice in %q, want %q", c.Form.Get("channel"), ops)
		}
	}
	// The two notices are posted by two workers after their replies: in
	// either order.
	regNotice, addNotice := calls[0].Form.Get("text"), calls[1].Form.Get("text")
	if strings.Contains(regNotice, "alice@example.com") {
		regNotice, addNotice = addNotice, regNotice
	}
	wantContains(t, "register notice", regNotice, "<@"+admin+">", "example.com", "domain-activate")
	wantContains(t, "add notice", addNotice, "<@"+admin+">", "alice@example.com")
	if n := h.sim.Requests(""); n != 4 {
		t.Errorf("sandbox saw %d requests, want 4 (3 by the bot: the register reads the domain's status first; 1 by the test)", n)
	}
}

func TestRefusalsAndInvalidInputCallNoAPI(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDomains("example.com", "*.example.org"))
	for _, tc := range []struct {
		name, user, cmd, text, want string
	}{
		{"non-admin", stranger, "/maildomain", "register example.com", "Not allowed"},
		{"bad domain", admin, "/maildomain", "register exa_mple.com", "exa_mple.com"},
		{"mention instead of domain", admin, "/maildomain", "register <@U123|bob>", "/maildomain register"},
		{"bad login", admin, "/mailbox", "add -alice@example.com", "-alice"},
		{"no domain and no default", admin, "/mailbox", "add alice", "MAILBOT_DEFAULT_DOMAIN"},
		{"not in the allow-list", admin, "/maildomain", "register example.net", "not in the list of allowed domains"},
		{"apex of a wildcard", admin, "/mailbox", "add bob@example.org", "not in the list of allowed domains"},
		{"unknown sub-command", admin, "/maildomain", "delete example.com", "/maildomain register"},
		{"unknown sub-command of mailbox", stranger, "/mailbox", "remove bob@example.com", "/mailbox add"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ack := h.command(tc.user, tc.cmd, tc.text)
			got := ackMessage(t, ack)
			if got.ResponseType != "ephemeral" {
				t.Errorf("response_type = %q, want ephemeral", got.ResponseType)
			}
			wantContains(t, "reply to "+tc.cmd+" "+tc.text, got.shown(), tc.want)
		})
	}
	if err := h.r.stop(); err != nil { // whatever it queued is done
		t.Fatal(err)
	}
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("the PDD API saw %d requests, want 0", n)
	}
	if n := len(h.slack.Calls("chat.postMessage")); n != 0 {
		t.Errorf("%d ops notices for operations that never ran, want 0", n)
	}
}

func TestAPIErrorsInWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		setup      func(h *harness)
		cmd, text  string
		want       []string
		wantCalls  int
		wantNotice string
		wantReads  int // status reads, where a register's first one meets the failure and the register is not sent
	}{
		{"occupied", func(h *harness) {
			other, err := pdd.NewAdapter(h.simURL, h.sim.NewAccount())
			if err != nil {
				h.t.Fatal(err)
			}
			if _, err := other.RegisterDomain(context.Background(), "taken.com"); err != nil {
				h.t.Fatal(err)
			}
		}, "/maildomain", "register taken.com", []string{"occupied", "in use"}, 1, "occupied", 0},
		{"not allowed", nil, "/mailbox", "add bob@notmine.com", []string{"not_allowed"}, 1, "not_allowed", 0},
		{"mailbox exists", func(h *harness) {
			h.ownDomain("mine.com")
			if _, err := h.pdd().AddMailbox(context.Background(), "mine.com", "bob", "Secret-123", false); err != nil {
				h.t.Fatal(err)
			}
		}, "/mailbox", "add bob@mine.com", []string{"occupied", "Choose another user name"}, 1, "occupied", 0},
		{"unknown code shown as received", func(h *harness) { h.sim.FailNextWith(1, "weird_new_code") },
			"/maildomain", "register fresh.com", []string{"weird_new_code"}, 0, "weird_new_code", 1},
		{"temporary failure after retries", func(h *harness) { h.sim.FailNext(3) },
			"/maildomain", "register fresh.com", []string{"unknown", "tried 3 times"}, 0, "unknown", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if tc.setup != nil {
				tc.setup(h)
			}
			before, reads := h.sim.Requests("")-h.sim.Requests(pddsim.OpRegistrationStatus), h.sim.Requests(pddsim.OpRegistrationStatus)
			id, _ := h.command(admin, tc.cmd, tc.text)
			got := h.result(id).shown()
			wantContains(t, "reply", got, tc.want...)
			if strings.Contains(got, "goroutine") || strings.Contains(got, ".go:") {
				t.Errorf("reply shows internals:\n%s", got)
			}
			calls, err := h.slack.WaitCalls("chat.postMessage", 1, wait)
			if err != nil {
				t.Fatal(err)
			}
			wantContains(t, "ops notice", calls[0].Form.Get("text"), tc.wantNotice)
			// A register refused as existing is followed by one read of the
			// domain's status (does the account have it?): not an attempt.
			if n := h.sim.Requests("") - h.sim.Requests(pddsim.OpRegistrationStatus) - before; n != tc.wantCalls {
				t.Errorf("the API saw %d attempts, want %d", n, tc.wantCalls)
			}
			if n := h.sim.Requests(pddsim.OpRegistrationStatus) - reads; tc.wantReads > 0 && n != tc.wantReads {
				t.Errorf("the API saw %d status reads, want %d", n, tc.wantReads)
			}
		})
	}
}

// TestAckComesBeforeTheAPI holds the PDD request until the command's ack
// has arrived: the ack never waits on the API.
func TestAckComesBeforeTheAPI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	g := h.holdRequests()
	id, err := h.slack.SlashCommand(admin, general, "/maildomain", "register slow.com")
	if err != nil {
		t.Fatal(err)
	}
	ack, err := h.slack.Socket.WaitAck(id, wait)
	if err != nil {
		t.Fatal(err) // the request is held: an ack that waited on it never comes
	}
	wantContains(t, "ack", ackMessage(t, ack).shown(), "Working on it")
	g.next(t)
	g.release()
	wantContains(t, "result", h.result(id).shown(), "slow.com", "registered")
}

func TestKeepsServingAcrossReconnects(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	check := func(domain string) {
		t.Helper()
		id, _ := h.command(admin, "/maildomain", "register "+domain)
		wantContains(t, "reply after a reconnect", h.result(id).shown(), domain)
	}
	if err := h.slack.Socket.Disconnect(); err != nil {
		t.Fatal(err)
	}
	if err := h.slack.Socket.WaitConnected(2, wait); err != nil {
		t.Fatal(err)
	}
	check("one.com")
	h.slack.Socket.Drop()
	if err := h.slack.Socket.WaitConnected(3, wait); err != nil {
		t.Fatal(err)
	}
	if err := h.slack.Wait(wait, "ready", h.r.bot.Ready); err != nil {
		t.Fatal(err)
	}
	check("two.com")
}

func TestNotificationRetriedAfterRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.Faults.RateLimitNext("chat.postMessage", 1)
	id, _ := h.command(admin, "/maildomain", "register limited.com")
	res := h.result(id)
	calls, err := h.slack.WaitCalls("chat.postMessage", 2, wait)
	if err != nil {
		t.Fatal(err)
	}
	if gap := calls[1].At.Sub(calls[0].At); gap < 900*time.Millisecond {
		t.Errorf("retried after %s, want after Retry-After (1s)", gap)
	}
	if post := h.slack.Posts(id)[0]; post.At.After(calls[0].At) {
		t.Errorf("the user's reply waited for the ops notice")
	}
	wantContains(t, "reply", res.shown(), "limited.com")
}

func TestResponseURLFailureFallsBackToEphemeral(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ownDomain("fallback.com")
	h.slack.ExpireResponseURLs(true)
	h.command(admin, "/mailbox", "add carol@fallback.com")
	_, spans := credential(t, h.waitEphemeral(admin, 1), general, admin)
	if stored, _ := h.sim.Mailbox("carol@fallback.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("the fallback shows %q, the sandbox stored %q", spans, stored)
	}
	if n := len(h.slack.Posts("")); n != 0 {
		t.Errorf("the fake took %d response_url posts while they were expired", n)
	}
}

// TestBusyQueue fills the one worker and the queue of one: the next
// command is told that mailbot is busy, and nothing of it runs.
func TestBusyQueue(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withBotConfig(func(c *bot.Config) { c.Concurrency, c.MaxQueue = 1, 1 }))
	g, first, second := fillQueue(t, h)
	_, ack := h.command(admin, "/maildomain", "register three.com")
	wantContains(t, "third ack", ackMessage(t, ack).shown(), "mailbot is busy", "Nothing was done")
	g.release()
	wantContains(t, "first result", h.result(first).shown(), "one.com")
	wantContains(t, "second result", h.result(second).shown(), "two.com")
	if n := h.sim.Requests(pddsim.OpRegisterDomain); n != 2 {
		t.Errorf("the API saw %d registers, want 2", n)
	}
}

func TestShutdownFinishesWorkInFlight(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	g := h.holdRequests()
	id, _ := h.command(admin, "/maildomain", "register inflight.com")
	g.next(t)
	stopped := make(chan error, 1)
	go func() { stopped <- h.r.stop() }()
	if err := h.slack.Wait(wait, "draining", func() bool { return !h.r.bot.Ready() }); err != nil {
		t.Fatal(err)
	}
	_, ack := h.command(admin, "/maildomain", "register late.com")
	wantContains(t, "a command during the stop", ackMessage(t, ack).shown(), "restarting", "Nothing was done")
	g.release()
	if err := <-stopped; err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
	wantContains(t, "the work in flight", h.result(id).shown(), "inflight.com", "registered")
	if n := h.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Errorf("the API saw %d registers, want 1 (none for the command during the stop)", n)
	}
}

// TestSweepExpiresWithoutAClick lets the sweep expire a request: its
// message loses the buttons and the requester is told, once.
func TestSweepExpiresWithoutAClick(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	spy := &spyStore{Store: memstore.New(memstore.Options{})}
	h := newHarness(t, withStore(spy), withApprovals(commands.ApprovalsRequests), withClock(clk.Now), withTTL(time.Hour), withSweep(20*time.Millisecond))
	_, req := ask(t, h.env, stranger, "/maildomain", "register example.com")
	clk.Advance(time.Hour)
	told := h.waitEphemeral(stranger, 1)
	wantContains(t, "expiry for the requester", callMessage(t, told).shown(), "Request expired", "register domain example.com")
	updated := h.waitUpdate(req, 1)
	if updated.HasButtons() {
		t.Errorf("the expired request still offers buttons")
	}
	wantContains(t, "expired request", updated.shown(), "Expired", "Nothing was done")
	// Later sweeps do nothing more.
	n := len(h.slack.Calls(""))
	clk.Advance(time.Hour)
	swept := spy.claims.Load()
	if err := h.slack.Wait(wait, "two more whole sweeps", func() bool { return spy.claims.Load() >= swept+3 }); err != nil {
		t.Fatal(err)
	}
	if got := len(h.ephemeralsTo(stranger)) + len(h.slack.Calls("chat.update")); got != 2 || len(h.slack.Calls("")) != n {
		t.Errorf("after more sweeps: %d ephemerals and updates (want 2), %d calls (want %d)", got, len(h.slack.Calls("")), n)
	}
	if h.sim.Requests("") != 0 {
		t.Error("an expired request reached the PDD API")
	}
}

// TestNoOpsChannel: without an ops channel, operations run and answer,
// and nothing is posted anywhere else.
func TestNoOpsChannel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withOps(""))
	id, _ := h.command(admin, "/maildomain", "register example.com")
	wantContains(t, "reply", h.result(id).shown(), "registered")
	if err := h.r.stop(); err != nil { // the work is done, notices included
		t.Fatal(err)
	}
	if n := len(h.slack.Calls("chat.postMessage")); n != 0 {
		t.Errorf("%d chat.postMessage without an ops channel, want 0", n)
	}
}
