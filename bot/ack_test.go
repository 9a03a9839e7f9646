package bot

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/metrics"
)

// withCounter is a logger core that counts the loggers derived from it
// with fields (zap.Logger.With), which encode their fields at once.
type withCounter struct {
	zapcore.Core
	with *atomic.Int32
}

func (c withCounter) With(fields []zapcore.Field) zapcore.Core {
	c.with.Add(1)
	return withCounter{c.Core.With(fields), c.with}
}

// ackBot is a bot whose socket is never connected (its acks wait in the
// socketmode client's buffer of 20) over a real core, logging into logs.
func ackBot(t *testing.T) (*Bot, *observer.ObservedLogs, *atomic.Int32) {
	t.Helper()
	obs, logs := observer.New(zap.DebugLevel)
	with := &atomic.Int32{}
	logger := zap.New(withCounter{obs, with})
	provider, err := pdd.NewAdapter("http://127.0.0.1:1/", "token")
	if err != nil {
		t.Fatal(err)
	}
	api := slack.New("xoxb-test", slack.OptionAPIURL("http://127.0.0.1:1/"))
	m := NewMetrics(metrics.NewRegistry())
	msgr := NewMessenger(api, MessengerConfig{}, logger, m)
	core, err := commands.New(provider, memstore.New(memstore.Options{}), msgr,
		commands.Config{Admins: []string{"UADMIN1"}, SigningKey: []byte("key"), Mention: Mention, MentionGroup: MentionGroup}, logger)
	if err != nil {
		t.Fatal(err)
	}
	return New(api, socketmode.New(api), core, msgr, nil, Config{}, logger, m), logs, with
}

// TestAckBuildsNoLogger: a slash command acknowledged without a warning
// derives no logger (one encoded the envelope, the user and the command
// for every command); a refused one still logs them.
func TestAckBuildsNoLogger(t *testing.T) {
	t.Parallel()
	b, logs, with := ackBot(t)
	ctx := context.Background()
	for i, text := range []string{"help", "register b1.example.com", "nonsense words"} {
		req := &socketmode.Request{EnvelopeID: "E" + string(rune('A'+i))}
		b.slashCommand(ctx, req, slack.SlashCommand{UserID: "UADMIN1", ChannelID: "C1", Command: "/maildomain", Text: text, ResponseURL: "https://hooks.slack.test/r"}, time.Now())
	}
	if n := with.Load(); n != 0 {
		t.Errorf("%d loggers derived for three commands acknowledged without a warning, want none", n)
	}
	if logs.Len() != 0 {
		t.Errorf("logged %v", logs.All())
	}
	b.setDraining()
	b.slashCommand(ctx, &socketmode.Request{EnvelopeID: "EZ"}, slack.SlashCommand{UserID: "UADMIN1", Command: "/mailbox", Text: "help"}, time.Now())
	refused := logs.FilterMessage("command refused").AllUntimed()
	if len(refused) != 1 {
		t.Fatalf("refusal logged %d times, want once: %v", len(refused), logs.All())
	}
	want := map[string]any{"envelope_id": "EZ", "user_id": "UADMIN1", "command": "/mailbox", "why": commands.LabelRestarting}
	got := refused[0].ContextMap()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("refusal's %s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}

// TestInterimAckEncodedOnce: a command taken for the workers is
// acknowledged with its step's interim reply, the same bytes as that
// reply encoded afresh; each step's is encoded once and kept, for Slack's
// re-sent envelopes too.
func TestInterimAckEncodedOnce(t *testing.T) {
	t.Parallel()
	b, _, _ := ackBot(t)
	ctx := context.Background()
	cmds := []struct{ envelope, text string }{
		{"ER1", "register b1.example.com"}, {"EC1", "check b1.example.com"}, {"ER2", "register b2.example.com"},
	}
	for _, c := range cmds {
		b.seen.first(c.envelope) // as handle does before
		b.slashCommand(ctx, &socketmode.Request{EnvelopeID: c.envelope}, slack.SlashCommand{UserID: "UADMIN1", ChannelID: "C1", Command: "/maildomain", Text: c.text, ResponseURL: "https://hooks.slack.test/r"}, time.Now())
	}
	acked := map[string][]byte{}
	for _, c := range cmds {
		raw, first := b.seen.first(c.envelope)
		if first {
			t.Fatalf("envelope %s: no acknowledgement kept", c.envelope)
		}
		acked[c.envelope] = raw
	}
	for envelope, step := range map[string]commands.Step{"ER1": commands.StepRun, "EC1": commands.StepCheck, "ER2": commands.StepRun} {
		want, err := json.Marshal(ephemeralPayload(commands.Decision{Step: step}.Interim()))
		if err != nil {
			t.Fatal(err)
		}
		if string(acked[envelope]) != string(want) {
			t.Errorf("envelope %s acknowledged with\n%s\nwant\n%s", envelope, acked[envelope], want)
		}
	}
	if string(acked["ER1"]) == string(acked["EC1"]) {
		t.Errorf("a register and a check acknowledged alike: %s", acked["ER1"])
	}
	if &acked["ER1"][0] != &acked["ER2"][0] {
		t.Error("the second register's acknowledgement was encoded again")
	}
}
