package commands

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// tokenKind says what Slack made of a word.
type tokenKind int

// token is one word of the text; a Slack form <…> is one word even with
// spaces inside.
type token struct {
	raw        string
	start, end int // byte offsets in the text
}

// arg is a word as a plain value.
type arg struct {
	text string
	kind tokenKind
}

// tokenize splits text at white space outside Slack's <…> forms.
func tokenize(text string) []token {
	var toks []token
	start, inForm := -1, false
	for i, r := range text {
		switch {
		case start < 0 && !unicode.IsSpace(r):
			start, inForm = i, r == '<'
		case start >= 0 && r == '<':
			inForm = true
		case start >= 0 && r == '>':
			inForm = false
		case start >= 0 && !inForm && unicode.IsSpace(r):
			toks = append(toks, token{raw: text[start:i], start: start, end: i})
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, token{raw: text[start:], start: start, end: len(text)})
	}
	return toks
}

// value unwraps a word where a domain or an address may stand: Slack's
// mailto and http forms become their text, entities are decoded, and
// anything else in angle brackets (mentions, channel links, @here) is refused.
func (t token) value(command, fix string) (arg, error) {
	s := t.raw
	if !strings.ContainsAny(s, "<>") {
		return arg{text: unescape(s)}, nil
	}
	refuse := func(problem string) (arg, error) {
		return arg{}, &UsageError{Command: command, Problem: problem, Fix: fix}
	}
	if s[0] != '<' || s[len(s)-1] != '>' || strings.Count(s, "<") != 1 || strings.Count(s, ">") != 1 {
		return refuse(fmt.Sprintf("%q mixes text and Slack formatting; type the domain or address as plain text.", trunc(cleanText(s), 60)))
	}
	target, label, _ := strings.Cut(s[1:len(s)-1], "|")
	target, label = unescape(target), unescape(label)
	switch {
	case strings.HasPrefix(target, "@"):
		return refuse(fmt.Sprintf("%s is a mention of a person, not a domain or an address.", cleanText(s)))
	case strings.HasPrefix(target, "#"):
		return refuse(fmt.Sprintf("%s is a channel, not a domain or an address.", cleanText(s)))
	case strings.HasPrefix(target, "!"):
		return refuse(fmt.Sprintf("%s is a special mention, not a domain or an address.", cleanText(s)))
	case hasPrefixFold(target, "mailto:"):
		addr := target[len("mailto:"):]
		if label != "" && !strings.EqualFold(label, addr) {
			return refuse(fmt.Sprintf("The link %q points to %q; type the address as plain text.", trunc(label, 60), trunc(addr, 60)))
		}
		return arg{text: addr, kind: kindEmail}, nil
	case hasPrefixFold(target, "http://"), hasPrefixFold(target, "https://"):
		return linkValue(target, label, refuse)
	}
	return refuse(fmt.Sprintf("%q is Slack formatting mailbot does not understand; type plain text.", trunc(cleanText(s), 60)))
}

// linkValue is the host of <http://b.com|b.com>: a link to a bare domain
// whose text, if any, is that domain.
func linkValue(target, label string, refuse func(string) (arg, error)) (arg, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" || u.User != nil || u.Port() != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return refuse(fmt.Sprintf("%q is a web address, not a domain; type the domain alone, such as example.com.", trunc(target, 80)))
	}
	host := u.Hostname()
	if label != "" && !strings.EqualFold(label, host) && !strings.EqualFold(label, target) {
		return refuse(fmt.Sprintf("The link %q points to %q; type the domain as plain text.", trunc(label, 60), trunc(host, 60)))
	}
	return arg{text: host, kind: kindLink}, nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// unescape decodes the three entities Slack escapes. Each begins with
// '&': text without one is returned as it is, without the replacer's
// allocations (most words of most commands).
func unescape(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return entities.Replace(s)
}
