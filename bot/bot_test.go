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
