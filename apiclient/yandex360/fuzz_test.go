package yandex360_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360"
)

// fuzzToken is the token of the fuzz client; it must never show in an error.
const fuzzToken = "y0_AgAAAABkZXNlY3JldHRva2Vu"

// FuzzSecretsInErrors answers an add and a set-password (once the domain
// and the user are found) with the fuzzer's status and body, in which
// "TOKEN" and "PASSWORD" stand for the token and the password as sent, and
// checks that no error shows either, and that a 2xx answer is a result or
// an error, never both.
func FuzzSecretsInErrors(f *testing.F) {
	f.Add(400, `{"code":3,"message":"bad password PASSWORD","details":[]}`)
	f.Add(401, `{"code":16,"message":"Unauthenticated: OAuth TOKEN"}`)
	f.Add(409, `{"code":6,"message":"user exists","details":[{"password":"PASSWORD"}]}`)
	f.Add(502, `<html>TOKEN</html>`)
	f.Add(200, `{"id":"1","nickname":"ada","email":"ada@example.org","isEnabled":true}`)
	f.Add(200, `{"id":12.5}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 200 || status > 599 {
			return
		}
		body = strings.NewReplacer("TOKEN", fuzzToken, "PASSWORD", password).Replace(body)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				_, _ = w.Write([]byte(lookups[r.URL.Path]))
				return
			}
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		defer ts.Close()
		c, err := yandex360.New(ts.URL, fuzzToken, yandex360.Settings{OrgID: 1},
			apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.AddMailbox(t.Context(), "example.org", "ada", password, true)
		checkAnswer(t, "AddMailbox", m, err)
		m, err = c.SetPassword(t.Context(), "example.org", "ada", password, true)
		checkAnswer(t, "SetPassword", m, err)
	})
}

// lookups are the answers to the reads before a write: the domain list
// and the user list, which find ada@example.org.
var lookups = map[string]string{
	"/directory/v1/org/1/domains": `{"domains":[{"name":"example.org","verified":true}],"page":1,"pages":1}`,
	"/directory/v1/org/1/users":   `{"users":[{"id":"7","nickname":"ada","email":"ada@example.org","isEnabled":true}],"page":1,"pages":1,"total":1}`,
}

// checkAnswer checks that a write returned a result or an error, never
// both, a numeric UID, and an *apiclient.Error that shows no secret.
func checkAnswer(t *testing.T, what string, m *apiclient.Mailbox, err error) {
	t.Helper()
	if (m == nil) == (err == nil) {
		t.Fatalf("%s = %v, %v: want a result or an error", what, m, err)
	}
	if err == nil {
		if !isDigits(m.UID) {
			t.Errorf("%s: UID %q is not a number", what, m.UID)
		}
		return
	}
	var e *apiclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v is not an *apiclient.Error", what, err)
	}
	for _, secret := range []string{fuzzToken, password, "AgAAAABkZXNlY3JldHRva2Vu"} {
		for _, text := range []string{err.Error(), e.Code, e.Message} {
			if strings.Contains(text, secret) {
				t.Errorf("%s: error text %q shows a secret", what, text)
			}
		}
	}
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
