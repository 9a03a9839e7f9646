package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pddsim"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// Users and channels of the tests.
const (
	admin    = "UADMIN1"
	admin2   = "UADMIN2"
	stranger = "USTRANGER"
	general  = "CGENERAL"
	ops      = "COPS"
)

const wait = 10 * time.Second

// syncBuffer is a log sink the bot and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Sync() error { return nil }

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness is a bot under test: the real socketmode client against the fake
// Slack, and the real PDD client against the sandbox over HTTP.
type harness struct {
	t       testing.TB
	slack   *slackfake.Server
	sim     *pddsim.Server
	simURL  string
	token   string
	logs    *syncBuffer
	reg     *prometheus.Registry
	bot     *bot.Bot
	cancel  context.CancelFunc
	done    chan error
	coreCfg commands.Config
	botCfg  bot.Config
}

type option func(*harness)

func withApprovals(mode commands.ApprovalMode) option {
	return func(h *harness) { h.coreCfg.Approvals = mode }
}

func withClock(now func() time.Time) option {
	return func(h *harness) { h.coreCfg.Now = now }
}

func withBotConfig(f func(*bot.Config)) option {
	return func(h *harness) { f(&h.botCfg) }
}

// newHarness starts a fake Slack, a sandbox and a bot, and waits for the
// socket to connect.
func newHarness(t testing.TB, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, slack: slackfake.New(), sim: pddsim.New(), logs: &syncBuffer{}}
	t.Cleanup(h.slack.Close)
	simSrv := httptest.NewServer(h.sim)
	t.Cleanup(simSrv.Close)
	h.simURL = simSrv.URL
	h.token = h.sim.NewAccount()
	h.coreCfg = commands.Config{Admins: []string{admin, admin2}, SigningKey: []byte("test signing key"), Mention: bot.Mention}
	h.botCfg = bot.Config{OpsChannel: ops, ShutdownTimeout: 5 * time.Second, WorkTimeout: 20 * time.Second}
	for _, o := range opts {
		o(h)
	}
	h.start()
	return h
}

// start runs a (new) bot on the same fake Slack and sandbox.
func (h *harness) start() {
	t := h.t
	t.Helper()
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), h.logs, zapcore.DebugLevel))
	pdd, err := apiclient.New(h.simURL, h.token, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	core, err := commands.New(pdd, h.coreCfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	api := slack.New(slackfake.BotToken, slack.OptionAppLevelToken(slackfake.AppToken), slack.OptionAPIURL(h.slack.URL))
	sm := socketmode.New(api)
	h.reg = prometheus.NewRegistry()
	h.bot = bot.New(api, sm, core, h.botCfg, logger, bot.NewMetrics(h.reg))
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	before := h.slack.Connects()
	go func() { h.done <- h.bot.Run(ctx) }()
	t.Cleanup(func() { h.stop() })
	if err := h.slack.WaitConnected(before+1, wait); err != nil {
		t.Fatal(err)
	}
	if err := h.slack.Wait(wait, "ready", h.bot.Ready); err != nil {
		t.Fatal(err)
	}
}

// stop cancels the bot and returns what Run returned.
func (h *harness) stop() error {
	h.cancel()
	select {
	case err, ok := <-h.done:
		if ok {
			close(h.done)
		}
		return err
	case <-time.After(30 * time.Second):
		h.t.Error("bot did not stop within 30s")
		return nil
	}
}

// command sends a slash command and waits for its ack.
func (h *harness) command(user, cmd, text string) (string, slackfake.Ack) {
	h.t.Helper()
	id, err := h.slack.SlashCommand(user, general, cmd, text)
	if err != nil {
		h.t.Fatal(err)
	}
	ack, err := h.slack.WaitAck(id, wait)
	if err != nil {
		h.t.Fatal(err)
	}
	return id, ack
}

// result waits for the first response_url post of an envelope.
func (h *harness) result(id string) message {
	h.t.Helper()
	posts, err := h.slack.WaitPosts(id, 1, wait)
	if err != nil {
		h.t.Fatal(err)
	}
	return decodeMessage(h.t, posts[0].Raw)
}

// message is a Slack message as the bot sent it.
type message struct {
	ResponseType    string `json:"response_type"`
	ReplaceOriginal bool   `json:"replace_original"`
	Text            string `json:"text"`
	Blocks          []struct {
		Type     string                 `json:"type"`
		BlockID  string                 `json:"block_id"`
		Text     *struct{ Text string } `json:"text"`
		Elements []struct {
			Type     string          `json:"type"`
			ActionID string          `json:"action_id"`
			Value    string          `json:"value"`
			Text     json.RawMessage `json:"text"`
			Style    string          `json:"style"`
			Confirm  json.RawMessage `json:"confirm"`
		} `json:"elements"`
	} `json:"blocks"`
}

func decodeMessage(t testing.TB, raw string) message {
	t.Helper()
	var m message
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("message %q: %v", raw, err)
	}
	return m
}

// unescape undoes Slack's escaping, as a Slack client shows the text.
var unescape = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace

// shown is all the text of a message as a person sees it.
func (m message) shown() string {
	var parts []string
	parts = append(parts, m.Text)
	for _, b := range m.Blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
		for _, e := range b.Elements {
			var txt struct{ Text string }
			if json.Unmarshal(e.Text, &txt) == nil {
				parts = append(parts, txt.Text)
			}
		}
	}
	return unescape(strings.Join(parts, "\n"))
}

// blocksText is the text of the blocks alone.
func (m message) blocksText() string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// formMessage decodes the blocks of a chat.* call.
func formMessage(t *testing.T, c slackfake.Call) message {
	t.Helper()
	raw := `{"text":` + mustJSON(c.Form.Get("text")) + `,"blocks":` + orEmpty(c.Form.Get("blocks")) + `}`
	return decodeMessage(t, raw)
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func orEmpty(s string) string {
	if s == "" {
		return "[]"
	}
	return s
}

// codeSpans returns the contents of the `code spans` in mrkdwn text,
// unescaped.
func codeSpans(text string) []string {
	var out []string
	for {
		i := strings.IndexByte(text, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(text[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, unescape(text[i+1:i+1+j]))
		text = text[i+1+j+1:]
	}
}

// assertNoSecret fails when any secret appears in the logs or in anything
// anyone but the requester can see.
func (h *harness) assertNoSecret(secrets ...string) {
	h.t.Helper()
	logs := h.logs.String()
	public := strings.Join(h.slack.Texts().Public, "\n")
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if strings.Contains(logs, s) {
			h.t.Errorf("secret %q in the logs", s)
		}
		if strings.Contains(public, s) {
			h.t.Errorf("secret %q in a public message", s)
		}
	}
}
