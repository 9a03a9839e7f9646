package dnscheck

import "strings"

// dkimKey returns the public key of a DKIM key record (RFC 6376 §3.6.1):
// the value of its p= tag without whitespace (a base64 value may be
// folded), and whether the record is a tag-list that has a p= tag. A
// tag-spec without "=", or a tag named twice, makes the whole record
// invalid; empty tag-specs (a trailing ";") are allowed.
func dkimKey(txt string) (string, bool) {
	var names []string
	key, ok := "", false
	for _, spec := range strings.Split(txt, ";") {
		if trimWSP(spec) == "" {
			continue
		}
		name, value, found := strings.Cut(spec, "=")
		name = trimWSP(name)
		for _, seen := range names {
			found = found && seen != name
		}
		if !found || name == "" {
			return "", false
		}
		names = append(names, name)
		if name == "p" {
			key, ok = stripWSP(value), true
		}
	}
	return key, ok
}

// wsp holds the whitespace a DKIM tag-list may hold (FWS: spaces, tabs,
// and line breaks).
const wsp = " \t\r\n"

// trimWSP is s without whitespace at either end.
func trimWSP(s string) string { return strings.Trim(s, wsp) }

// stripWSP is s without any whitespace.
func stripWSP(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(wsp, r) {
			return -1
		}
		return r
	}, s)
}
