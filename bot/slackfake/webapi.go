package slackfake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// web is the Web API side of the fake: calls and failure injection; s.mu
// guards it.
type web struct {
	calls       []Call
	rejected    []Rejection
	failures    map[string][]string // method -> error codes to answer, in order
	rateLimited map[string]int      // method -> 429s to answer
	authError   map[string]string   // token kind "app"/"bot" -> error
	callDelay   time.Duration
	methodDelay map[string]time.Duration
	notFound    map[string]bool          // channels that answer channel_not_found
	tiers                                // Slack's rate tiers: ratetiers.go
	held        map[string]chan struct{} // method -> closed when its calls may answer
}

func (w *web) setup() {
	w.failures = map[string][]string{}
	w.rateLimited = map[string]int{}
	w.authError = map[string]string{}
	w.methodDelay = map[string]time.Duration{}
	w.notFound = map[string]bool{}
	w.held = map[string]chan struct{}{}
}

// apiRequest is one Web API request, its form or JSON body decoded.
type apiRequest struct {
	method string
	token  string
	form   url.Values     // form and query fields, token removed
	json   map[string]any // the body of a JSON request
	body   string         // the raw body of a JSON request
	ts     string         // the ts a chat.post* call gets
}

// get returns the parameter name from the form or the JSON body.
func (q *apiRequest) get(name string) string {
	if q.json == nil {
		return q.form.Get(name)
	}
	switch v := q.json[name].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// has reports whether the parameter name was sent.
func (q *apiRequest) has(name string) bool {
	if q.json != nil {
		_, ok := q.json[name]
		return ok
	}
	return q.form.Has(name)
}

// object returns the parameter name as a JSON object: a JSON-encoded
// string in a form, an object in a JSON body.
func (q *apiRequest) object(name string) (map[string]any, bool) {
	if q.json != nil {
		m, ok := q.json[name].(map[string]any)
		return m, ok
	}
	var m map[string]any
	return m, json.Unmarshal([]byte(q.form.Get(name)), &m) == nil && m != nil
}

// answer is a Web API answer.
type answer map[string]any

func fail(code string) answer { return answer{"ok": false, "error": code} }

// handlers are the Web API methods the fake serves.
var handlers = map[string]func(*Server, *apiRequest) answer{
	"auth.test":             (*Server).authTest,
	"conversations.open":    (*Server).conversationsOpen,
	"conversations.history": (*Server).conversationsHistory,
	"conversations.replies": (*Server).conversationsReplies,
	"chat.postMessage":      (*Server).chatPostMessage,
	"chat.update":           (*Server).chatUpdate,
	"chat.postEphemeral":    (*Server).chatPostEphemeral,
	"usergroups.list":       (*Server).usergroupsList,
	"usergroups.users.list": (*Server).usergroupsUsersList,
	"views.open":            (*Server).viewsOpen,
	"views.update":          (*Server).viewsUpdate,
	"views.publish":         (*Server).viewsPublish,
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) connectionsOpen(w http.ResponseWriter, r *http.Request) {
	q, _ := parseRequest(r, "apps.connections.open")
	s.recordCall(q)
	s.mu.Lock()
	authErr := s.authError["app"]
	s.mu.Unlock()
	switch {
	case authErr != "":
		writeJSON(w, fail(authErr))
	case q.token != AppToken:
		writeJSON(w, fail("invalid_auth"))
	default:
		writeJSON(w, answer{"ok": true, "url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws"})
	}
}

// parseRequest decodes a Web API request: a form (token in the form or
// the Authorization header) or a JSON body (token in the header).
func parseRequest(r *http.Request, method string) (*apiRequest, error) {
	q := &apiRequest{method: method, form: url.Values{}}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		q.token = t
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "application/json" {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			return q, err
		}
		q.body = string(raw)
		if err := json.Unmarshal(raw, &q.json); err != nil || q.json == nil {
			q.json = map[string]any{}
			return q, fmt.Errorf("slackfake: body is not a JSON object")
		}
		return q, nil
	}
	err := r.ParseForm()
	for k, v := range r.Form {
		if k == "token" {
			if q.token == "" {
				q.token = v[0]
			}
			continue
		}
		q.form[k] = v
	}
	return q, err
}

// recordCall records q as a Call.
func (s *Server) recordCall(q *apiRequest) {
	c := Call{Method: q.method, Form: q.form, JSON: q.json, Body: q.body, At: time.Now()}
	switch q.method {
	case "chat.postMessage":
		c.TS = q.ts
	case "chat.update":
		c.TS = q.get("ts")
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.changed()
	s.mu.Unlock()
}

func (s *Server) webAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	q, err := parseRequest(r, method)
	if strings.HasPrefix(method, "chat.post") {
		q.ts = s.newTS()
	}
	s.recordCall(q)
	if s.injected(r.Context(), w, q) {
		return
	}
	h := handlers[method]
	switch {
	case err != nil:
		writeJSON(w, fail("invalid_form_data"))
	case h == nil:
		writeJSON(w, fail("unknown_method"))
	default:
		writeJSON(w, h(s, q))
	}
}

// injected answers q as the test arranged (delay, 429, a token or an error
// code) and reports whether it did.
func (s *Server) injected(ctx context.Context, w http.ResponseWriter, q *apiRequest) bool {
	s.mu.Lock()
	delay := s.callDelay + s.methodDelay[q.method]
	authErr := s.authError["bot"]
	var code string
	if fs := s.failures[q.method]; len(fs) > 0 {
		code, s.failures[q.method] = fs[0], fs[1:]
	}
	limited := s.rateLimited[q.method] > 0
	if limited {
		s.rateLimited[q.method]--
	}
	retry, over := s.overTier(q, time.Now())
	hold := s.held[q.method]
	s.mu.Unlock()
	if !answerAfter(ctx, hold, delay) { // the caller gave up
		return true
	}
	switch {
	case limited:
		tooMany(w, time.Second)
	case over:
		tooMany(w, retry)
	case authErr != "":
		writeJSON(w, fail(authErr))
	case q.token != BotToken:
		writeJSON(w, fail("invalid_auth"))
	case code != "":
		writeJSON(w, fail(code))
	default:
		return false
	}
	return true
}

// answerAfter waits until hold (if any) is closed and delay has passed;
// false when ctx ends first.
func answerAfter(ctx context.Context, hold <-chan struct{}, delay time.Duration) bool {
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return false
		}
	}
	if delay <= 0 {
		return true
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Server) authTest(*apiRequest) answer {
	return answer{"ok": true, "user_id": BotUser, "user": "mailbot", "team_id": TeamID, "team": "Fake", "bot_id": BotID, "url": "https://fake.slack.com/"}
}

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

// Hold makes the calls of method wait for their answer until release is
// called.
func (s *Server) Hold(method string) (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.held[method] = ch
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.held, method)
			s.mu.Unlock()
			close(ch)
		})
	}
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

// SetMethodDelay delays the answers of one Web API method (on top of
// SetCallDelay); 0 removes the delay.
func (s *Server) SetMethodDelay(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methodDelay[method] = d
}

// SetChannelNotFound makes chat.postMessage, chat.postEphemeral,
// chat.update and conversations.history in channel answer
// channel_not_found (as for a private channel the bot is not in) until
// ClearChannelNotFound.
func (s *Server) SetChannelNotFound(channel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notFound[channel] = true
}

// ClearChannelNotFound undoes SetChannelNotFound.
func (s *Server) ClearChannelNotFound(channel string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.notFound, channel)
}

// channelNotFound reports whether channel was made to answer
// channel_not_found.
func (s *Server) channelNotFound(channel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notFound[channel]
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

// WaitCalls waits until method has been called at least n times.
func (s *Server) WaitCalls(method string, n int, timeout time.Duration) ([]Call, error) {
	err := s.Wait(timeout, fmt.Sprintf("%d calls of %s", n, method), func() bool { return len(s.Calls(method)) >= n })
	return s.Calls(method), err
}
