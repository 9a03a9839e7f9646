package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// secret is a password or verification secret that went through the
// sandbox, with the target it belongs to (user@domain or the domain).
type secret struct {
	value, kind, target string
}

// secretLog records every secret that goes through the sandbox: the
// password of each email/add request, and the verification secrets of each
// register answer.
type secretLog struct {
	mu   sync.Mutex
	list []secret
}

func (l *secretLog) add(s secret) {
	if s.value == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, s)
}

// all returns the secrets recorded so far.
func (l *secretLog) all() []secret {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.list)
}

// record wraps the sandbox, reading the secrets off the wire.
func (l *secretLog) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		form, _ := url.ParseQuery(string(readBody(r)))
		domain := strings.ToLower(strings.TrimSuffix(form.Get("domain"), "."))
		switch {
		case strings.HasSuffix(r.URL.Path, "/email/add"):
			login, _, _ := strings.Cut(strings.ToLower(form.Get("login")), "@")
			l.add(secret{value: form.Get("password"), kind: "password", target: login + "@" + domain})
		case strings.HasSuffix(r.URL.Path, "/domain/register"):
			tw := &teeWriter{ResponseWriter: w}
			defer func() {
				var a struct {
					Secrets struct{ Name, Content string }
				}
				if json.Unmarshal(tw.body.Bytes(), &a) == nil {
					l.add(secret{value: a.Secrets.Name, kind: "secret name", target: domain})
					l.add(secret{value: a.Secrets.Content, kind: "secret content", target: domain})
				}
			}()
			w = tw
		}
		next.ServeHTTP(w, r)
	})
}

// check runs when the test ends, after every replica stopped: Slack
// refused nothing, and no secret or token leaked (see the top of
// harness_test.go).
func (e *env) check() {
	t := e.t
	for _, r := range e.slack.Rejected() {
		t.Errorf("Slack would refuse a %s: %s %q", r.Method, r.Error, r.Problems)
	}
	logs := e.logs.String()
	for _, tok := range []string{e.token, slackfake.BotToken, slackfake.AppToken} {
		if strings.Contains(logs, tok) {
			t.Errorf("a token in the logs: %q", tok)
		}
	}
	actors, audit := e.actors()
	vis := e.slack.Texts()
	for _, s := range e.secrets.all() {
		if strings.Contains(logs, s.value) {
			t.Errorf("%s %q of %s in the logs", s.kind, s.value, s.target)
		}
		if strings.Contains(audit, s.value) {
			t.Errorf("%s %q of %s in the audit trail", s.kind, s.value, s.target)
		}
		if n := countContaining(vis.Public, s.value); n > 0 {
			t.Errorf("%s %q of %s in %d public texts", s.kind, s.value, s.target, n)
		}
		attributed := 0
		for user, texts := range vis.To {
			n := countContaining(texts, s.value)
			attributed += n
			if n > 0 && !actors[s.target][user] {
				t.Errorf("%s %q of %s shown to %s, who did not ask for it (askers: %v)", s.kind, s.value, s.target, user, actors[s.target])
			}
		}
		if n := countContaining(vis.Private, s.value) - attributed; n > 0 {
			t.Errorf("%s %q of %s in %d private texts of no known audience", s.kind, s.value, s.target, n)
		}
	}
}

// actors returns, by target, who ran operations on it (the audit trail's
// actors), and the whole trail as text.
func (e *env) actors() (map[string]map[string]bool, string) {
	e.mu.Lock()
	stores := slices.Clone(e.stores)
	e.mu.Unlock()
	var entries []commands.AuditEntry
	for _, st := range stores {
		es, err := st.Audit(context.Background(), time.Time{}, 0, false)
		if err != nil {
			e.t.Errorf("audit trail: %v", err)
		}
		entries = append(entries, es...)
	}
	out := map[string]map[string]bool{}
	for _, a := range entries {
		// A hand-over's run gives its requester nothing to see; its
		// password is shown to its owner alone, at the click.
		if (a.Event != commands.EventRun && a.Event != commands.EventHandoverShown) || (a.Event == commands.EventRun && a.HandedTo != "") {
			continue
		}
		target := a.Domain
		if a.Login != "" {
			target = a.Login + "@" + a.Domain
		}
		if out[target] == nil {
			out[target] = map[string]bool{}
		}
		out[target][a.Actor] = true
	}
	return out, fmt.Sprintf("%+v", entries)
}

func countContaining(texts []string, s string) int {
	n := 0
	for _, t := range texts {
		if strings.Contains(t, s) {
			n++
		}
	}
	return n
}
