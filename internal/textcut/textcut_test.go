package textcut_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/internal/textcut"
)

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"пример", 2, "п…"},
		{"ab", 1, "…"},
		{"ab", 0, ""},
		{"", 0, ""},
		{"ab cd", 4, "ab…"},          // the space before the cut goes
		{"xe\u0301e\u0301", 3, "x…"}, // é as e + combining acute stays whole
		{"a🇫🇷🇩🇪", 3, "a…"},           // a flag is two regional indicators
		{"ab👍🏽c", 4, "ab…"},          // a skin tone stays with its hand
		{"a👩\u200d💻bc", 4, "a…"},     // a joined emoji stays whole
		{"🇫🇷🇩🇪🇮🇹", 4, "🇫🇷…"},         // cut after the first flag, not inside the second
		{"日本語のテキスト", 5, "日本語の…"},     // no grapheme crosses the cut
	} {
		if got := textcut.Runes(tc.s, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestGraphemeStart(t *testing.T) {
	t.Parallel()
	s := "ae\u0301b" // a, e + U+0301 (2 bytes), b
	for _, tc := range []struct{ i, want int }{
		{-1, 0}, {0, 0}, {1, 1}, {2, 1}, {3, 1}, {4, 4}, {5, 5}, {9, 5},
	} {
		if got := textcut.GraphemeStart(s, tc.i); got != tc.want {
			t.Errorf("GraphemeStart(%q, %d) = %d, want %d", s, tc.i, got, tc.want)
		}
	}
}

// FuzzRunes: the result has at most n runes, is s itself or a prefix of
// s followed by the ellipsis, and is valid UTF-8 when s is.
func FuzzRunes(f *testing.F) {
	for _, s := range []string{"", "abc", "e\u0301e\u0301e\u0301", "🇫🇷🇩🇪", "👩\u200d💻 x", "a  b", "\xff\xfe"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		got := textcut.Runes(s, n)
		if c := utf8.RuneCountInString(got); c > max(n, 0) {
			t.Fatalf("Runes(%q, %d) = %q: %d runes", s, n, got, c)
		}
		if got == s {
			return
		}
		if n >= 1 && !strings.HasSuffix(got, textcut.Ellipsis) {
			t.Fatalf("Runes(%q, %d) = %q: cut without an ellipsis", s, n, got)
		}
		if head := strings.TrimSuffix(got, textcut.Ellipsis); !strings.HasPrefix(s, head) {
			t.Fatalf("Runes(%q, %d) = %q: not a prefix of s", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Runes(%q, %d) = %q: invalid UTF-8", s, n, got)
		}
	})
}

// TestHead: the start of s within a weight, between graphemes, by runes
// or by UTF-16 code units (an emoji outside the BMP weighs two).
func TestHead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s     string
		n     int
		utf16 bool
		want  string
	}{
		{"abc", 5, false, "abc"},
		{"abc", 2, false, "ab"},
		{"a😀b", 2, false, "a😀"},
		{"a😀b", 2, true, "a"},
		{"a😀b", 3, true, "a😀"},
		{"ae\u0301x", 2, false, "a"}, // é is two runes: both or none
		{"abc", 0, true, ""},
	} {
		width := textcut.OneRune
		if tc.utf16 {
			width = textcut.UTF16
		}
		if got := textcut.Head(tc.s, tc.n, width); got != tc.want {
			t.Errorf("Head(%q, %d, utf16 %v) = %q, want %q", tc.s, tc.n, tc.utf16, got, tc.want)
		}
	}
}
