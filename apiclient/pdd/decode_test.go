package pdd

import (
	"encoding/json"

	"github.com/mailbot/mailbot/apiclient"

	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSecrets stand for a token and a password in FuzzDecode.
var fuzzSecrets = []string{"TOKEN2345ABCDEFG", "Pa&ss+w%rd;1"}

// fuzzAdapter is an adapter whose token is fuzzSecrets[0].
func fuzzAdapter() *Adapter {
	a, err := NewAdapter(DefaultBaseURL, fuzzSecrets[0])
	if err != nil {
		panic(err)
	}
	return a
}

// succeeded reads "success" as encoding/json reads a field, in any
// letter case and the last one of the document, without the decoder under
// test.
func succeeded(body []byte) bool {
	var a struct{ Success any }
	return json.Unmarshal(body, &a) == nil && a.Success == "ok"
}

// FuzzDecode checks the decoder of answers: it never panics; it succeeds
// exactly for an HTTP 200 PDD success within the size limit; an "error"
// answer is an *apiclient.Error carrying its code, bounded; anything else
// an *apiclient.Error without a code whose message shows an excerpt of the
// body only for a status other than 200; no error carries a secret.
func FuzzDecode(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzDecode.
	a := fuzzAdapter()
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		for _, op := range []apiclient.Op{apiclient.OpRegister, apiclient.OpAdd, apiclient.OpReset, apiclient.OpList} {
			var v map[string]any
			err := settled(a.decode(a.c.WithSecrets(fuzzSecrets...), op, &apiclient.Response{Status: status, Body: body}, &v))
			if err == nil {
				if status != 200 || len(body) > maxBody || !succeeded(body) {
					t.Fatalf("decode(%d, %q) = %v: not a PDD success", status, body, v)
				}
				continue
			}
			var e *apiclient.Error
			switch {
			case !errors.As(err, &e) || e.Op != op || e.Provider != apiclient.ProviderPDD || e.HTTPStatus != status:
				t.Fatalf("decode(%d, %q) error = %#v, want an *apiclient.Error of %s", status, body, err, op)
			case utf8.RuneCountInString(e.Code) > apiclient.MaxCodeLen:
				t.Fatalf("decode(%d, %q): code of %d characters", status, body, utf8.RuneCountInString(e.Code))
			case e.Code != "" && status != 200:
				t.Fatalf("decode(%d, %q): code %q of a status other than 200", status, body, e.Code)
			case e.Code == "" && status == 200 && e.Class != apiclient.ClassUncertain:
				t.Fatalf("decode(200, %q): a garbled answer of class %s, want uncertain", body, e.Class)
			case e.Code == "" && status == 200 && !slices.Contains([]string{reasonNotPDD, reasonTooLarge, "truncated JSON answer",
				"answer is not JSON", "trailing data after the JSON answer", `answer has no "success" of "ok" or "error"`}, e.Message):
				t.Fatalf("decode(200, %q): message %q, want a reason without an excerpt", body, e.Message)
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

func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"domain":"example.com","status":"domain-activate","stage":"owner-check","secrets":{"name":"0123456789ab","content":"ba9876543210"},"success":"ok"}`)
	a := fuzzAdapter()
	b.ReportAllocs()
	for b.Loop() {
		var d domainAnswer
		if err := a.decode(a.c, apiclient.OpRegister, &apiclient.Response{Status: 200, Body: body}, &d); err != nil {
			b.Fatal(err)
		}
	}
}
