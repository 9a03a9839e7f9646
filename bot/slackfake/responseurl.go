package slackfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// resetFault is the fault that closes the connection without an answer.
const resetFault = -1

// responseSink is the response_url side of the fake: it takes the posts,
// answers them as the test arranged, and applies a click's answer to the
// message clicked; hub.mu guards it.
type responseSink struct {
	*hub
	chat        *chat
	socket      *Socket // whose envelopes name the message clicked
	posts       []Post  // every attempt, with the status answered
	expiredURLs bool
	faults      []int // statuses for the next posts, or resetFault
}

// ExpireResponseURLs makes every response_url answer 404 expired_url, as
// Slack does after 30 minutes or 5 uses.
func (s *Server) ExpireResponseURLs(expired bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sink.expiredURLs = expired
}

// FailResponseURLNext makes the next n response_url posts answer the HTTP
// status (500, 503, or 429 with Retry-After: 1) without taking the post.
func (s *Server) FailResponseURLNext(status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.sink.faults = append(s.sink.faults, status)
	}
}

// ResetResponseURLNext makes the next n response_url posts end with the
// connection closed and no answer.
func (s *Server) ResetResponseURLNext(n int) { s.FailResponseURLNext(resetFault, n) }

// serve takes a post to a response_url and answers it.
func (k *responseSink) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	p := Post{Path: r.URL.Path, Raw: string(raw), At: time.Now()}
	_ = json.Unmarshal(raw, &p.Body)
	k.mu.Lock()
	fault := 0
	if !k.expiredURLs && len(k.faults) > 0 {
		fault, k.faults = k.faults[0], k.faults[1:]
	}
	status, body := k.answerPost(&p, fault)
	p.Status = status
	k.posts = append(k.posts, p)
	k.changed()
	k.mu.Unlock()
	switch {
	case fault == resetFault:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "1")
	}
	if status != http.StatusOK {
		http.Error(w, body, status)
		return
	}
	_, _ = io.WriteString(w, body)
}

// answerPost decides the status and body of a response_url post, and
// applies it to the message a button was in; call it with mu held.
func (k *responseSink) answerPost(p *Post, fault int) (int, string) {
	switch {
	case k.expiredURLs:
		return http.StatusNotFound, "expired_url"
	case fault == resetFault:
		return 0, ""
	case fault > 0:
		return fault, strings.ToLower(strings.ReplaceAll(http.StatusText(fault), " ", "_"))
	case p.Body == nil:
		return http.StatusBadRequest, "invalid_payload"
	}
	text, _ := p.Body["text"].(string)
	if code, problems := checkMessage(text, p.Body["blocks"]); code != "" {
		k.reject("response_url", code, problems)
		return http.StatusBadRequest, code
	}
	e := k.socket.envs[strings.TrimPrefix(p.Path, "/response/")]
	p.Public = p.Body["response_type"] == "in_channel"
	if e == nil || e.messageTS == "" || p.Body["response_type"] == "ephemeral" {
		return http.StatusOK, "ok"
	}
	// A click's response_url changes the message the button was in, in
	// the channel, for everyone.
	m := k.chat.find(e.channel, e.messageTS)
	switch {
	case m == nil:
	case p.Body["delete_original"] == true:
		k.chat.messages[e.channel] = slices.DeleteFunc(k.chat.messages[e.channel], func(o *Message) bool { return o == m })
	case p.Body["replace_original"] == true:
		p.Public = true
		m.Text, m.Blocks, m.Edited = text, withIDs(p.Body["blocks"]), true
	}
	return http.StatusOK, "ok"
}

// Posts returns the response_url posts to ResponseURL(name) ("" for all)
// that the fake took (status 200).
func (s *Server) Posts(name string) []Post {
	var out []Post
	for _, p := range s.PostAttempts(name) {
		if p.Status == http.StatusOK {
			out = append(out, p)
		}
	}
	return out
}

// PostAttempts returns every post to ResponseURL(name) ("" for all),
// refused ones included, each with the status the fake answered (0: reset).
func (s *Server) PostAttempts(name string) []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Post
	for _, p := range s.sink.posts {
		if name == "" || p.Path == "/response/"+name {
			out = append(out, p)
		}
	}
	return out
}

// WaitPosts waits until ResponseURL(name) has taken at least n posts.
func (s *Server) WaitPosts(name string, n int, timeout time.Duration) ([]Post, error) {
	err := s.Wait(timeout, fmt.Sprintf("%d posts to %s", n, name), func() bool { return len(s.Posts(name)) >= n })
	return s.Posts(name), err
}
