package dnscheck

import (
	"slices"
	"strconv"
	"strings"
)

// spfVersion starts every SPF record (RFC 7208 §4.5).
const spfVersion = "v=spf1"

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

// spfRule is what a domain's SPF record must authorise: the provider's
// SPF domain, named by include: or redirect= (Yandex: _spf.yandex.net),
// or the provider's mail host (mailcow), named by a:, include: or
// redirect=, or authorised by mx while the domain's MX names it.
type spfRule struct {
	target string // lower case, without a trailing dot
	host   bool   // target is a host: a: and mx count too
	domain string // the domain checked, for mx:<domain>
}

// spfVerdict is what an SPF record lets the target do.
type spfVerdict int

const (
	spfNo   spfVerdict = iota // the target may not send
	spfYes                    // the target may send
	spfByMX                   // the target may send while the domain's MX names it
)

// verdict says whether rec lets the target send: a mechanism naming it
// that passes ("+" or no qualifier) before any "all" mechanism, or, in a
// record without "all", a redirect to it (RFC 7208 §5, §6.1: "all" makes a
// redirect void, and terms after "all" are never evaluated). For a host,
// a passing mx before "all" authorises it through the MX records.
func (r spfRule) verdict(rec string) spfVerdict {
	redirect, byMX := false, false
	for _, term := range spfTerms(rec) {
		t := strings.ToLower(term)
		if r.passes(t) {
			return spfYes
		}
		if strings.TrimLeft(t, "+-~?") == "all" {
			return mxVerdict(byMX)
		}
		redirect = redirect || r.redirects(t)
		byMX = byMX || r.host && r.isMX(t)
	}
	if redirect {
		return spfYes
	}
	return mxVerdict(byMX)
}

// mxVerdict is spfByMX when a passing mx came first, else spfNo.
func mxVerdict(byMX bool) spfVerdict {
	if byMX {
		return spfByMX
	}
	return spfNo
}

// passes reports whether the lower-case term t is a passing mechanism
// that names the target.
func (r spfRule) passes(t string) bool {
	t = strings.TrimPrefix(t, "+")
	return r.names(t)
}

// names reports whether the lower-case mechanism t, without its
// qualifier, is include:<target>, or for a host a:<target> with or
// without a CIDR length.
func (r spfRule) names(t string) bool {
	if v, ok := strings.CutPrefix(t, "include:"); ok {
		return sameName(v, r.target)
	}
	if v, ok := strings.CutPrefix(t, "a:"); ok && r.host {
		v, _, _ = strings.Cut(v, "/")
		return sameName(v, r.target)
	}
	return false
}

// redirects reports whether the lower-case term t is the modifier
// redirect=<target>.
func (r spfRule) redirects(t string) bool {
	v, ok := strings.CutPrefix(t, "redirect=")
	return ok && sameName(v, r.target)
}

// isMX reports whether the lower-case term t is a passing mx mechanism of
// the domain itself: mx, or mx:<domain>, with or without a CIDR length.
func (r spfRule) isMX(t string) bool {
	t, _, _ = strings.Cut(strings.TrimPrefix(t, "+"), "/")
	v, ok := strings.CutPrefix(t, "mx:")
	return t == "mx" || ok && sameName(v, r.domain)
}

// sameName reports whether the lower-case name v, with or without a
// trailing dot, is target.
func sameName(v, target string) bool { return strings.TrimSuffix(v, ".") == target }

// term is the mechanism that authorises the target, as fix puts it first.
func (r spfRule) term() string {
	if r.host {
		return "a:" + r.target
	}
	return "include:" + r.target
}

// recommended is the SPF record to publish where there is none.
func (r spfRule) recommended() string {
	if r.host {
		return spfVersion + " a:" + r.target + " -all"
	}
	return spfVersion + " redirect=" + r.target
}

// fix is rec with a passing mechanism that authorises the target as its
// first term, and without the terms that named the target before (they
// did not work where they were). The other terms keep their order, so
// that whoever else sends for the domain still may.
func (r spfRule) fix(rec string) string {
	var b strings.Builder
	b.WriteString(spfVersion + " " + r.term())
	for _, term := range spfTerms(rec) {
		t := strings.ToLower(term)
		if r.redirects(t) || r.names(strings.TrimLeft(t, "+-~?")) {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(term)
	}
	return b.String()
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
