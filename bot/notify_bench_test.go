package bot_test

import (
	"context"
	"testing"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/internal/metrics"
)

// BenchmarkNotify posts the ops notice of a register to the fake Slack
// over loopback, one chat.postMessage each, and reports its allocations:
// the notice that every command of a burst sends beside its result.
//
//	go test -run '^$' -bench Notify -benchmem ./bot/
func BenchmarkNotify(b *testing.B) {
	fake := slackfake.New()
	defer fake.Close()
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(fake.URL))
	m := bot.NewMessenger(api, bot.MessengerConfig{OpsChannel: "COPS", APIURL: fake.URL, BotToken: slackfake.BotToken}, zap.NewNop(), bot.NewMetrics(metrics.NewRegistry()))
	ctx := context.Background()
	text := "<@UADMIN1> registered b001.example.com at PDD: the domain is added; its owner is not yet verified (domain-activate)."
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Notify(ctx, text); err != nil {
			b.Fatal(err)
		}
	}
}
