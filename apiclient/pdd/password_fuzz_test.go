package pdd_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
)

// passwordStatuses are the statuses FuzzPasswordInErrors answers with.
var passwordStatuses = []int{200, 400, 404, 429, 500, 502}

// plantPassword puts text, which holds the password, into an answer of
// one of PDD's shapes: an error code, a garbled success (its uid is
// quoted), a login, or a bare text.
func plantPassword(shape uint8, text string) string {
	js, _ := json.Marshal(text)
	switch shape % 4 {
	case 0:
		return `{"success":"error","error":` + string(js) + `}`
	case 1:
		return `{"success":"ok","login":"alice","uid":` + string(js) + `}`
	case 2:
		return `{"success":"ok","login":` + string(js) + `}`
	}
	return text
}

// FuzzPasswordInErrors answers an add and a set-password with a body
// that repeats the password they sent (as a provider's error may), in one
// of PDD's shapes and any status, and checks that no text of the error
// holds the password, unless the same text holds it when the body holds a
// filler instead (the password is then a word of the message itself).
func FuzzPasswordInErrors(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzPasswordInErrors.
	var mu sync.Mutex
	var status int
	var body string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	f.Cleanup(ts.Close)
	shown := func(t *testing.T, st int, b, password string) string {
		mu.Lock()
		status, body = st, b
		mu.Unlock()
		a, err := pdd.NewAdapter(ts.URL, "TOKEN-PDD-0123", apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		_, addErr := a.AddMailbox(t.Context(), "example.com", "alice", password, false)
		_, setErr := a.SetPassword(t.Context(), "example.com", "alice", password, false)
		return errorTexts(t, addErr) + "\n" + errorTexts(t, setErr)
	}
	f.Fuzz(func(t *testing.T, statusIdx, shape uint8, before, password, after string) {
		if len(password) < 8 || len(password) > 64 || !utf8.ValidString(password) || len(before)+len(after) > 2048 {
			return
		}
		st := passwordStatuses[int(statusIdx)%len(passwordStatuses)]
		got := shown(t, st, plantPassword(shape, before+password+after), password)
		control := shown(t, st, plantPassword(shape, before+strings.Repeat("Q", len(password))+after), password)
		if strings.Contains(got, password) && !strings.Contains(control, password) {
			t.Fatalf("HTTP %d: an error shows the password %q:\n%s", st, password, got)
		}
	})
}

// errorTexts are the texts of a provider error, "" for nil.
func errorTexts(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *apiclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("not a provider error: %v", err)
	}
	return e.Error() + "\n" + e.Code + "\n" + e.Message
}
