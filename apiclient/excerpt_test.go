package apiclient_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestScrubKeepsGraphemes: a cut falls between graphemes, never between
// a letter and its combining mark, the halves of a flag or the parts of
// an emoji sequence.
func TestScrubKeepsGraphemes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"abcde\u0301fgh", "abcd…"},                  // é as e and a combining acute, across the cut
		{"abcd\U0001F1EB\U0001F1F7xyz", "abcd…"},     // a flag: two regional indicators
		{"abc\U0001F469\u200D\U0001F4BBxyz", "abc…"}, // woman technologist: joined by ZWJ
		{"abcdefgh", "abcde…"},
		{"abcde", "abcde"},
	} {
		if got := apiclient.Scrub(tc.in, 5); got != tc.want {
			t.Errorf("Scrub(%q, 5) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
