// Package slackfake is a fake Slack for tests, on loopback: the Web API
// methods mailbot calls, apps.connections.open, a Socket Mode websocket that
// says hello, sends WebSocket pings and envelopes and collects acks, and a
// sink for response_url posts. It records everything the bot sends, so tests
// can scan it for secrets.
//
// It is test code: only tests import it.
package slackfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Tokens the fake accepts.
const (
	AppToken = "xapp-1-A0FAKE-1-fakeapptoken"
	BotToken = "xoxb-1-fakebottoken"
	BotUser  = "UBOT"
)

// Ack is an acknowledgement the bot sent over the socket.
type Ack struct {
	EnvelopeID string
	Payload    json.RawMessage
	At         time.Time // when the fake received it
	Sent       time.Time // when the fake sent the envelope
}

// Call is one Web API call.
type Call struct {
	Method string
	Form   url.Values // the form fields (token removed)
	At     time.Time
	// TS is the ts of the message the call posts (chat.postMessage, when
	// it succeeds) or updates (chat.update), so that a test can click a
	// button of a message the bot posted.
	TS string
}

// Post is one post to a response_url.
type Post struct {
	Path string
	Body map[string]any
	Raw  string
	At   time.Time
}

// Server is the fake Slack.
type Server struct {
	URL string // the Web API base URL, ending in "/"

	srv      *httptest.Server
	upgrader websocket.Upgrader
	ping     time.Duration

	writeMu     sync.Mutex
	mu          sync.Mutex
	cond        *sync.Cond
	conn        *websocket.Conn
	connects    int
	acks        map[string]Ack
	sent        map[string]time.Time
	calls       []Call
	posts       []Post
	failures    map[string][]string // method -> error codes to answer, in order
	rateLimited map[string]int      // method -> 429s to answer
	authError   map[string]string   // token kind "app"/"bot" -> error
	callDelay   time.Duration
	expiredURLs bool
	ts          atomic.Int64
	envelopes   atomic.Int64
	closed      bool
}

// New starts a fake Slack on loopback. Close it when done.
func New() *Server {
	s := &Server{
		ping:        time.Second,
		acks:        map[string]Ack{},
		sent:        map[string]time.Time{},
		failures:    map[string][]string{},
		rateLimited: map[string]int{},
		authError:   map[string]string{},
	}
	s.cond = sync.NewCond(&s.mu)
	// Slack's client sends Origin: https://api.slack.com.
	s.upgrader.CheckOrigin = func(*http.Request) bool { return true }
	s.ts.Store(1700000000)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/apps.connections.open", s.connectionsOpen)
	mux.HandleFunc("/api/", s.webAPI)
	mux.HandleFunc("/ws", s.websocket)
	mux.HandleFunc("/response/", s.responseURL)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/api/"
	return s
}

// Close stops the fake and closes the socket.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	if s.conn != nil {
		_ = s.conn.Close()
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// ResponseURL returns a response_url on the fake, unique per name.
func (s *Server) ResponseURL(name string) string { return s.srv.URL + "/response/" + name }

// FailNext makes the next calls of method answer {"ok":false,"error":code},
// one call per code.
func (s *Server) FailNext(method string, codes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[method] = append(s.failures[method], codes...)
}

// RateLimitNext makes the next n calls of method answer 429 with
// Retry-After: 1.
func (s *Server) RateLimitNext(method string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimited[method] += n
}

// RejectToken makes every call with the app ("app") or bot ("bot") token
// answer the error code, such as "invalid_auth".
func (s *Server) RejectToken(kind, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authError[kind] = code
}

// SetCallDelay delays every Web API answer.
func (s *Server) SetCallDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callDelay = d
}

func (s *Server) token(r *http.Request) string {
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return t
	}
	return r.PostFormValue("token")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) connectionsOpen(w http.ResponseWriter, r *http.Request) {
	s.record(r, "apps.connections.open", "")
	s.mu.Lock()
	authErr := s.authError["app"]
	s.mu.Unlock()
	switch {
	case authErr != "":
		writeJSON(w, map[string]any{"ok": false, "error": authErr})
	case s.token(r) != AppToken:
		writeJSON(w, map[string]any{"ok": false, "error": "invalid_auth"})
	default:
		writeJSON(w, map[string]any{"ok": true, "url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws"})
	}
}

func (s *Server) record(r *http.Request, method, ts string) {
	_ = r.ParseForm()
	form := url.Values{}
	for k, v := range r.PostForm {
		if k != "token" {
			form[k] = v
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: method, Form: form, At: time.Now(), TS: ts})
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *Server) webAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	ts := fmt.Sprintf("%d.%06d", s.ts.Add(1), 0)
	if method == "chat.update" {
		ts = r.PostFormValue("ts")
	}
	switch method {
	case "chat.postMessage", "chat.update":
		s.record(r, method, ts)
	default:
		s.record(r, method, "")
	}
	s.mu.Lock()
	delay := s.callDelay
	authErr := s.authError["bot"]
	var code string
	if q := s.failures[method]; len(q) > 0 {
		code, s.failures[method] = q[0], q[1:]
	}
	limited := s.rateLimited[method] > 0
	if limited {
		s.rateLimited[method]--
	}
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	switch {
	case limited:
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	case authErr != "":
		writeJSON(w, map[string]any{"ok": false, "error": authErr})
		return
	case s.token(r) != BotToken:
		writeJSON(w, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	case code != "":
		writeJSON(w, map[string]any{"ok": false, "error": code})
		return
	}
	switch method {
	case "auth.test":
		writeJSON(w, map[string]any{"ok": true, "user_id": BotUser, "user": "mailbot", "team_id": "T0FAKE", "team": "Fake", "bot_id": "B0FAKE", "url": "https://fake.slack.com/"})
	case "conversations.open":
		writeJSON(w, map[string]any{"ok": true, "channel": map[string]any{"id": "D" + strings.TrimPrefix(r.PostFormValue("users"), "U")}})
	case "chat.postEphemeral":
		writeJSON(w, map[string]any{"ok": true, "message_ts": ts})
	case "chat.postMessage", "chat.update":
		ch := r.PostFormValue("channel")
		writeJSON(w, map[string]any{"ok": true, "channel": ch, "ts": ts})
	default:
		writeJSON(w, map[string]any{"ok": false, "error": "unknown_method"})
	}
}

// ExpireResponseURLs makes every response_url answer 404 expired_url, as
// Slack does after 30 minutes or 5 uses.
func (s *Server) ExpireResponseURLs(expired bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiredURLs = expired
}

func (s *Server) responseURL(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	expired := s.expiredURLs
	s.mu.Unlock()
	if expired {
		http.Error(w, "expired_url", http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.posts = append(s.posts, Post{Path: r.URL.Path, Body: body, Raw: string(raw), At: time.Now()})
	s.cond.Broadcast()
	s.mu.Unlock()
	_, _ = io.WriteString(w, "ok")
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = conn.Close()
		return
	}
	if s.conn != nil {
		_ = s.conn.Close()
	}
	s.conn = conn
	s.connects++
	n := s.connects
	s.cond.Broadcast()
	s.mu.Unlock()

	_ = s.write(conn, map[string]any{"type": "hello", "num_connections": 1, "connection_info": map[string]any{"app_id": "A0FAKE"}, "debug_info": map[string]any{"host": "fake"}})
	done := make(chan struct{})
	go s.pinger(conn, done)
	defer close(done)
	for {
		var msg struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := conn.ReadJSON(&msg); err != nil {
			break
		}
		s.mu.Lock()
		s.acks[msg.EnvelopeID] = Ack{EnvelopeID: msg.EnvelopeID, Payload: msg.Payload, At: time.Now(), Sent: s.sent[msg.EnvelopeID]}
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	s.mu.Lock()
	if s.conn == conn && s.connects == n {
		s.conn = nil
	}
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *Server) pinger(conn *websocket.Conn, done chan struct{}) {
	t := time.NewTicker(s.ping)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if err := conn.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(time.Second)); err != nil {
				return
			}
		}
	}
}

// write sends v on conn; gorilla allows one writer at a time.
func (s *Server) write(conn *websocket.Conn, v any) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return conn.WriteJSON(v)
}

// WaitConnected waits until the bot has connected n times in all.
func (s *Server) WaitConnected(n int, timeout time.Duration) error {
	return s.waitFor(timeout, func() bool { return s.connects >= n && s.conn != nil }, fmt.Sprintf("%d connections", n))
}

// Connects returns how many times the bot has connected.
func (s *Server) Connects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// waitFor waits, under s.mu, until cond holds.
func (s *Server) waitFor(timeout time.Duration, cond func() bool, what string) error {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) || s.closed {
			return fmt.Errorf("slackfake: timed out after %s waiting for %s", timeout, what)
		}
		s.cond.Wait()
	}
	return nil
}

// Wait waits until cond (called with no lock held on the fake's records;
// use the accessors inside it) holds, polling every time something arrives.
func (s *Server) Wait(timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("slackfake: timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// newEnvelopeID returns a fresh envelope id; a command's or a click's
// response_url is named after it.
func (s *Server) newEnvelopeID() string { return fmt.Sprintf("env-%d", s.envelopes.Add(1)) }

// send sends an envelope with the id on the current connection.
func (s *Server) send(id, typ string, payload any) (string, error) {
	s.mu.Lock()
	conn := s.conn
	s.sent[id] = time.Now()
	s.mu.Unlock()
	if conn == nil {
		return "", fmt.Errorf("slackfake: no connection")
	}
	env := map[string]any{"envelope_id": id, "type": typ, "payload": payload, "accepts_response_payload": typ == "slash_commands"}
	if err := s.write(conn, env); err != nil {
		return "", fmt.Errorf("slackfake: send: %w", err)
	}
	return id, nil
}

// SlashCommand sends a slash command typed by user in channel and returns
// the envelope id. Its response_url is ResponseURL(envelope id).
func (s *Server) SlashCommand(user, channel, command, text string) (string, error) {
	id := s.newEnvelopeID()
	return s.send(id, "slash_commands", map[string]any{
		"token": "verification-token-unused", "team_id": "T0FAKE", "team_domain": "fake",
		"channel_id": channel, "channel_name": "general", "user_id": user, "user_name": strings.ToLower(user),
		"command": command, "text": text, "api_app_id": "A0FAKE", "trigger_id": "trigger-" + id,
		"response_url": s.ResponseURL(id),
	})
}

// Click sends a block_actions click by user on the button actionID (in
// blockID, with value) of the message ts in channel.
func (s *Server) Click(user, channel, ts, blockID, actionID, value string) (string, error) {
	id := s.newEnvelopeID()
	return s.send(id, "interactive", map[string]any{
		"type": "block_actions", "team": map[string]any{"id": "T0FAKE"},
		"user": map[string]any{"id": user, "username": strings.ToLower(user)}, "api_app_id": "A0FAKE",
		"channel":    map[string]any{"id": channel},
		"container":  map[string]any{"type": "message", "message_ts": ts, "channel_id": channel},
		"message":    map[string]any{"ts": ts, "type": "message"},
		"trigger_id": "trigger-" + id, "response_url": s.ResponseURL(id),
		"actions": []map[string]any{{"type": "button", "action_id": actionID, "block_id": blockID, "value": value, "action_ts": "1.1"}},
	})
}

// Disconnect sends Slack's disconnect message ("refresh_requested").
func (s *Server) Disconnect() error {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return fmt.Errorf("slackfake: no connection")
	}
	return s.write(conn, map[string]any{"type": "disconnect", "reason": "refresh_requested", "debug_info": map[string]any{"host": "fake"}})
}

// Drop closes the socket abruptly, as a network failure would.
func (s *Server) Drop() {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.UnderlyingConn().Close()
	}
}

// WaitAck waits for the acknowledgement of an envelope.
func (s *Server) WaitAck(id string, timeout time.Duration) (Ack, error) {
	err := s.waitFor(timeout, func() bool { _, ok := s.acks[id]; return ok }, "ack of "+id)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks[id], err
}

// Acks returns every acknowledgement so far.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Ack, 0, len(s.acks))
	for _, a := range s.acks {
		out = append(out, a)
	}
	return out
}

// Calls returns the Web API calls of method ("" for all), in order.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Posts returns the response_url posts to ResponseURL(name) ("" for all).
func (s *Server) Posts(name string) []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Post
	for _, p := range s.posts {
		if name == "" || p.Path == "/response/"+name {
			out = append(out, p)
		}
	}
	return out
}

// WaitCalls waits until method has been called at least n times.
func (s *Server) WaitCalls(method string, n int, timeout time.Duration) ([]Call, error) {
	err := s.Wait(timeout, fmt.Sprintf("%d calls of %s", n, method), func() bool { return len(s.Calls(method)) >= n })
	return s.Calls(method), err
}

// WaitPosts waits until ResponseURL(name) has received at least n posts.
func (s *Server) WaitPosts(name string, n int, timeout time.Duration) ([]Post, error) {
	err := s.Wait(timeout, fmt.Sprintf("%d posts to %s", n, name), func() bool { return len(s.Posts(name)) >= n })
	return s.Posts(name), err
}

// Visible is what Slack would show, split by audience: every string the
// bot sent, JSON flattened and Slack's &amp; &lt; &gt; decoded.
type Visible struct {
	Public  []string // chat.postMessage and chat.update: everyone in the channel
	Private []string // ephemeral: acks, response_url posts, chat.postEphemeral
}

// All returns both audiences' texts.
func (v Visible) All() []string { return append(append([]string(nil), v.Public...), v.Private...) }

// Texts returns everything the bot sent to Slack, by audience. A
// response_url post with response_type in_channel counts as public.
func (s *Server) Texts() Visible {
	var v Visible
	for _, c := range s.Calls("") {
		var texts []string
		for _, vals := range c.Form {
			for _, val := range vals {
				texts = append(texts, Flatten(val)...)
			}
		}
		switch c.Method {
		case "chat.postMessage", "chat.update":
			v.Public = append(v.Public, texts...)
		default:
			v.Private = append(v.Private, texts...)
		}
	}
	for _, p := range s.Posts("") {
		if p.Body["response_type"] == "in_channel" {
			v.Public = append(v.Public, Flatten(p.Raw)...)
		} else {
			v.Private = append(v.Private, Flatten(p.Raw)...)
		}
	}
	for _, a := range s.Acks() {
		v.Private = append(v.Private, Flatten(string(a.Payload))...)
	}
	return v
}

var slackUnescape = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

// Flatten returns the strings in s: s itself, and when s is JSON, every
// string inside it; each with Slack's escaping decoded.
func Flatten(s string) []string {
	out := []string{slackUnescape.Replace(s)}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return out
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, slackUnescape.Replace(v))
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
