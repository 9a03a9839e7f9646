package dnscheck

import (
	"strings"

	"github.com/mailbot/mailbot/internal/dnsname"
)

// dkimDomainKey is the label between a DKIM selector and the domain.
const dkimDomainKey = "._domainkey."

// dkimName is the name of the TXT record of key for domain,
// "<selector>._domainkey.<domain>.", and whether it is a valid name to look
// up: a selector of host name labels, the whole at most 253 characters.
func dkimName(domain string, key *DKIM) (string, bool) {
	sel := strings.ToLower(strings.TrimSuffix(key.Selector, "."))
	for _, l := range strings.Split(sel, ".") {
		if dnsname.CheckLabel(l) != nil {
			return "", false
		}
	}
	name := sel + dkimDomainKey + domain
	if len(name) > dnsname.MaxNameLen {
		return "", false
	}
	return name + ".", true
}

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

// dkimRecord is the TXT record that publishes the RSA public key key.
func dkimRecord(key string) string { return "v=DKIM1; k=rsa; p=" + stripWSP(key) }

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
