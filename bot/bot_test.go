package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

func TestRegisterAndAddAsAdmin(t *testing.T) {
	h := newHarness(t)

	id, ack := h.command(admin, "/maildomain", "register Example.COM. first try")
	if d := ack.At.Sub(ack.Sent); d > time.Second {
		t.Errorf("register ack took %s, want well under 3s", d)
	}
	if got := decodeMessage(t, string(ack.Payload)); got.ResponseType != "ephemeral" {
		t.Errorf("ack response_type = %q, want ephemeral", got.ResponseType)
	}
	reg := h.result(id)
	if reg.ResponseType != "ephemeral" || !reg.ReplaceOriginal {
		t.Errorf("register result: response_type %q replace_original %v, want ephemeral, true", reg.ResponseType, reg.ReplaceOriginal)
	}
	// The secrets the sandbox holds: the owner registering again sees them.
	pdd, err := apiclient.New(h.simURL, h.token)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := pdd.RegisterDomain(context.Background(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	shown := reg.shown()
	for _, want := range []string{"example.com", "domain-activate", dom.Secrets.Name, dom.Secrets.Content, "mx.yandex.net"} {
		if !strings.Contains(shown, want) {
			t.Errorf("register reply lacks %q:\n%s", want, shown)
		}
	}

	id, _ = h.command(admin, "/mailbox", "add alice@example.com")
	add := h.result(id)
	spans := codeSpans(add.blocksText())
	if len(spans) != 1 {
		t.Fatalf("add reply has code spans %q, want exactly the password:\n%s", spans, add.blocksText())
	}
	password := spans[0]
	stored, ok := h.sim.Mailbox("alice@example.com")
	if !ok || stored != password {
		t.Errorf("sandbox has mailbox %v with password %q; the reply shows %q", ok, stored, password)
	}
	if !strings.Contains(add.shown(), "alice@example.com") || !strings.Contains(add.shown(), "UID") && !strings.Contains(add.shown(), "uid") {
		t.Errorf("add reply lacks the address or uid:\n%s", add.shown())
	}

	// One ops notification per operation, with no secret.
	calls, err := h.slack.WaitCalls("chat.postMessage", 2, wait)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c.Form.Get("channel") != ops {
			t.Errorf("notification in %q, want %q", c.Form.Get("channel"), ops)
		}
	}
	if !strings.Contains(calls[0].Form.Get("text"), "<@"+admin+">") || !strings.Contains(calls[0].Form.Get("text"), "example.com") {
		t.Errorf("register notification %q lacks who or what", calls[0].Form.Get("text"))
	}
	h.assertNoSecret(password, dom.Secrets.Name, dom.Secrets.Content)
	if n := h.sim.Requests(""); n != 3 {
		t.Errorf("sandbox saw %d requests, want 3 (2 by the bot, 1 by the test)", n)
	}
}

func TestRefusalsAndInvalidInputCallNoAPI(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name, user, cmd, text, want string
	}{
		{"non-admin", stranger, "/maildomain", "register example.com", "admin"},
		{"bad domain", admin, "/maildomain", "register exa_mple.com", "exa_mple.com"},
		{"mention instead of domain", admin, "/maildomain", "register <@U123|bob>", "mention"},
		{"bad login", admin, "/mailbox", "add -alice@example.com", "-alice"},
		{"empty", admin, "/mailbox", "", "/mailbox add"},
		{"unknown sub-command", admin, "/maildomain", "delete example.com", "/maildomain register"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ack := h.command(tc.user, tc.cmd, tc.text)
			got := decodeMessage(t, string(ack.Payload))
			if got.ResponseType != "ephemeral" {
				t.Errorf("response_type = %q, want ephemeral", got.ResponseType)
			}
			if !strings.Contains(strings.ToLower(got.shown()), strings.ToLower(tc.want)) {
				t.Errorf("reply to %q %q lacks %q:\n%s", tc.cmd, tc.text, tc.want, got.shown())
			}
		})
	}
	if n := h.sim.Requests(""); n != 0 {
		t.Errorf("the PDD API saw %d requests, want 0", n)
	}
	if n := len(h.slack.Calls("chat.postMessage")); n != 0 {
		t.Errorf("%d ops notifications for operations that never ran, want 0", n)
	}
}

func TestAPIErrorsInWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(h *harness)
		cmd   string
		text  string
		want  []string
	}{
		{"occupied", func(h *harness) {
			other, _ := apiclient.New(h.simURL, h.sim.NewAccount())
			if _, err := other.RegisterDomain(context.Background(), "taken.com"); err != nil {
				h.t.Fatal(err)
			}
		}, "/maildomain", "register taken.com", []string{"occupied", "in use"}},
		{"not allowed", nil, "/mailbox", "add bob@notmine.com", []string{"not_allowed"}},
		{"mailbox exists", func(h *harness) {
			pdd, _ := apiclient.New(h.simURL, h.token)
			if _, err := pdd.RegisterDomain(context.Background(), "mine.com"); err != nil {
				h.t.Fatal(err)
			}
			if _, err := pdd.AddMailbox(context.Background(), "mine.com", "bob", "Secret-123"); err != nil {
				h.t.Fatal(err)
			}
		}, "/mailbox", "add bob@mine.com", []string{"occupied", "already exists"}},
		{"unknown code shown as received", func(h *harness) { h.sim.FailNextWith(1, "weird_new_code") },
			"/maildomain", "register fresh.com", []string{"weird_new_code"}},
		{"temporary failure after retries", func(h *harness) { h.sim.FailNext(3) },
			"/maildomain", "register fresh.com", []string{"unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if tc.setup != nil {
				tc.setup(h)
			}
			before := h.sim.Requests("")
			id, _ := h.command(admin, tc.cmd, tc.text)
			got := h.result(id).shown()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("reply lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "goroutine") || strings.Contains(got, ".go:") {
				t.Errorf("reply shows internals:\n%s", got)
			}
			calls, err := h.slack.WaitCalls("chat.postMessage", 1, wait)
			if err != nil {
				t.Fatal(err)
			}
			if note := calls[0].Form.Get("text"); !strings.Contains(note, tc.want[0]) {
				t.Errorf("ops notification %q lacks the error code %q", note, tc.want[0])
			}
			if tc.name == "temporary failure after retries" {
				if n := h.sim.Requests("") - before; n != 3 {
					t.Errorf("the API saw %d attempts, want 3", n)
				}
			}
		})
	}
}

func TestSlowAPIAckComesFirst(t *testing.T) {
	h := newHarness(t)
	h.sim.SetLatency(1500 * time.Millisecond)
	id, ack := h.command(admin, "/maildomain", "register slow.com")
	if d := ack.At.Sub(ack.Sent); d > 500*time.Millisecond {
		t.Errorf("ack took %s with a slow API; it must come before the API call", d)
	}
	if !strings.Contains(decodeMessage(t, string(ack.Payload)).shown(), "Working") {
		t.Errorf("ack payload %s, want the interim reply", ack.Payload)
	}
	res := h.result(id)
	if !strings.Contains(res.shown(), "slow.com") {
		t.Errorf("result %q lacks the domain", res.shown())
	}
	if post := h.slack.Posts(id)[0]; post.At.Sub(ack.At) < time.Second {
		t.Errorf("result came %s after the ack, want after the API's latency", post.At.Sub(ack.At))
	}
}

func TestKeepsServingAcrossReconnects(t *testing.T) {
	h := newHarness(t)
	check := func(domain string) {
		t.Helper()
		id, _ := h.command(admin, "/maildomain", "register "+domain)
		if got := h.result(id).shown(); !strings.Contains(got, domain) {
			t.Errorf("after reconnect: reply %q lacks %q", got, domain)
		}
	}
	if err := h.slack.Disconnect(); err != nil {
		t.Fatal(err)
	}
	if err := h.slack.WaitConnected(2, wait); err != nil {
		t.Fatal(err)
	}
	check("one.com")
	h.slack.Drop()
	if err := h.slack.WaitConnected(3, wait); err != nil {
		t.Fatal(err)
	}
	if err := h.slack.Wait(wait, "ready", h.bot.Ready); err != nil {
		t.Fatal(err)
	}
	check("two.com")
}

func TestNotificationRetriedAfterRateLimit(t *testing.T) {
	h := newHarness(t)
	h.slack.RateLimitNext("chat.postMessage", 1)
	id, _ := h.command(admin, "/maildomain", "register limited.com")
	res := h.result(id)
	calls, err := h.slack.WaitCalls("chat.postMessage", 2, wait)
	if err != nil {
		t.Fatal(err)
	}
	if calls[1].At.Sub(calls[0].At) < 900*time.Millisecond {
		t.Errorf("retried after %s, want Retry-After (1s)", calls[1].At.Sub(calls[0].At))
	}
	if post := h.slack.Posts(id)[0]; post.At.After(calls[1].At) {
		t.Errorf("the user's reply waited for the rate-limited notification")
	}
	if !strings.Contains(res.shown(), "limited.com") {
		t.Errorf("reply %q lacks the domain", res.shown())
	}
}

func TestResponseURLFailureFallsBackToEphemeral(t *testing.T) {
	h := newHarness(t)
	h.slack.ExpireResponseURLs(true)
	h.command(admin, "/mailbox", "add carol@fallback.com")
	calls, err := h.slack.WaitCalls("chat.postEphemeral", 1, wait)
	if err != nil {
		t.Fatal(err)
	}
	c := calls[0]
	if c.Form.Get("user") != admin || c.Form.Get("channel") != general {
		t.Errorf("ephemeral to user %q in %q, want %q in %q", c.Form.Get("user"), c.Form.Get("channel"), admin, general)
	}
	if got := formMessage(t, c).shown(); !strings.Contains(got, "fallback.com") {
		t.Errorf("fallback reply %q lacks the result", got)
	}
	if len(h.slack.Posts("")) != 0 {
		t.Errorf("the fake recorded response_url posts while expired")
	}
}

func TestShutdownFinishesWorkInFlight(t *testing.T) {
	h := newHarness(t)
	h.sim.SetLatency(time.Second)
	id, _ := h.command(admin, "/maildomain", "register inflight.com")
	stopped := make(chan error, 1)
	go func() { stopped <- h.stop() }()
	if err := h.slack.Wait(wait, "draining", func() bool { return !h.bot.Ready() }); err != nil {
		t.Fatal(err)
	}
	_, ack := h.command(admin, "/maildomain", "register late.com")
	if got := decodeMessage(t, string(ack.Payload)).shown(); !strings.Contains(got, "restarting") {
		t.Errorf("a command during shutdown got %q, want the restarting reply", got)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
	case <-time.After(wait):
		t.Fatal("the bot did not stop")
	}
	if posts := h.slack.Posts(id); len(posts) == 0 || !strings.Contains(decodeMessage(t, posts[0].Raw).shown(), "inflight.com") {
		t.Errorf("the work in flight was not finished before the stop: posts %v", posts)
	}
	if n := h.sim.Requests(apiclient.OpRegisterDomain); n != 1 {
		t.Errorf("the API saw %d registers, want 1 (none for the command during shutdown)", n)
	}
}
