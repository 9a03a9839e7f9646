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

// validSecretName reports whether "yamail-" + name is one valid DNS label.
func validSecretName(name string) bool {
	return dnsname.CheckLabel(verifyPrefix+strings.ToLower(name)) == nil
}
