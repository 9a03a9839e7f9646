package bot_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/bot/slackfake"
)

// message is a Slack message as the bot sent it.
type message struct{ slackfake.Payload }

func decodeMessage(t testing.TB, raw string) message {
	t.Helper()
	m, err := slackfake.DecodePayload(raw)
	if err != nil {
		t.Fatalf("message %q: %v", raw, err)
	}
	return message{m}
}

// unescape undoes Slack's escaping, as a Slack client shows the text.
var unescape = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace

// shown is the text of a message as a person sees it: the text, the
// blocks' texts, and the texts of their elements (context, buttons).
func (m message) shown() string {
	parts := []string{m.Text}
	for _, b := range m.Blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
		for _, e := range b.Elements {
			var obj struct{ Text string }
			var s string
			switch {
			case json.Unmarshal(e.Text, &obj) == nil && obj.Text != "":
				parts = append(parts, obj.Text)
			case json.Unmarshal(e.Text, &s) == nil:
				parts = append(parts, s)
			}
		}
	}
	return unescape(strings.Join(parts, "\n"))
}

// blocksText is the mrkdwn of the blocks' texts alone, as sent.
func (m message) blocksText() string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// callMessage decodes the text and blocks of a chat.* call.
func callMessage(t testing.TB, c slackfake.Call) message {
	t.Helper()
	raw := `{"text":` + mustJSON(c.Form.Get("text")) + `,"blocks":` + orEmpty(c.Form.Get("blocks")) + `}`
	return decodeMessage(t, raw)
}

// ackMessage decodes the payload of an ack.
func ackMessage(t testing.TB, a slackfake.Ack) message {
	t.Helper()
	if len(a.Payload) == 0 || string(a.Payload) == "null" {
		return message{}
	}
	return decodeMessage(t, string(a.Payload))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func orEmpty(s string) string {
	if s == "" {
		return "[]"
	}
	return s
}

// codeSpans returns the contents of the `code spans` in mrkdwn text,
// unescaped: where replies show secrets.
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

// wantContains reports each of wants missing from text.
func wantContains(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// ephemeralsTo returns the chat.postEphemeral calls for user.
func (e *env) ephemeralsTo(user string) []slackfake.Call {
	var out []slackfake.Call
	for _, c := range e.slack.Calls("chat.postEphemeral") {
		if c.Form.Get("user") == user {
			out = append(out, c)
		}
	}
	return out
}

// waitEphemeral waits for the nth (1-based) chat.postEphemeral to user.
func (e *env) waitEphemeral(user string, n int) slackfake.Call {
	e.t.Helper()
	if err := e.slack.Wait(wait, "an ephemeral message for "+user, func() bool { return len(e.ephemeralsTo(user)) >= n }); err != nil {
		e.t.Fatal(err)
	}
	return e.ephemeralsTo(user)[n-1]
}

// credential decodes a chat.postEphemeral and returns its secrets (code
// spans), checking where it was posted.
func credential(t testing.TB, c slackfake.Call, channel, user string) (message, []string) {
	t.Helper()
	if c.Form.Get("channel") != channel || c.Form.Get("user") != user {
		t.Errorf("chat.postEphemeral to user %q in %q, want user %q in %q", c.Form.Get("user"), c.Form.Get("channel"), user, channel)
	}
	m := callMessage(t, c)
	return m, codeSpans(m.blocksText())
}

// opsMessages returns the top-level messages of the ops channel as they now
// read, decoded.
func (e *env) opsMessages() []message {
	var out []message
	for _, m := range e.slack.Messages(ops) {
		out = append(out, decodeMessage(e.t, mustJSON(map[string]any{"text": m.Text, "blocks": m.Blocks})))
	}
	return out
}

// textObjects returns every text object ({"type": "mrkdwn"|"plain_text"})
// in a decoded JSON value, with its path.
func textObjects(v any, path string, out map[string]map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		if typ, _ := v["type"].(string); typ == "mrkdwn" || typ == "plain_text" {
			if _, ok := v["text"].(string); ok {
				out[path] = v
				return
			}
		}
		for k, e := range v {
			textObjects(e, path+"/"+k, out)
		}
	case []any:
		for i, e := range v {
			textObjects(e, path+"/"+strconv.Itoa(i), out)
		}
	}
}
