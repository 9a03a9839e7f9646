package dnscheck

import (
	"slices"
	"strconv"
	"strings"
)

// The SPF policy the service asks for (RFC 7208), and how it is published.
const (
	spfVersion     = "v=spf1"
	spfTarget      = "_spf.yandex.net"
	spfInclude     = "include:" + spfTarget
	spfRecommended = spfVersion + " redirect=" + spfTarget
)

// maxTXTString is the most bytes one character-string of a TXT record holds.
const maxTXTString = 255

// isSPF reports whether a TXT record is an SPF record: it starts with
// "v=spf1" in any letter case, followed by a space or nothing (RFC 7208
// §4.5), so that "v=spf10" is not one.
func isSPF(txt string) bool {
	if len(txt) < len(spfVersion) || !strings.EqualFold(txt[:len(spfVersion)], spfVersion) {
		return false
	}
	return len(txt) == len(spfVersion) || txt[len(spfVersion)] == ' '
}

// spfTerms splits the terms of an SPF record after its version at spaces,
// the only separator RFC 7208 §4.6.1 allows; a record that is not SPF has
// none.
func spfTerms(rec string) []string {
	if !isSPF(rec) {
		return nil
	}
	terms := strings.Split(rec[len(spfVersion):], " ")
	return slices.DeleteFunc(terms, func(t string) bool { return t == "" })
}

// spfAuthorises reports whether the SPF record rec lets the service's
// servers send: an include of _spf.yandex.net that passes ("+" or no
// qualifier) before any "all" mechanism, or, in a record without "all", a
// redirect to _spf.yandex.net (RFC 7208 §5, §6.1: "all" makes a redirect
// void, and terms after "all" are never evaluated).
func spfAuthorises(rec string) bool {
	redirect := false
	for _, term := range spfTerms(rec) {
		t := strings.ToLower(term)
		switch {
		case t == spfInclude || t == spfInclude+"." || t == "+"+spfInclude || t == "+"+spfInclude+".":
			return true
		case strings.TrimLeft(t, "+-~?") == "all":
			return false
		case isServiceRedirect(t):
			redirect = true
		}
	}
	return redirect
}

// fixSPF is rec with a passing include of _spf.yandex.net as its first
// term, and without the terms that named _spf.yandex.net before (they did
// not work where they were). The other terms keep their order, so that
// whoever else sends for the domain still may.
func fixSPF(rec string) string {
	var b strings.Builder
	b.WriteString(spfVersion + " " + spfInclude)
	for _, term := range spfTerms(rec) {
		t := strings.ToLower(term)
		if isServiceRedirect(t) || strings.TrimSuffix(strings.TrimLeft(t, "+-~?"), ".") == spfInclude {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(term)
	}
	return b.String()
}

// isServiceRedirect reports whether the lower-case term t is the modifier
// redirect=_spf.yandex.net (with or without a trailing dot).
func isServiceRedirect(t string) bool {
	return strings.TrimSuffix(t, ".") == "redirect="+spfTarget
}

// quoteTXT renders s as the character-strings of a TXT record in a zone
// file: each in double quotes, at most 255 bytes of s apiece, with '"' and
// '\' escaped and every byte outside printable ASCII written as \DDD. The
// result is safe to show anywhere and pastes back to exactly s.
func quoteTXT(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2 + len(s)/maxTXTString*3)
	for {
		n := min(len(s), maxTXTString)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		writeQuoted(&b, s[:n])
		s = s[n:]
		if len(s) == 0 {
			return b.String()
		}
	}
}

// writeQuoted writes s to b as one quoted character-string.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c > '~':
			b.WriteByte('\\')
			d := strconv.Itoa(int(c))
			b.WriteString(strings.Repeat("0", 3-len(d)))
			b.WriteString(d)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
