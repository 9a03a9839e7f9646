package dnscheck

import "strings"

// Limits of a DNS name in presentation form (RFC 1035 §2.3.4).
const (
	maxNameLen  = 253
	maxLabelLen = 63
)

// normaliseDomain returns domain in lower case without a trailing dot, and
// whether it is a plausible host name to look up: at least two labels of
// ASCII letters, digits and inner hyphens, 1 to 63 characters each, at most
// 253 in all, and a last label that is not all digits (not an IP address).
// The caller validated the domain already; this is defence in depth, so
// that nothing odd ever reaches a DNS query or the checklist's text.
func normaliseDomain(domain string) (string, bool) {
	d := strings.ToLower(strings.TrimSuffix(domain, "."))
	if len(d) == 0 || len(d) > maxNameLen {
		return "", false
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 || allDigits(labels[len(labels)-1]) {
		return "", false
	}
	for _, l := range labels {
		if !validLabel(l) {
			return "", false
		}
	}
	return d, true
}

// validSecretName reports whether "yamail-" + name is one valid DNS label.
func validSecretName(name string) bool {
	return validLabel(verifyPrefix + strings.ToLower(name))
}

// validLabel reports whether l is a host name label: lower-case ASCII
// letters, digits and hyphens, 1 to 63 characters, no hyphen at either end.
func validLabel(l string) bool {
	if len(l) == 0 || len(l) > maxLabelLen || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
