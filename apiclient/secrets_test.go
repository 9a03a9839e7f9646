package apiclient_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestWithSecrets checks that a call's own secret, repeated by the
// provider's answer, shows in no text of the error the caller builds,
// and that the caller it was derived from is left as it was.
func TestWithSecrets(t *testing.T) {
	t.Parallel()
	const token, password = "TOKEN-0123456789", "Pa&ss+w%rd;1"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte("your password " + password + " is weak"))
	}))
	t.Cleanup(ts.Close)
	base, err := apiclient.NewCaller("test", ts.URL, http.Header{"Authorization": {"OAuth " + token}})
	if err != nil {
		t.Fatal(err)
	}
	call := base.WithSecrets("", password)
	res, err := call.Exchange(t.Context(), apiclient.Request{Op: apiclient.OpReset, Method: http.MethodPost, Path: "x"})
	if err != nil {
		t.Fatal(err)
	}
	msg := apiclient.Excerpt(res.Body, apiclient.ExcerptLen, call.Secrets()...)
	e := call.Fail(apiclient.OpReset, apiclient.ClassRefused, res.Status, string(res.Body), string(res.Body))
	for _, text := range []string{msg, e.Error(), e.Code, e.Message} {
		if strings.Contains(text, password) || strings.Contains(text, token) {
			t.Errorf("a text shows a secret: %q", text)
		}
		if !strings.Contains(text, "is weak") {
			t.Errorf("a text lost what the answer said: %q", text)
		}
	}
	if got := base.Fail(apiclient.OpReset, apiclient.ClassRefused, 400, "", password).Message; got != password {
		t.Errorf("the caller WithSecrets was called on redacts %q too: the call's secret leaked into it", got)
	}
	if base.WithSecrets("") != base {
		t.Error("WithSecrets without a secret made a new caller")
	}
	if e.Provider != "test" {
		t.Errorf("Fail of the derived caller: provider %q, want test", e.Provider)
	}
}

// BenchmarkWithSecrets measures what a call carrying a password pays for
// its own caller.
func BenchmarkWithSecrets(b *testing.B) {
	c, err := apiclient.NewCaller("test", "https://api.example.com", http.Header{"Authorization": {"OAuth TOKEN-0123456789"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if c.WithSecrets("Pa&ss+w%rd;1") == c {
			b.Fatal("no caller of its own")
		}
	}
}
