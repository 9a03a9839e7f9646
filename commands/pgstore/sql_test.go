package pgstore

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// parseLiteral is the test's own reader of a text[] literal whose
// elements are all quoted, as arrayLiteral writes them (the PostgreSQL
// manual, "Array Value Input").
func parseLiteral(t *testing.T, lit string) []string {
	t.Helper()
	in := []rune(lit)
	if len(in) < 2 || in[0] != '{' || in[len(in)-1] != '}' {
		t.Fatalf("%q is not braced", lit)
	}
	in = in[1 : len(in)-1]
	var out []string
	for i := 0; i < len(in); {
		if len(out) > 0 {
			if in[i] != ',' {
				t.Fatalf("%q: want a comma at %d", lit, i)
			}
			i++
		}
		if i >= len(in) || in[i] != '"' {
			t.Fatalf("%q: want a quote at %d", lit, i)
		}
		var el []rune
		for i++; ; i++ {
			if i >= len(in) {
				t.Fatalf("%q: unterminated element", lit)
			}
			if in[i] == '\\' && i+1 < len(in) {
				i++
				el = append(el, in[i])
				continue
			}
			if in[i] == '"' {
				i++
				break
			}
			el = append(el, in[i])
		}
		out = append(out, string(el))
	}
	return out
}

func FuzzArrayLiteral(f *testing.F) {
	f.Add("U0ADA", "U0BOB", "")
	f.Add(`a"b`, `c\d`, "{x,y}")
	f.Add("NULL", " ", "😀,\"")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, ss := range [][]string{{a}, {a, b}, {a, b, c}} {
			if !validRunes(ss) {
				continue // PostgreSQL refuses invalid UTF-8 (TestTextRoundTrip)
			}
			if got := parseLiteral(t, arrayLiteral(ss)); !slices.Equal(got, ss) {
				t.Fatalf("arrayLiteral(%q) = %q, which reads back as %q", ss, arrayLiteral(ss), got)
			}
		}
		if got := arrayLiteral(nil); got != "{}" {
			t.Fatalf("arrayLiteral(nil) = %q, want {}", got)
		}
	})
}

// validRunes reports whether every string is valid UTF-8.
func validRunes(ss []string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
