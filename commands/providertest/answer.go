package providertest

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// Answerer is an HTTP server on loopback that answers every request with
// the status and body last set: the provider of the fuzzers that check
// what an adapter's errors show of an answer. It is safe for concurrent
// use.
type Answerer struct {
	URL string

	mu     sync.Mutex
	status int
	body   string
}

// NewAnswerer starts an Answerer, closed when tb ends.
func NewAnswerer(tb testing.TB) *Answerer {
	a := &Answerer{status: http.StatusOK}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	tb.Cleanup(ts.Close)
	a.URL = ts.URL
	return a
}

// Set makes every later answer status and body.
func (a *Answerer) Set(status int, body string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.status, a.body = status, body
}

// Shown returns every text a caller gets of an operation's result: the
// error's (its text, code and message), or the warnings of a success. An
// error that is not an *apiclient.Error fails the test.
func Shown(tb testing.TB, m *apiclient.Mailbox, err error) string {
	tb.Helper()
	if err == nil {
		if m == nil {
			return ""
		}
		return strings.Join(m.Warnings, "\n")
	}
	var e *apiclient.Error
	if !errors.As(err, &e) {
		tb.Fatalf("not a provider error: %v", err)
	}
	return e.Error() + "\n" + e.Code + "\n" + e.Message
}
