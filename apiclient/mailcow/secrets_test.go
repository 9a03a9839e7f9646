package mailcow_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/commands/providertest"
)

// fuzzKey is the API key FuzzSecretsInErrors sends and plants.
const fuzzKey = "C0FFEE-BADA55-DEC0DE-FACADE-5EC2E7"

// fuzzStatuses are the statuses FuzzSecretsInErrors answers with.
var fuzzStatuses = []int{200, 401, 403, 429, 500, 502, 404}

// plantSecret puts secret into an answer of one of mailcow's shapes: a
// failure's code, a code's argument, a warning, a single error object, a
// read's error, or any text.
func plantSecret(shape uint8, before, secret, after string) string {
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	text := before + secret + after
	switch shape % 6 {
	case 0:
		return `[{"type":"danger","msg":` + js(text) + `}]`
	case 1:
		return `[{"type":"danger","log":[` + js(secret) + `],"msg":[` + js(before+secret) + `,` + js(after) + `]}]`
	case 2:
		return `[{"type":"success","msg":"mailbox_added"},{"type":"warning","msg":` + js(text) + `}]`
	case 3:
		return `{"type":"error","msg":` + js(text) + `}`
	case 4:
		return `[{"type":"success","msg":"x"},{"type":"danger","msg":[` + js(text) + `]}]`
	}
	return text
}

// FuzzSecretsInErrors answers an add and a set-password with a body
// holding the password they sent, or the API key, in one of mailcow's
// shapes and any status, and checks that no text the caller gets (the error, its code
// and message, the warnings of a success) holds either, unless the same
// text holds it with the secret replaced by a filler (the secret is then a
// word of the message itself).
func FuzzSecretsInErrors(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzSecretsInErrors.
	srv := providertest.NewAnswerer(f)
	answer := func(t *testing.T, st int, b, password string) string {
		srv.Set(st, b)
		c, err := mailcow.New(srv.URL, fuzzKey, "mx.example.net", apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		added, err := c.AddMailbox(t.Context(), "example.com", "user", password, false)
		set, serr := c.SetPassword(t.Context(), "example.com", "user", password, true)
		return providertest.Shown(t, added, err) + "\n" + providertest.Shown(t, set, serr)
	}
	f.Fuzz(func(t *testing.T, statusIdx, shape uint8, plantKey bool, before, password, after string) {
		if len(password) < 8 || len(password) > 64 || !utf8.ValidString(password) || len(before)+len(after) > 2048 {
			return
		}
		st := fuzzStatuses[int(statusIdx)%len(fuzzStatuses)]
		secret := password
		if plantKey {
			secret = fuzzKey
		}
		filler := strings.Repeat("Q", len(secret))
		got := answer(t, st, plantSecret(shape, before, secret, after), password)
		control := answer(t, st, plantSecret(shape, before, filler, after), password)
		for _, s := range []string{password, fuzzKey} {
			if strings.Contains(got, s) && !strings.Contains(control, s) {
				t.Fatalf("HTTP %d: the caller's text shows a secret %q:\n%s", st, s, got)
			}
		}
	})
}
