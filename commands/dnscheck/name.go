package dnscheck

import (
	"strings"

	"github.com/mailbot/mailbot/internal/dnsname"
)

// normaliseDomain returns domain in lower case without a trailing dot, and
// whether it is a plausible host name to look up: at least two labels of
// ASCII letters, digits and inner hyphens, 1 to 63 characters each, at most
// 253 in all, and a last label that is not all digits (not an IP address).
// The caller validated the domain already; this is defence in depth, so
// that nothing odd ever reaches a DNS query or the checklist's text.
func normaliseDomain(domain string) (string, bool) {
	d := strings.ToLower(strings.TrimSuffix(domain, "."))
	if dnsname.Check(d) != nil {
		return "", false
	}
	return d, true
}

// recordName is the fully qualified name of a record at rel below domain
// ("" for the apex), and whether it is a valid name to look up: labels of
// a host name, or such a label after one underscore ("_domainkey"), the
// whole at most 253 characters.
func recordName(domain, rel string) (string, bool) {
	rel = strings.ToLower(strings.TrimSuffix(rel, "."))
	if rel == "" {
		return domain + ".", true
	}
	for _, l := range strings.Split(rel, ".") {
		if dnsname.CheckLabel(strings.TrimPrefix(l, "_")) != nil {
			return "", false
		}
	}
	name := rel + "." + domain
	if len(name) > dnsname.MaxNameLen {
		return "", false
	}
	return name + ".", true
}
