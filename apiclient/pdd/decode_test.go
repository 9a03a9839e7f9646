package pdd

import (
	"github.com/mailbot/mailbot/apiclient"

	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSecrets stand for a token and a password in FuzzDecode.
var fuzzSecrets = []string{"TOKEN2345ABCDEFG", "Pa&ss+w%rd;1"}

// FuzzDecode checks the decoder of answers: it never panics, returns a
// result or an error but never both, a result is a PDD success, an "error"
// answer is an *Error with a bounded code, anything else a *ResponseError
// with a short excerpt (none for HTTP 200); no error carries a secret.
func FuzzDecode(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzDecode.
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		for _, op := range []Op{OpRegisterDomain, OpAddMailbox} {
			r, err := decode(op, status, body, fuzzSecrets...)
			if (r == nil) == (err == nil) {
				t.Fatalf("decode(%d, %q) = %v, %v; want exactly one of a result and an error", status, body, r, err)
			}
			if r != nil {
				if status != 200 || len(body) > maxBody || r.Success != "ok" {
					t.Fatalf("decode(%d, %q) = %+v: not a PDD success", status, body, r)
				}
				continue
			}
			var apiErr *Error
			var re *ResponseError
			switch {
			case errors.As(err, &apiErr):
				if status != 200 || apiErr.Op != op || utf8.RuneCountInString(string(apiErr.Code)) > apiclient.MaxCodeLen {
					t.Fatalf("decode(%d, %q) error = %#v, want an *Error of %s with a code of at most %d characters", status, body, err, op, apiclient.MaxCodeLen)
				}
			case !errors.As(err, &re) || re.Op != op || re.StatusCode != status || re.Reason == "":
				t.Fatalf("decode(%d, %q) error = %#v, want a *ResponseError of %s", status, body, err, op)
			case status == 200 && re.Excerpt != "":
				t.Fatalf("decode(200, %q): excerpt %q of a 200 body", body, re.Excerpt)
			case utf8.RuneCountInString(re.Excerpt) > apiclient.ExcerptLen+1:
				t.Fatalf("excerpt of %d runes: %q", utf8.RuneCountInString(re.Excerpt), re.Excerpt)
			}
			for _, s := range fuzzSecrets {
				if msg := err.Error(); strings.Contains(msg, s) || strings.Contains(msg, url.QueryEscape(s)) {
					t.Fatalf("error %q holds the secret %q", msg, s)
				}
			}
		}
	})
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		n          int
		want       string
	}{
		{"short", "abc", 64, "abc"},
		{"cut", "abcdef", 3, "abc…"},
		{"line breaks and tabs", "a\tb\nc\r\nd", 64, "a b c  d"},
		{"cut at a control character", "a b\x00c", 64, "a b…"},
		{"cut at a zero-width space", "pass\u200bword: x", 64, "pass…"},
		{"cut at a right-to-left override", "ab\u202ecd", 64, "ab…"},
		{"runes, not bytes", "ёжик в тумане", 4, "ёжик…"},
		{"invalid utf-8", "a\xffb", 64, "a\ufffdb"},
		{"secret", "x TOKEN2345ABCDEFG y", 64, "x <redacted> y"},
		{"form-encoded secret", "password=Pa%26ss%2Bw%25rd%3B1", 64, "password=<redacted>"},
		{"json-escaped secret", `"Pa\u0026ss+w%rd;1"`, 64, `"<redacted>"`},
		{"secret across the cut", "TOKEN2345ABCDEFG", 5, "<reda…"},
		{"spaces trimmed", "  a  ", 64, "a"},
	}
	for _, tc := range tests {
		if got := apiclient.Excerpt([]byte(tc.body), tc.n, fuzzSecrets...); got != tc.want {
			t.Errorf("%s: apiclient.Excerpt(%q, %d) = %q, want %q", tc.name, tc.body, tc.n, got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	c := &Client{retry: RetryPolicy{Attempts: 10, BaseDelay: 100, MaxDelay: 1000}}
	for attempt, max := range []int64{0, 100, 200, 400, 800, 1000, 1000, 1000} {
		if attempt == 0 {
			continue
		}
		for range 100 {
			d := int64(c.backoff(attempt))
			if d < max/2 || d > max {
				t.Fatalf("backoff(%d) = %d, want %d to %d", attempt, d, max/2, max)
			}
		}
	}
	if d := c.backoff(200); d < 500 || d > 1000 {
		t.Errorf("backoff(200) = %d, want MaxDelay with jitter despite the overflow", d)
	}
	zero := &Client{retry: RetryPolicy{Attempts: 3, MaxDelay: 1000}}
	if d := zero.backoff(2); d != 0 {
		t.Errorf("backoff with BaseDelay 0 = %d, want 0", d)
	}
}

func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"domain":"example.com","status":"domain-activate","stage":"owner-check","secrets":{"name":"0123456789ab","content":"ba9876543210"},"success":"ok"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(OpRegisterDomain, 200, body); err != nil {
			b.Fatal(err)
		}
	}
}
