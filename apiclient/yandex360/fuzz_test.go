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

// FuzzSecretsInErrors answers every call with the fuzzer's status and body,
// in which "TOKEN" and "PASSWORD" stand for the token and the password as
// sent, and checks that no error shows either, and that a 2xx answer is a
// result or an error, never both.
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
			if r.URL.Path == "/directory/v1/org/1/domains" && r.Method == http.MethodGet {
				_, _ = w.Write([]byte(`{"domains":[{"name":"example.org"}],"page":1,"pages":1}`))
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
		if (m == nil) == (err == nil) {
			t.Fatalf("AddMailbox = %v, %v: want a result or an error", m, err)
		}
		if err == nil && (!isDigits(m.UID)) {
			t.Errorf("UID %q is not a number", m.UID)
		}
		if err != nil {
			var e *apiclient.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *apiclient.Error", err)
			}
			for _, secret := range []string{fuzzToken, password, "AgAAAABkZXNlY3JldHRva2Vu"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q shows a secret", err)
				}
			}
		}
	})
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
