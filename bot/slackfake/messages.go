package slackfake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Message is a message the fake holds, as it now reads: the bot's posts
// with chat.postMessage, changed by chat.update (or by a response_url post
// that replaces the message a button was in), and messages a test put.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // the parent's ts, for a thread reply and its parent
	User     string
	Text     string
	Blocks   []any // the blocks as Slack keeps them: every block has a block_id
	Edited   bool
	Replies  int // thread replies, for a parent
}

// chat serves chat.* and conversations.*: the channels' messages and
// the DMs the bot opened; hub.mu guards it.
type chat struct {
	*hub
	faults   *Faults
	messages map[string][]*Message // channel -> messages, oldest first
	dms      map[string]string     // DM channel -> user
}

func newChat(h *hub, f *Faults) *chat {
	return &chat{hub: h, faults: f, messages: map[string][]*Message{}, dms: map[string]string{}}
}

// blocksParam returns the blocks parameter of q (nil when absent) and
// whether it was present.
func blocksParam(q *apiRequest) (any, bool, error) {
	if q.json != nil {
		v, ok := q.json["blocks"]
		return v, ok, nil
	}
	raw, ok := q.form["blocks"]
	if !ok {
		return nil, false, nil
	}
	var v any
	if err := json.Unmarshal([]byte(raw[0]), &v); err != nil {
		return nil, true, err
	}
	return v, true, nil
}

// message checks the text and blocks of q as Slack does; it returns them,
// or the refusal to answer.
func (c *chat) message(q *apiRequest) (string, any, answer) {
	blocks, _, err := blocksParam(q)
	if err != nil {
		return "", nil, fail("invalid_blocks_format")
	}
	text := q.get("text")
	if code, problems := checkMessage(text, blocks); code != "" {
		c.mu.Lock()
		c.reject(q.method, code, problems)
		c.mu.Unlock()
		return "", nil, refusal(code, problems)
	}
	return text, blocks, nil
}

func (c *chat) postMessage(q *apiRequest) answer {
	ch := q.get("channel")
	if ch == "" || c.faults.channelNotFound(ch) {
		return fail("channel_not_found")
	}
	text, blocks, refused := c.message(q)
	if refused != nil {
		return refused
	}
	if text == "" && blocks == nil && q.get("attachments") == "" {
		return fail("no_text")
	}
	m := &Message{Channel: ch, TS: q.ts, User: BotUser, Text: text, Blocks: withIDs(blocks)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if parent := c.find(ch, q.get("thread_ts")); parent != nil {
		if parent.ThreadTS == "" {
			parent.ThreadTS = parent.TS
		}
		m.ThreadTS = parent.ThreadTS
		c.find(ch, parent.ThreadTS).Replies++
	}
	c.messages[ch] = append(c.messages[ch], m)
	c.changed()
	return answer{"ok": true, "channel": ch, "ts": m.TS, "message": c.wire(m)}
}

func (c *chat) update(q *apiRequest) answer {
	ch, ts := q.get("channel"), q.get("ts")
	if c.faults.channelNotFound(ch) {
		return fail("channel_not_found")
	}
	text, blocks, refused := c.message(q)
	if refused != nil {
		return refused
	}
	_, hasBlocks, _ := blocksParam(q)
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.find(ch, ts)
	if m == nil {
		return fail("message_not_found")
	}
	// As Slack: blocks left out are kept; an empty array removes them.
	if hasBlocks {
		m.Blocks = withIDs(blocks)
	}
	if q.has("text") {
		m.Text = text
	}
	m.Edited = true
	c.changed()
	return answer{"ok": true, "channel": ch, "ts": ts, "text": m.Text, "message": c.wire(m)}
}

func (c *chat) postEphemeral(q *apiRequest) answer {
	ch := q.get("channel")
	if ch == "" || c.faults.channelNotFound(ch) {
		return fail("channel_not_found")
	}
	if q.get("user") == "" {
		return fail("user_not_found")
	}
	if _, _, refused := c.message(q); refused != nil {
		return refused
	}
	return answer{"ok": true, "message_ts": q.ts}
}

func (c *chat) conversationsOpen(q *apiRequest) answer {
	users := q.get("users")
	if users == "" || strings.Contains(users, ",") {
		return fail("not_implemented") // the fake opens one-to-one DMs only
	}
	ch := dmChannel(users)
	c.mu.Lock()
	c.dms[ch] = users
	c.mu.Unlock()
	return answer{"ok": true, "no_op": false, "already_open": false, "channel": map[string]any{"id": ch}}
}

func (c *chat) conversationsHistory(q *apiRequest) answer {
	ch := q.get("channel")
	if ch == "" || c.faults.channelNotFound(ch) {
		return fail("channel_not_found")
	}
	inRange := tsRange(q.get("oldest"), q.get("latest"), q.get("inclusive") == "1" || q.get("inclusive") == "true")
	limit, err := strconv.Atoi(q.get("limit"))
	if err != nil || limit <= 0 {
		limit = 100
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []any
	msgs := c.messages[ch]
	for i := len(msgs) - 1; i >= 0; i-- { // newest first
		m := msgs[i]
		if m.ThreadTS != "" && m.ThreadTS != m.TS {
			continue // replies live in their thread, not in the history
		}
		if !inRange(m.TS) {
			continue
		}
		out = append(out, c.wire(m))
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return answer{"ok": true, "messages": nonNilAny(out), "has_more": more, "pin_count": 0, "response_metadata": map[string]any{"next_cursor": ""}}
}

func (c *chat) conversationsReplies(q *apiRequest) answer {
	ch, ts := q.get("channel"), q.get("ts")
	if c.faults.channelNotFound(ch) {
		return fail("channel_not_found")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	parent := c.find(ch, ts)
	if parent == nil {
		return fail("thread_not_found")
	}
	out := []any{c.wire(parent)}
	for _, m := range c.messages[ch] {
		if parent.ThreadTS != "" && m.ThreadTS == parent.ThreadTS && m.TS != parent.TS {
			out = append(out, c.wire(m))
		}
	}
	return answer{"ok": true, "messages": out, "has_more": false}
}

// tsRange returns whether a ts is within oldest and latest (either may be
// empty: no bound), the bounds included when inclusive.
func tsRange(oldest, latest string, inclusive bool) func(string) bool {
	lo, hi := tsKey(oldest), tsKey(latest)
	return func(ts string) bool {
		k := tsKey(ts)
		switch {
		case latest != "" && (k > hi || k == hi && !inclusive):
			return false
		case oldest != "" && (k < lo || k == lo && !inclusive):
			return false
		}
		return true
	}
}

// find returns the message ts in channel, or nil; call it with mu held.
func (c *chat) find(channel, ts string) *Message {
	if ts == "" {
		return nil
	}
	for _, m := range c.messages[channel] {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

// wire is m as the Web API shows it; call it with mu held.
func (c *chat) wire(m *Message) map[string]any {
	w := map[string]any{"type": "message", "user": m.User, "text": m.Text, "ts": m.TS, "team": TeamID}
	if m.User == BotUser {
		w["bot_id"], w["app_id"] = BotID, AppID
	}
	if m.Blocks != nil {
		w["blocks"] = m.Blocks
	}
	if m.ThreadTS != "" {
		w["thread_ts"] = m.ThreadTS
		if m.ThreadTS == m.TS {
			w["reply_count"] = m.Replies
		} else {
			w["parent_user_id"] = BotUser
		}
	}
	if m.Edited {
		w["edited"] = map[string]any{"user": m.User, "ts": m.TS}
	}
	return w
}

// tsKey makes a ts comparable: seconds and microseconds in one number.
func tsKey(ts string) int64 {
	sec, frac, _ := strings.Cut(ts, ".")
	n, _ := strconv.ParseInt(sec, 10, 64)
	frac = (frac + "000000")[:6]
	f, _ := strconv.ParseInt(frac, 10, 64)
	return n*1_000_000 + f
}

// withIDs gives every block a block_id and every element an action_id, as
// Slack does for those sent without one.
func withIDs(blocks any) []any {
	list, ok := blocks.([]any)
	if !ok {
		return nil
	}
	for _, b := range list {
		m, ok := b.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["block_id"]; !ok {
			m["block_id"] = randomID()
		}
		els, _ := m["elements"].([]any)
		for _, e := range append(els, m["accessory"], m["element"]) {
			if em, ok := e.(map[string]any); ok && em["action_id"] == nil && em["type"] != "mrkdwn" && em["type"] != "plain_text" && em["type"] != "image" {
				em["action_id"] = randomID()
			}
		}
	}
	return list
}

func randomID() string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return string(b)
}

func nonNilAny(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

// HasMessage reports whether the message ts is in channel: a chat.post*
// call is recorded (Calls) before the message is stored, so a test that
// acts on a message waits for this.
func (s *Server) HasMessage(channel, ts string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chat.find(channel, ts) != nil
}

// Messages returns the top-level messages of channel as they now read,
// oldest first.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.chat.messages[channel] {
		if m.ThreadTS == "" || m.ThreadTS == m.TS {
			out = append(out, *m)
		}
	}
	return out
}

// Replies returns the thread replies to the message ts in channel, oldest
// first.
func (s *Server) Replies(channel, ts string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.chat.messages[channel] {
		if m.ThreadTS == ts && m.TS != ts {
			out = append(out, *m)
		}
	}
	return out
}

// PutMessage stores m as if it had been posted earlier (by a previous run,
// another replica or a person) and returns its ts, new when m.TS is empty.
// User defaults to the bot.
func (s *Server) PutMessage(m Message) (string, error) {
	if m.Channel == "" {
		return "", fmt.Errorf("slackfake: message without a channel")
	}
	if m.TS == "" {
		m.TS = s.newTS()
	}
	if m.User == "" {
		m.User = BotUser
	}
	m.Blocks = withIDs(m.Blocks)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chat.find(m.Channel, m.TS) != nil {
		return "", fmt.Errorf("slackfake: message %s already in %s", m.TS, m.Channel)
	}
	msgs := append(s.chat.messages[m.Channel], &m)
	slices.SortStableFunc(msgs, func(a, b *Message) int { return cmp.Compare(tsKey(a.TS), tsKey(b.TS)) })
	s.chat.messages[m.Channel] = msgs
	s.changed()
	return m.TS, nil
}
