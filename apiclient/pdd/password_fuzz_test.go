package pdd_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/commands/providertest"
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
	srv := providertest.NewAnswerer(f)
	shown := func(t *testing.T, st int, b, password string) string {
		srv.Set(st, b)
		a, err := pdd.NewAdapter(srv.URL, "TOKEN-PDD-0123", apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		added, err := a.AddMailbox(t.Context(), "example.com", "alice", password, false)
		set, serr := a.SetPassword(t.Context(), "example.com", "alice", password, false)
		return providertest.Shown(t, added, err) + "\n" + providertest.Shown(t, set, serr)
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
