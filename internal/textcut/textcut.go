// Package textcut cuts text to a length without splitting a grapheme: the
// one place where mailbot shortens what people or APIs wrote, for echoing
// it in an error, a reply or a Slack message within its limits.
package textcut

import (
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
)

// Ellipsis marks a cut.
const Ellipsis = "…"

// Runes returns s when it has at most n runes; otherwise s cut so that,
// with the ellipsis that ends it, it has at most n runes. The cut falls
// between graphemes (a base keeps its combining marks, a flag its two
// halves, an emoji sequence its joined parts), and spaces before the
// ellipsis are dropped.
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return strings.TrimRight(Head(s, n-1, OneRune), " ") + Ellipsis
}

// OneRune counts every rune as one: lengths in runes.
func OneRune(rune) int { return 1 }

// UTF16 counts a rune as its UTF-16 code units: lengths as JavaScript
// and Slack count them.
func UTF16(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}

// Head returns the longest start of s, ending between graphemes, whose
// runes weigh at most n by width.
func Head(s string, n int, width func(rune) int) string {
	cut, used := 0, 0
	for cut < len(s) {
		r, size := utf8.DecodeRuneInString(s[cut:])
		if used+width(r) > n {
			break
		}
		used, cut = used+width(r), cut+size
	}
	return s[:GraphemeStart(s, cut)]
}

// GraphemeStart returns the start of the grapheme of s that holds byte i:
// i itself when a grapheme starts there (or i is 0 or len(s)), else the
// nearest boundary before it.
func GraphemeStart(s string, i int) int {
	if i <= 0 || i >= len(s) {
		return max(0, min(i, len(s)))
	}
	start := 0
	for g := graphemes.FromString(s); g.Next() && g.Start() <= i; {
		start = g.Start()
	}
	return start
}
