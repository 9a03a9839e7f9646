package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/mailbot/mailbot/bot/slackfake"
)

// Reading what mailbot sent to the fake Slack, as a Slack client shows it.

// The block_ids and action_ids of mailbot's buttons, as Slack hands them
// back in a click (docs/delivery.md, docs/approvals.md).
const (
	e2eApprovalBlock = "mailbot_approval"
	e2eReplyBlock    = "mailbot_reply"
	e2eHomePrefix    = "mailbot_home_"
	e2eApprove       = "approve"
	e2eDeny          = "deny"
	e2eCancel        = "cancel"
	e2eCheckDNS      = "check_dns"
)

// e2eMsg is a message, an ack payload or a view: its raw JSON and what
// it decodes to.
type e2eMsg struct {
	Raw string
	slackfake.Payload
}

// decodeMsg decodes raw JSON; what does not decode keeps its raw text.
func decodeMsg(raw string) e2eMsg {
	m, _ := slackfake.DecodePayload(raw)
	return e2eMsg{Raw: raw, Payload: m}
}

// callMsg is the message a chat.* call sends: its text and blocks.
func callMsg(c slackfake.Call) e2eMsg {
	blocks := c.Form.Get("blocks")
	if blocks == "" {
		blocks = "[]"
	}
	text, _ := json.Marshal(c.Form.Get("text"))
	return decodeMsg(fmt.Sprintf(`{"text":%s,"blocks":%s}`, text, blocks))
}

// shown is every string of the message, Slack's escaping undone (the
// raw text itself when it is not JSON).
func (m e2eMsg) shown() string {
	texts := slackfake.Flatten(m.Raw)
	if len(texts) > 1 {
		texts = texts[1:]
	}
	return strings.Join(texts, "\n")
}

// decodeMsgBlocks is every string of blocks as the fake keeps them.
func decodeMsgBlocks(blocks []any) string {
	raw, _ := json.Marshal(blocks)
	return strings.Join(slackfake.Flatten(string(raw)), "\n")
}

// jsonField returns the string at path in the JSON object raw, or "".
func jsonField(raw []byte, path ...string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// command sends a slash command typed in the general channel through via
// and waits for its ack.
func (w *world) command(via slackfake.Sender, user, cmd, text string) (string, e2eMsg) {
	w.t.Helper()
	id, err := via.SlashCommand(user, e2eGeneral, cmd, text)
	if err != nil {
		w.t.Fatalf("%s %s: %v", cmd, text, err)
	}
	ack, err := w.fake.Socket.WaitAck(id, e2eWait)
	if err != nil {
		w.t.Fatalf("%s %s: %v", cmd, text, err)
	}
	return id, decodeMsg(string(ack.Payload))
}

// result waits for the first response_url post of an envelope: the answer
// to a command or a click.
func (w *world) result(id string) e2eMsg {
	w.t.Helper()
	posts, err := w.fake.WaitPosts(id, 1, e2eWait)
	if err != nil {
		w.t.Fatal(err)
	}
	return decodeMsg(posts[0].Raw)
}

// e2eRequest is a request message mailbot posted for the admins.
type e2eRequest struct {
	ts    string
	value string // the value Approve and Deny carry
	msg   e2eMsg
}

// requests returns the request messages posted in the ops channel, in
// the order they were sent, as they were first posted. Only messages that
// Slack took count: the fake records a call before it stores the message,
// and a person cannot click a message that is not in the channel yet
// (mailbot reads it back first); a post refused with 429 is no message.
func (w *world) requests() []e2eRequest {
	var out []e2eRequest
	for _, c := range w.fake.Calls("chat.postMessage") {
		if c.Form.Get("channel") != e2eOps || c.Form.Get("thread_ts") != "" || !w.fake.HasMessage(e2eOps, c.TS) {
			continue
		}
		m := callMsg(c)
		if v, ok := m.Button(e2eApprovalBlock, e2eApprove); ok {
			out = append(out, e2eRequest{ts: c.TS, value: v, msg: m})
		}
	}
	return out
}

// waitRequest waits for the nth (1-based) request message.
func (w *world) waitRequest(n int) e2eRequest {
	w.t.Helper()
	var reqs []e2eRequest
	if err := w.fake.Wait(e2eWait, fmt.Sprintf("request message %d", n), func() bool {
		reqs = w.requests()
		return len(reqs) >= n
	}); err != nil {
		w.t.Fatal(err)
	}
	return reqs[n-1]
}

// updates returns the chat.update calls of the request message ts.
func (w *world) updates(ts string) []e2eMsg {
	var out []e2eMsg
	for _, c := range w.fake.Calls("chat.update") {
		if c.Form.Get("channel") == e2eOps && c.Form.Get("ts") == ts {
			out = append(out, callMsg(c))
		}
	}
	return out
}

// waitUpdate waits for an update of the request message ts that shows
// want, and returns it.
func (w *world) waitUpdate(ts, want string) e2eMsg {
	w.t.Helper()
	var found e2eMsg
	err := w.fake.Wait(e2eWait, fmt.Sprintf("an update of request %s showing %q", ts, want), func() bool {
		for _, u := range w.updates(ts) {
			if strings.Contains(u.shown(), want) {
				found = u
				return true
			}
		}
		return false
	})
	if err != nil {
		w.t.Fatalf("%v; updates so far: %v", err, w.updates(ts))
	}
	return found
}

// click clicks a button of the request message as user through via and
// waits for the ack; it returns the envelope id.
func (w *world) click(via slackfake.Sender, user string, req e2eRequest, action string) string {
	w.t.Helper()
	id, err := via.Click(user, e2eOps, req.ts, e2eApprovalBlock, action, req.value)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(id, e2eWait); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// seenOnlyBy checks that secret reached user, privately, and nobody else:
// not in public, not privately to anyone else, not in another call.
func (w *world) seenOnlyBy(what, secret, user string) {
	w.t.Helper()
	v := w.fake.Texts()
	mine := countContaining(v.To[user], secret)
	if mine == 0 {
		w.t.Errorf("%s never reached %s", what, user)
	}
	if n := countContaining(v.Public, secret); n > 0 {
		w.t.Errorf("%s is in %d public texts", what, n)
	}
	if n := countContaining(v.Private, secret); n != mine {
		w.t.Errorf("%s is in %d private texts, of which only %d are %s's", what, n, mine, user)
	}
}

// deliveredTo counts the private answers to user that show want: posts to
// the response_urls of envelopes and ephemeral or direct messages.
func (w *world) deliveredTo(user, want string, envelopes ...string) int {
	n := 0
	for _, id := range envelopes {
		for _, p := range w.fake.Posts(id) {
			if strings.Contains(decodeMsg(p.Raw).shown(), want) {
				n++
			}
		}
	}
	for _, c := range w.fake.Calls("") {
		direct := c.Method == "chat.postMessage" && c.Form.Get("channel") == "D"+strings.TrimPrefix(user, "U") // the fake's DM channel
		if (c.Method == "chat.postEphemeral" && c.Form.Get("user") == user || direct) && strings.Contains(callMsg(c).shown(), want) {
			n++
		}
	}
	return n
}

// metric sums the samples of a Prometheus metric on /metrics whose line
// holds every one of labels ("name{…}" or "name value").
func metric(p *proc, name string, labels ...string) float64 {
	res, err := http.Get(p.http + "/metrics")
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if f := strings.Fields(line); ok && len(f) >= 2 {
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}

// concurrently runs each fn at once and waits for all.
func concurrently(fns ...func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, fn := range fns {
		wg.Go(func() { <-start; fn() })
	}
	close(start)
	wg.Wait()
}
