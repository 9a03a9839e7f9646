package commands

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mailbot/mailbot/internal/textcut"
)

// MaxReasonRunes bounds a cleaned reason, in characters (runes), ellipsis
// included, so that a reason can never blow up a message.
const MaxReasonRunes = 500

// CleanReason turns free text that a person typed, as Slack sends it
// (with its <…> forms and its &amp; &lt; &gt; entities), into one line of
// plain text that is safe anywhere, escaped or not:
//
//   - Slack's forms become the text they show: <@U1|ann> "@ ann",
//     <#C1|ops> "#ops", <!here> "@ here", <!subteam^S1|@team> "@ team",
//     <!date^…|fallback> its fallback, <http://x|label> its label alone,
//     <http://x> the URL text, <mailto:a@b|a@b> the label.
//   - A mention that Slack could parse from bare text (@channel, @here,
//     @everyone, a user group's or a person's handle) is written with a
//     space after the "@": "@ channel". It stays visible and readable, in
//     ASCII, and no Slack parser (mrkdwn with verbatim false, parse=full,
//     link_names) takes "@ name" for a mention. An "@" after an ASCII
//     letter or digit is left alone, so e-mail addresses stay whole.
//   - Text that would form a mention, a link or an entity again once
//     decoded (someone typed "&lt;!channel&gt;" or "&amp;lt;") gets a
//     space after its "<" or "&": "< !channel>", "& lt;".
//   - Direction controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
//     U+061C), zero-width and invisible characters (U+200B-U+200D,
//     U+2060-U+2064, U+FEFF, U+180E, U+00AD, the tags block) and every
//     other format character (category Cf) or default-ignorable code point
//     are removed, as are invalid UTF-8 bytes and U+FFFD. A variation
//     selector is kept only right after a non-ASCII character that has
//     none (the emoji form of ❤️), so that runs of them cannot hide text.
//   - Control characters and runs of white space become one space; the
//     result is trimmed.
//   - The result is cut to [MaxReasonRunes] characters with an ellipsis,
//     never inside a character and, where cheap, not inside a grapheme.
//
// CleanReason is idempotent: CleanReason(CleanReason(s)) == CleanReason(s).
func CleanReason(s string) string {
	s = decodeSlack(s)
	s = keepVisible(s)
	s = defuse(s)
	return textcut.Runes(s, MaxReasonRunes)
}

// decodeSlack replaces Slack's forms by their text and decodes the three
// entities, in one pass, so that decoded text is never decoded again.
func decodeSlack(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			if inner, n, ok := slackForm(s[i:]); ok {
				b.WriteString(formShown(inner))
				i += n
				continue
			}
		case '&':
			if c, n, ok := entity(s[i:]); ok {
				b.WriteByte(c)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// slackForm reports whether s starts with one of Slack's forms: "<", then a
// mention (@, #, !) or a URL scheme, up to the next ">" with no "<" before
// it. It returns the inside of the form and the form's length in bytes.
func slackForm(s string) (inner string, n int, ok bool) {
	end := strings.IndexAny(s[1:], "<>")
	if end < 0 || s[1+end] != '>' {
		return "", 0, false
	}
	inner = s[1 : 1+end]
	if !formStart(inner) {
		return "", 0, false
	}
	return inner, end + 2, true
}

// hasScheme reports whether s starts with a URL scheme and its colon.
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// entity decodes one of the entities Slack escapes at the start of s.
func entity(s string) (c byte, n int, ok bool) {
	switch {
	case strings.HasPrefix(s, "&amp;"):
		return '&', 5, true
	case strings.HasPrefix(s, "&lt;"):
		return '<', 4, true
	case strings.HasPrefix(s, "&gt;"):
		return '>', 4, true
	}
	return 0, 0, false
}

// formShown is the text Slack shows for the inside of one form.
func formShown(inner string) string {
	target, label, hasLabel := strings.Cut(inner, "|")
	target, label = decodeSlack(target), decodeSlack(label)
	switch target[0] {
	case '@', '#':
		if hasLabel {
			return target[:1] + strings.TrimLeft(label, "@#")
		}
		return target
	case '!':
		name, _, _ := strings.Cut(target[1:], "^")
		switch {
		case name == "date" && hasLabel:
			return label
		case name == "date":
			return "(a date)"
		case name == "subteam" && hasLabel:
			return "@" + strings.TrimLeft(label, "@")
		case name == "subteam":
			return "@usergroup"
		}
		return "@" + name
	}
	if hasLabel {
		return label
	}
	if hasPrefixFold(target, "mailto:") {
		return target[len("mailto:"):]
	}
	return target
}

// keepVisible drops invisible and direction-changing characters, turns
// control characters and runs of white space into one space, and trims.
func keepVisible(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space, last := false, rune(' ')
	for _, r := range s {
		switch {
		case r == utf8.RuneError || invisible(r):
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space, last = b.Len() > 0, ' '
			continue
		case unicode.Is(unicode.Variation_Selector, r):
			if last < utf8.RuneSelf || unicode.Is(unicode.Variation_Selector, last) {
				continue
			}
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		last = r
	}
	return b.String()
}

// invisible reports whether r is a format character (bidi controls,
// zero-width characters, the soft hyphen, tags…) or another code point
// that is ignorable by default and shows nothing.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		(0xE0000 <= r && r <= 0xE0FFF)
}

// defuse writes a space after every "@" that Slack could read as a
// mention, every "<" that could start a form (closed or not) and every
// "&" that starts an entity.
func defuse(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		var defused bool
		switch s[i] {
		case '@':
			defused = mentionAt(s, i)
		case '<':
			defused = formStart(s[i+1:])
		case '&':
			_, _, defused = entity(s[i:])
		}
		if defused {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// formStart reports whether s, after a "<", could begin a form once a
// ">" follows, even a ">" of other text the reason is later joined with.
func formStart(s string) bool {
	return s != "" && (strings.IndexByte("@#!", s[0]) >= 0 || hasScheme(s))
}

// mentionAt reports whether the "@" at s[i] starts a handle: it is
// followed by a letter, a digit, "_", "-" or ".", and not preceded by an
// ASCII letter or digit (as in an e-mail address).
func mentionAt(s string, i int) bool {
	if i > 0 && isASCIIAlnum(s[i-1]) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i+1:])
	return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-' || r == '.'
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
