package bot_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/internal/metrics"
)

// TestNoticeReadsSlacksAnswer: an ops notice, posted by the messenger
// itself rather than slack-go, says where Slack put it (the channel and
// the ts of the message the fake recorded), is sent again after a 429,
// and fails with Slack's error code, in slack-go's error type, when Slack
// answers ok false.
func TestNoticeReadsSlacksAnswer(t *testing.T) {
	t.Parallel()
	fake := slackfake.New()
	defer fake.Close()
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(fake.URL))
	m := bot.NewMessenger(api, bot.MessengerConfig{OpsChannel: "COPS", APIURL: fake.URL, BotToken: slackfake.BotToken},
		zap.NewNop(), bot.NewMetrics(metrics.NewRegistry()))

	fake.Faults.RateLimitNext("chat.postMessage", 1)
	ref, err := m.PostNotice(t.Context(), "<@UADMIN1> registered a.example & b.example")
	if err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls("chat.postMessage")
	if len(calls) != 2 {
		t.Fatalf("%d chat.postMessage calls, want 2 (a 429, then the notice)", len(calls))
	}
	if last := calls[1]; ref.Channel != "COPS" || ref.TS == "" || ref.TS != last.TS {
		t.Errorf("notice at %+v, want COPS at the ts %q the fake recorded", ref, last.TS)
	}
	if text := calls[1].Form.Get("text"); !strings.Contains(text, "a.example &amp; b.example") {
		t.Errorf("text %q, want the notice escaped", text)
	}
	if !strings.Contains(calls[1].Form.Get("blocks"), `"type":"section"`) {
		t.Errorf("blocks %q, want a section", calls[1].Form.Get("blocks"))
	}

	fake.Faults.FailNext("chat.postMessage", "not_in_channel")
	_, err = m.PostNotice(t.Context(), "second")
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) || se.Err != "not_in_channel" || !strings.Contains(err.Error(), "ops notice") {
		t.Errorf("error %v, want the ops notice's slack.SlackErrorResponse not_in_channel", err)
	}
}
