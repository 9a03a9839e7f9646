package commands

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCleanReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "new hire, starts Monday", "new hire, starts Monday"},
		{"empty", "", ""},
		{"entities decoded once", "R&amp;D &lt;3 &gt; x", "R&D <3 > x"},
		{"channel", "ping <!channel> now", "ping @ channel now"},
		{"here with label", "<!here|here> hi", "@ here hi"},
		{"everyone", "<!everyone>", "@ everyone"},
		{"group with label", "for <!subteam^S0614TZR7|@ops-team>", "for @ ops-team"},
		{"group without label", "for <!subteam^S0614TZR7>", "for @ usergroup"},
		{"user with label", "ask <@U123|ann>", "ask @ ann"},
		{"user without label", "ask <@U123>", "ask @ U123"},
		{"channel link", "see <#C123|ops>", "see #ops"},
		{"channel link without label", "see <#C123>", "see #C123"},
		{"date with fallback", "by <!date^1392734382^{date_short}|Feb 18, 2014>", "by Feb 18, 2014"},
		{"date without fallback", "by <!date^1392734382^{date_short}>", "by (a date)"},
		{"link keeps its label", "see <https://evil.example/x|docs.example.com>", "see docs.example.com"},
		{"bare link keeps its URL", "see <https://docs.example.com/a?b=1&amp;c=2>", "see https://docs.example.com/a?b=1&c=2"},
		{"mailto keeps its label", "mail <mailto:a@b.com|a@b.com>", "mail a@b.com"},
		{"mailto without label", "mail <mailto:a@b.com>", "mail a@b.com"},
		{"bare mentions", "@channel @here @everyone @ops-team", "@ channel @ here @ everyone @ ops-team"},
		{"mention after punctuation", "(@here) x.@channel", "(@ here) x.@ channel"},
		{"e-mail untouched", "from alice@example.com", "from alice@example.com"},
		{"lone at", "meet @ 5pm", "meet @ 5pm"},
		{"typed form stays text", "&lt;!channel&gt; &lt;@U1&gt;", "< !channel> < @ U1>"},
		{"typed link stays text", "&lt;http://x|y&gt;", "< http://x|y>"},
		{"typed entity stays text", "&amp;lt;b&amp;gt;", "& lt;b& gt;"},
		{"lone angle brackets", "a < b > c <d", "a < b > c <d"},
		{"unclosed forms defused", "<!channel <@U1 <#C1 <http://x|y", "< !channel < @ U1 < #C1 < http://x|y"},
		{"unknown form is text", "<b>", "<b>"},
		{"bidi override removed", "abc\u202Edcba\u202C", "abcdcba"},
		{"isolates and marks removed", "\u2066x\u2069\u200Ey\u200F\u061Cz", "xyz"},
		{"zero-width removed", "ch\u200Ban\u200Cn\u200Del\u2060\uFEFF\u00AD\u180E", "channel"},
		{"zero-width does not hide a mention", "@\u200Bchannel", "@ channel"},
		{"tags removed", "flag\U000E0067\U000E0062\U000E007F", "flag"},
		{"controls and white space", " a\tb\n\nc\x00d\x7fe\u0085f\u2028g\u00A0h ", "a b c d e f g h"},
		{"invalid UTF-8 dropped", "a\xffb\xc3", "ab"},
		{"emoji variation selector kept", "I \u2764\uFE0F it", "I \u2764\uFE0F it"},
		{"variation selector runs dropped", "\u2764\uFE0F\uFE0F\U000E0100\U000E0101", "\u2764\uFE0F"},
		{"variation selector after ASCII dropped", "@\uFE0Fhere a\uFE0F", "@ here a"},
		{"form spans spaces", "<@U1|ann smith> ok", "@ ann smith ok"},
	} {
		if got := CleanReason(tc.in); got != tc.want {
			t.Errorf("%s: CleanReason(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestCleanReasonLength(t *testing.T) {
	t.Parallel()
	at := strings.Repeat("x", MaxReasonRunes)
	for _, tc := range []struct{ name, in, want string }{
		{"at the limit", at, at},
		{"one over", at + "y", strings.Repeat("x", MaxReasonRunes-1) + "…"},
		{"multi-byte", strings.Repeat("ж", MaxReasonRunes+10), strings.Repeat("ж", MaxReasonRunes-1) + "…"},
		{"space before the cut", strings.Repeat("x", MaxReasonRunes-2) + " yy", strings.Repeat("x", MaxReasonRunes-2) + "…"},
		{"combining mark stays with its base", strings.Repeat("x", MaxReasonRunes-2) + "e\u0301zz", strings.Repeat("x", MaxReasonRunes-2) + "…"},
		{"flag not split", strings.Repeat("x", MaxReasonRunes-2) + "\U0001F1EB\U0001F1F7z", strings.Repeat("x", MaxReasonRunes-2) + "…"},
		{"defusing counts", strings.Repeat("@a ", 200), strings.Repeat("@ a ", 124) + "@ a…"},
	} {
		got := CleanReason(tc.in)
		if got != tc.want {
			t.Errorf("%s: CleanReason(…) = %q, want %q", tc.name, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > MaxReasonRunes {
			t.Errorf("%s: %d characters, more than %d", tc.name, n, MaxReasonRunes)
		}
	}
}

// FuzzCleanReason checks the promises of CleanReason on any input: valid
// UTF-8, one trimmed line, no mention Slack could parse, no form, no
// entity, no invisible or direction-changing character, bounded length,
// idempotent.
func FuzzCleanReason(f *testing.F) {
	for _, s := range []string{
		"<!channel> <!here|here> <@U1|ann> <#C1|ops> <!subteam^S1|@t>",
		"<http://a.example|b.example> <mailto:a@b.c|a@b.c> &lt;!here&gt; &amp;amp;",
		"@channel x@here\u200B@everyone \u202Eabc \U000E0041 \u2764\uFE0F\uFE0F",
		strings.Repeat("é\u0301", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := CleanReason(in)
		if err := checkCleanReason(out); err != nil {
			t.Fatalf("CleanReason(%q) = %q: %v", in, out, err)
		}
		if again := CleanReason(out); again != out {
			t.Fatalf("CleanReason is not idempotent on %q: %q, then %q", in, out, again)
		}
	})
}

var (
	// slackMention is a mention as Slack could parse it from bare text: an
	// "@" that does not follow an ASCII letter or digit, then a name.
	slackMention = regexp.MustCompile(`(^|[^A-Za-z0-9])@[\p{L}\p{N}_.-]`)
	// slackSpecial is @channel, @here or @everyone anywhere.
	slackSpecial = regexp.MustCompile(`(?i)@(channel|here|everyone|group)`)
	// slackLink is the start of a link form, closed or not: <scheme:
	slackLink = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9+.-]*:`)
)

// checkCleanReason states, independently of the code under test, what
// clean text is.
func checkCleanReason(s string) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("not valid UTF-8")
	case utf8.RuneCountInString(s) > MaxReasonRunes:
		return fmt.Errorf("%d characters", utf8.RuneCountInString(s))
	case strings.TrimSpace(s) != s || strings.Contains(s, "  "):
		return fmt.Errorf("not trimmed and collapsed")
	case strings.Contains(s, "<!") || strings.Contains(s, "<@") || strings.Contains(s, "<#"):
		return fmt.Errorf("a mention form survives")
	case slackMention.MatchString(s):
		return fmt.Errorf("a mention survives: %q", slackMention.FindString(s))
	case slackLink.MatchString(s):
		return fmt.Errorf("a link form survives: %q", slackLink.FindString(s))
	case strings.Contains(s, "&amp;") || strings.Contains(s, "&lt;") || strings.Contains(s, "&gt;"):
		return fmt.Errorf("an entity survives")
	}
	if m := slackSpecial.FindStringIndex(s); m != nil && (m[0] == 0 || !isASCIIAlnumByte(s[m[0]-1])) {
		return fmt.Errorf("a special mention survives at %d", m[0])
	}
	prev := ' '
	for _, r := range s {
		if err := checkReasonRune(r, prev); err != nil {
			return err
		}
		prev = r
	}
	return nil
}

// checkReasonRune refuses controls, format characters (bidi, zero-width,
// tags), default-ignorable code points, U+FFFD, and variation selectors
// that do not follow a non-ASCII character.
func checkReasonRune(r, prev rune) error {
	switch {
	case r == utf8.RuneError:
		return fmt.Errorf("U+FFFD survives")
	case unicode.IsControl(r) || (unicode.IsSpace(r) && r != ' '):
		return fmt.Errorf("control or white space %U survives", r)
	case strings.ContainsRune("\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C", r):
		return fmt.Errorf("bidi control %U survives", r)
	case strings.ContainsRune("\u200B\u200C\u200D\u2060\u2061\u2062\u2063\u2064\uFEFF\u180E\u00AD", r), 0xE0000 <= r && r <= 0xE007F:
		return fmt.Errorf("zero-width character %U survives", r)
	case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
		return fmt.Errorf("invisible character %U survives", r)
	case unicode.Is(unicode.Variation_Selector, r) && (prev < 0x80 || unicode.Is(unicode.Variation_Selector, prev)):
		return fmt.Errorf("variation selector %U after %U", r, prev)
	}
	return nil
}

func isASCIIAlnumByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
