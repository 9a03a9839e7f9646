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
	"time"
)

// web is the Web API side of the fake: the calls; s.mu guards it.
type web struct {
	calls    []Call
	handlers map[string]func(*apiRequest) answer
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

// handlersOf are the Web API methods the fake s serves.
func handlersOf(s *Server) map[string]func(*apiRequest) answer {
	return map[string]func(*apiRequest) answer{
		"auth.test":             authTest,
		"conversations.open":    s.chat.conversationsOpen,
		"conversations.history": s.chat.conversationsHistory,
		"conversations.replies": s.chat.conversationsReplies,
		"chat.postMessage":      s.chat.postMessage,
		"chat.update":           s.chat.update,
		"chat.postEphemeral":    s.chat.postEphemeral,
		"users.info":            s.dir.usersInfo,
		"users.list":            s.dir.usersList,
		"users.lookupByEmail":   s.dir.usersLookupByEmail,
		"usergroups.list":       s.dir.usergroupsList,
		"usergroups.users.list": s.dir.usergroupsUsersList,
		"views.open":            s.views.open,
		"views.update":          s.views.update,
		"views.publish":         s.views.publish,
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) connectionsOpen(w http.ResponseWriter, r *http.Request) {
	q, _ := parseRequest(r, "apps.connections.open")
	s.recordCall(q)
	authErr := s.Faults.appAuthError()
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
	h := s.handlers[method]
	switch {
	case err != nil:
		writeJSON(w, fail("invalid_form_data"))
	case h == nil:
		writeJSON(w, fail("unknown_method"))
	default:
		writeJSON(w, h(q))
	}
}

// injected answers q as the test arranged (delay, 429, a token or an error
// code) and reports whether it did.
func (s *Server) injected(ctx context.Context, w http.ResponseWriter, q *apiRequest) bool {
	a := s.Faults.take(q, time.Now())
	if !answerAfter(ctx, a.hold, a.delay) { // the caller gave up
		return true
	}
	switch {
	case a.limited:
		tooMany(w, time.Second)
	case a.over:
		tooMany(w, a.retry)
	case a.authErr != "":
		writeJSON(w, fail(a.authErr))
	case q.token != BotToken:
		writeJSON(w, fail("invalid_auth"))
	case a.code != "":
		writeJSON(w, fail(a.code))
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

func authTest(*apiRequest) answer {
	return answer{"ok": true, "user_id": BotUser, "user": "mailbot", "team_id": TeamID, "team": "Fake", "bot_id": BotID, "url": "https://fake.slack.com/"}
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
