package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// pddSecret is a secret that went through the sandbox.
type pddSecret struct {
	value  string
	kind   string // "password", "secret name", "secret content"
	target string // the mailbox or the domain
}

// pddRecorder reads, off the wire in front of the sandbox, every password
// sent to email/add and every verification secret register answered, and
// the mailboxes whose add reached the API, in order.
type pddRecorder struct {
	mu    sync.Mutex
	list  []pddSecret
	added []string
}

func (r *pddRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(raw))
		form, _ := url.ParseQuery(string(raw))
		domain := strings.ToLower(strings.TrimSuffix(form.Get("domain"), "."))
		switch {
		case strings.HasSuffix(req.URL.Path, "/email/add"):
			login, _, _ := strings.Cut(strings.ToLower(form.Get("login")), "@")
			r.add(pddSecret{value: form.Get("password"), kind: "password", target: login + "@" + domain}, login+"@"+domain)
		case strings.HasSuffix(req.URL.Path, "/domain/register"):
			tw := &teeWriter{ResponseWriter: w}
			w = tw
			defer func() { r.registered(domain, tw.body.Bytes()) }()
		}
		next.ServeHTTP(w, req)
	})
}

func (r *pddRecorder) add(s pddSecret, mailbox string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.added = append(r.added, mailbox)
	if s.value != "" {
		r.list = append(r.list, s)
	}
}

func (r *pddRecorder) registered(domain string, body []byte) {
	name, content := jsonField(body, "secrets", "name"), jsonField(body, "secrets", "content")
	r.mu.Lock()
	defer r.mu.Unlock()
	if name != "" {
		r.list = append(r.list, pddSecret{value: name, kind: "secret name", target: domain})
	}
	if content != "" {
		r.list = append(r.list, pddSecret{value: content, kind: "secret content", target: domain})
	}
}

// secrets returns every secret recorded so far.
func (r *pddRecorder) secrets() []pddSecret {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list)
}

// secret returns the recorded secret of kind for target, or "".
func (r *pddRecorder) secret(kind, target string) string {
	for _, s := range r.secrets() {
		if s.kind == kind && s.target == target {
			return s.value
		}
	}
	return ""
}

// addsReached returns the mailboxes whose email/add reached the API, in
// order of arrival.
func (r *pddRecorder) addsReached() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.added)
}

// teeWriter keeps a copy of what a handler writes.
type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.body.Write(p)
	return w.ResponseWriter.Write(p)
}
