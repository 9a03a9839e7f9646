package bot_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// malformed returns a sandbox wrapper that turns the answer of every
// domain/register into an HTTP 200 body that is not a PDD answer but
// holds the verification secrets the sandbox gave, written by mangle.
func malformed(mangle func(name, content string) string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/domain/register") {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var a struct {
				Secrets struct{ Name, Content string }
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &a)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(mangle(a.Secrets.Name, a.Secrets.Content)))
		})
	}
}

// TestNoSecretFromAMalformedAnswer is a delivery guarantee under failure: the PDD API
// answers HTTP 200 with a body that is not a PDD answer but holds the
// verification secrets. The operation's failure is logged and answered;
// no log line and no message shows the secrets.
func TestNoSecretFromAMalformedAnswer(t *testing.T) {
	t.Parallel()
	for name, mangle := range map[string]func(n, c string) string{
		"cut short": func(n, c string) string {
			return fmt.Sprintf(`{"secrets":{"name":%q,"content":%q},"domain":"example.com","status":"domain-act`, n, c)
		},
		"wrong type": func(n, c string) string {
			return fmt.Sprintf(`{"secrets":{"name":%q,"content":%q},"success":42}`, n, c)
		},
		"text before": func(n, c string) string {
			return fmt.Sprintf(`Warning: secrets name=%s content=%s {"success":"ok"}`, n, c)
		},
		"secrets as a string": func(n, c string) string {
			return fmt.Sprintf(`{"success":"ok","domain":"example.com","secrets":"%s:%s"}`, n, c)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, withSimWrap(malformed(mangle)))
			id, _ := h.command(admin, "/maildomain", "register example.com")
			wantContains(t, "reply", h.result(id).shown(), "cannot read")
			h.waitOps(t, "(response)")
			logs := h.logs.String()
			wantContains(t, "logs", logs, `"msg":"operation"`, `"code":"response"`)
			var secrets []string
			for _, s := range h.secrets.all() {
				secrets = append(secrets, s.value)
			}
			if len(secrets) != 2 {
				t.Fatalf("the sandbox gave secrets %q, want a name and a content", secrets)
			}
			all := h.slack.Texts().All()
			for _, s := range secrets {
				if strings.Contains(logs, s) {
					t.Errorf("secret %q in the logs", s)
				}
				if n := countContaining(all, s); n > 0 {
					t.Errorf("secret %q in %d messages: an error message must not carry it", s, n)
				}
			}
		})
	}
}

// hostileReason has what a reason must never do in the ops channel:
// mentions, a link whose label is another domain, a right-to-left
// override and zero-width characters.
const hostileReason = "please <!channel> <!here|here> <@U123> <!subteam^S99|@admins> see <http://evil.example/x|example.com> \u202etxet.exe\u202c a\u200bb\u200dc\ufeff @everyone"

// TestReasonReachesOpsAsPlainText is a delivery guarantee under failure: a reason full of
// mentions, a disguised link and invisible or direction-changing
// characters reaches the ops channel as plain text: on the request
// message, its update, and the notice of a direct operation.
func TestReasonReachesOpsAsPlainText(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	_, req := ask(t, h.env, stranger, "/maildomain", "register example.com "+hostileReason)
	decide(t, h.env, admin, req, deny)
	h.command(admin, "/maildomain", "register example.org "+hostileReason)
	h.waitOps(t, "example.org")

	calls := h.slack.Calls("chat.postMessage")
	calls = append(calls, h.slack.Calls("chat.update")...)
	if len(calls) != 3 {
		t.Fatalf("%d messages to the ops channel, want 3 (the request, its update, the notice)", len(calls))
	}
	for _, c := range calls {
		checkPlainReason(t, c)
	}
	wantContains(t, "request message", req.msg.shown(), "see example.com txet.exe")
	if strings.Contains(req.msg.shown(), "evil.example") {
		t.Error("the request message shows a link's hidden target")
	}
}

// checkPlainReason checks one message to the ops channel: as sent and as
// Slack shows it, no mention but the requester's and the decider's, no
// link, no invisible character; and every text object of its blocks is
// plain_text or verbatim mrkdwn, so that Slack parses nothing in it.
func checkPlainReason(t *testing.T, c slackfake.Call) {
	t.Helper()
	for _, field := range []string{"text", "blocks"} {
		raw := c.Form.Get(field)
		for _, text := range append([]string{raw}, slackfake.Flatten(raw)...) {
			checkPlainText(t, c.Method+" "+field, text)
		}
	}
	var blocks []any
	if err := json.Unmarshal([]byte(c.Form.Get("blocks")), &blocks); err != nil {
		t.Fatalf("%s blocks: %v", c.Method, err)
	}
	objs := map[string]map[string]any{}
	textObjects(blocks, "", objs)
	for path, o := range objs {
		if o["type"] == "mrkdwn" && o["verbatim"] != true {
			t.Errorf("%s %s: mrkdwn without verbatim: %v", c.Method, path, o["text"])
		}
	}
}

// checkPlainText checks one text for what a reason must not bring.
func checkPlainText(t *testing.T, what, text string) {
	t.Helper()
	for _, bad := range []string{"<!", "<@U123", "<http", "&lt;!", "&lt;@U123", "&lt;http", "@channel", "@here", "@everyone", "@admins",
		"\u202e", "\u202c", "\u200b", "\u200d", "\ufeff"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s carries %q: %q", what, bad, text)
		}
	}
	rest := text
	for {
		i := strings.Index(rest, "<@")
		if i < 0 {
			break
		}
		if id, _, _ := strings.Cut(rest[i+2:], ">"); id != stranger && id != admin {
			t.Errorf("%s mentions %q", what, id)
		}
		rest = rest[i+2:]
	}
}
