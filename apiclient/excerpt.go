package apiclient

import (
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mailbot/mailbot/internal/textcut"
)

// ExcerptLen is how many characters of a bad body an error shows at most.
const ExcerptLen = 64

// MaxCodeLen bounds a PDD error code as this package hands it out: a code
// that is longer is cut to MaxCodeLen characters, the last an ellipsis.
const MaxCodeLen = 100

// sensitiveWords mark the name of a field whose value is secret: the
// verification secrets (secrets, name, content), a password, a token
// (PddToken included) and their kin. A field whose name contains one, in
// any letter case, loses its value in an excerpt; a field of another name
// that merely looks like one loses it too, which costs only diagnostics.
var sensitiveWords = []string{"secret", "content", "name", "pass", "token", "auth", "key", "cookie", "session"}

// redactedMark stands for a removed value.
const redactedMark = "<redacted>"

// Excerpt returns at most n characters of body fit for an error message:
// every known secret replaced, the value of every field named like a
// secret removed (see [scrub]), and nothing past an encoded or invisible
// character. Only a body that is not an HTTP 200 answer gets an excerpt:
// the PDD API answers 200, and its 200 answers hold the secrets.
func Excerpt(body []byte, n int, secrets ...string) string {
	return Scrub(redact(string(body), secrets), n)
}

// CutCode returns an error code as received, cut to [MaxCodeLen]
// characters, with the same removals as an excerpt.
func CutCode(s string, secrets []string) string {
	s = redact(s, secrets)
	c := Scrub(s, MaxCodeLen)
	if utf8.RuneCountInString(c) > MaxCodeLen {
		c = Scrub(s, MaxCodeLen-1) // room for the ellipsis
	}
	return c
}

// Scrub returns at most n characters of s (and an ellipsis when it had
// more), for a message:
//
//   - the value after a field name holding one of [sensitiveWords] (a JSON
//     "key": value, key=value of a form, key: value) is replaced by
//     <redacted>, whatever the value's shape: a string (until its closing
//     quote, or the end), an object or array (until it is balanced, or the
//     end), or a bare word;
//   - s is cut before an escape that could spell a field name differently
//     (\u of JSON, %XX of a form, &# of HTML) and before a control,
//     format or other invisible character (tab and line breaks become
//     spaces).
//
// It works on the text alone, without parsing it, so malformed and
// truncated JSON is handled like any other text.
func Scrub(s string, n int) string {
	var b strings.Builder
	// Most often all it writes:
	b.Grow(min(len(s), (n+graphemeLookahead)*utf8.UTFMax))
	count, cut := 0, -1 // cut: where the n-th rune ends in b
	emit := func(seg string) {
		for _, r := range seg {
			if r == '\t' || r == '\n' || r == '\r' {
				r = ' '
			}
			if count == n {
				cut = b.Len()
			}
			if count < n+graphemeLookahead {
				b.WriteRune(r)
			}
			count++
		}
	}
	for i := 0; i < len(s) && count < n+graphemeLookahead; {
		if hidesText(s[i:]) || invisibleAt(s, i) {
			if count <= n { // cut here, and before the grapheme it would split
				cut = max(0, b.Len()-(i-textcut.GraphemeStart(s, i)))
			}
			count = max(count, n+1) // show the ellipsis
			break
		}
		if keyEnd, valEnd, ok := sensitiveField(s, i); ok {
			emit(s[i:keyEnd])
			emit(redactedMark)
			i = valEnd
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		emit(s[i : i+size])
		i += size
	}
	return strings.TrimSpace(cutGrapheme(b.String(), cut, count > n))
}

// graphemeLookahead is how many runes past the cut Scrub reads, so that
// the cut can fall between graphemes (textcut decides where they end).
const graphemeLookahead = 8

// cutGrapheme is out cut at byte cut (its end when cut is -1), moved back
// to the start of the grapheme it would split, with an ellipsis; out as it
// is when nothing is cut.
func cutGrapheme(out string, cut int, cutting bool) string {
	if !cutting {
		return out
	}
	if cut < 0 || cut > len(out) {
		cut = len(out)
	}
	return out[:textcut.GraphemeStart(out, cut)] + textcut.Ellipsis
}

// invisibleAt reports whether a control, format or other invisible
// character (but a tab or line break) starts at byte i of s.
func invisibleAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r != '\t' && r != '\n' && r != '\r' && !unicode.IsPrint(r) && r != utf8.RuneError
}

// hidesText reports whether s starts with an escape that may spell
// characters: \u or \U, %XX, or &#.
func hidesText(s string) bool {
	switch {
	case len(s) >= 2 && s[0] == '\\' && (s[1] == 'u' || s[1] == 'U'):
		return true
	case len(s) >= 3 && s[0] == '%' && isHex(s[1]) && isHex(s[2]):
		return true
	case len(s) >= 2 && s[0] == '&' && s[1] == '#':
		return true
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// sensitiveField reports whether a field named like a secret starts at i:
// a sensitive word, the rest of the name, a closing quote, a separator
// (":" or "="; none is needed before a quote, "{" or "["), and a value.
// keyEnd is where the value starts, valEnd where it ends.
func sensitiveField(s string, i int) (keyEnd, valEnd int, ok bool) {
	j, ok := matchWord(s, i)
	if !ok {
		return 0, 0, false
	}
	for j < len(s) && (isAlnum(s[j]) || s[j] == '_' || s[j] == '-' || s[j] == '.') {
		j++
	}
	if j < len(s) && s[j] == '\\' {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	j = skipSpace(s, j)
	sep := j < len(s) && (s[j] == ':' || s[j] == '=')
	if sep {
		j = skipSpace(s, j+1)
	}
	if j >= len(s) || !sep && !strings.ContainsRune(`"'{[\`, rune(s[j])) {
		return 0, 0, false
	}
	end := valueEnd(s, j)
	if end == j {
		return 0, 0, false
	}
	return j, end, true
}

// matchWord returns the end of the sensitive word at i, in any letter
// case (Unicode folding: "ſ" matches "s", the Kelvin sign "k").
func matchWord(s string, i int) (int, bool) {
	if c := s[i] | 0x20; s[i] < utf8.RuneSelf && !strings.ContainsRune("scnptak", rune(c)) {
		return 0, false // no word starts so
	}
	for _, w := range sensitiveWords {
		j, k := i, 0
		for k < len(w) && j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !foldsTo(r, w[k]) {
				break
			}
			j += size
			k++
		}
		if k == len(w) {
			return j, true
		}
	}
	return 0, false
}

// foldsTo reports whether r is the lower-case ASCII letter c in any case.
func foldsTo(r rune, c byte) bool {
	if r < utf8.RuneSelf {
		return byte(r)|0x20 == c
	}
	return strings.EqualFold(string(r), string(rune(c)))
}

// valueEnd returns where the value starting at j ends: after its closing
// quote, after its balancing bracket, or at the first delimiter of a bare
// word; at the end of s when it is not closed.
func valueEnd(s string, j int) int {
	switch c := s[j]; {
	case c == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\''):
		return escapedQuotedEnd(s, j+2, s[j+1])
	case c == '"' || c == '\'':
		return quotedEnd(s, j)
	case c == '{' || c == '[':
		return balancedEnd(s, j)
	}
	k := j
	for k < len(s) && !strings.ContainsRune(" \t\r\n,;&<>\"'}])", rune(s[k])) {
		k++
	}
	return k
}

// quotedEnd returns the end of the quoted string at j, backslash escapes
// included, or len(s).
func quotedEnd(s string, j int) int {
	q := s[j]
	for k := j + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case q:
			return k + 1
		}
	}
	return len(s)
}

// escapedQuotedEnd returns the end of a string inside a string, whose
// content starts at j and whose quotes are escaped (\"): at the quote q
// preceded by 1, 5, 9... backslashes (3, 7... escape a quote inside it), or
// len(s).
func escapedQuotedEnd(s string, j int, q byte) int {
	for k := j; k < len(s); k++ {
		if s[k] != q {
			continue
		}
		run := 0
		for b := k - 1; b >= j && s[b] == '\\'; b-- {
			run++
		}
		if run%4 == 1 {
			return k + 1
		}
	}
	return len(s)
}

// balancedEnd returns the end of the object or array at j, strings inside
// skipped, or len(s).
func balancedEnd(s string, j int) int {
	depth := 0
	for k := j; k < len(s); k++ {
		switch s[k] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return k + 1
			}
		case '"', '\'':
			k = quotedEnd(s, k) - 1
		}
	}
	return len(s)
}

func skipSpace(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// redact replaces in s every secret, as it is and as a form, a URL path or
// a JSON string would encode it, by "<redacted>". A secret of letters,
// digits and "-._~" (a token) is each of its encodings, so it is not
// encoded, and s without it is returned as it is.
func redact(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		forms := [4]string{sec, sec, sec, sec}
		if !unreserved(sec) {
			js, _ := json.Marshal(sec)
			forms = [4]string{sec, url.QueryEscape(sec), url.PathEscape(sec), string(js[1 : len(js)-1])}
		}
		for _, f := range forms {
			s = strings.ReplaceAll(s, f, redactedMark)
		}
	}
	return s
}

// unreserved reports whether s is letters, digits and "-._~" alone: what
// a form, a URL path and a JSON string leave as it is.
func unreserved(s string) bool {
	for i := 0; i < len(s); i++ {
		if !unreservedByte(s[i]) {
			return false
		}
	}
	return true
}

// unreservedByte reports whether c is a letter, a digit or one of "-._~",
// URL's unreserved characters.
func unreservedByte(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}
