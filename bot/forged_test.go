package bot_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/metrics"
)

// TestApprovalForgedValueRefused clicks Approve with values this mailbot
// did not sign: nothing runs, the clicker is told, and the genuine
// request is untouched.
func TestApprovalForgedValueRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsAll))
	_, req := ask(t, h.env, admin, "/maildomain", "register example.com")

	parts := strings.Split(req.value, ".")
	if len(parts) != 3 {
		t.Fatalf("button value %q, want version.payload.signature", req.value)
	}
	// The same signature on a payload that names another domain and
	// another requester (so that the admin could approve it himself).
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	payload["d"], payload["u"] = "evil.example", stranger
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(mustJSON(payload))) + "." + parts[2]
	otherKey := otherMailbot(t, h.env).EncodePending(commands.Pending{ID: "forged0001", Requester: stranger, Channel: general,
		Op: commands.Operation{Action: commands.ActionRegisterDomain, Domain: "evil.example"}, Created: epoch, Expires: epoch.Add(24 * time.Hour)})

	for _, tc := range []struct{ name, value string }{
		{"garbage", "approve everything"},
		{"empty", ""},
		{"tampered payload", tampered},
		{"signed with another key", otherKey},
		{"cut signature", req.value[:len(req.value)-4]},
		{"signature of another request", parts[0] + "." + parts[1] + "." + strings.Split(otherKey, ".")[2]},
	} {
		forged := req
		forged.value = tc.value
		wantContains(t, tc.name+": answer", decide(t, h.env, admin2, forged, approve).shown(), "not valid", "Nothing was done")
	}
	if n := h.sim.Requests("") + len(h.slack.Calls("chat.update")) + len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d PDD requests, chat.update and chat.postEphemeral calls after forged clicks, want 0", n)
	}
	// The genuine request is untouched.
	wantContains(t, "genuine approval", decide(t, h.env, admin2, req, approve).shown(), "Request approved", "example.com")
	if n, evil := h.sim.Requests(pddsim.OpRegisterDomain), strings.Contains(h.logs.String(), "evil.example"); n != 1 || evil {
		t.Errorf("sandbox saw %d register requests (want 1); evil.example in the logs: %v", n, evil)
	}
}

// otherMailbot is a core with another signing key.
func otherMailbot(t testing.TB, e *env) *commands.Core {
	t.Helper()
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(e.slack.URL))
	msgr := bot.NewMessenger(api, bot.MessengerConfig{APIURL: e.slack.URL, BotToken: slackfake.BotToken}, zap.NewNop(), bot.NewMetrics(metrics.NewRegistry()))
	c, err := commands.New(e.pdd(), memstore.New(memstore.Options{}), msgr, commands.Config{Admins: []string{admin}, SigningKey: []byte("another key")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
