package mailcowsim

import (
	"strings"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The sandboxes' patterns are compiled when first used, not at start:
// mailbot serve links the sandboxes (for mailbot sim and the shell) and
// never uses them, and these patterns' programs weigh about 130 KB.

// domainPattern is mailcow's is_valid_domain_name rule without its
// look-aheads (checked in validDomain): labels of letters, digits and '-'
// ending in a letter or digit, at least two labels (the last one too:
// punycode's "xn--p1ai" is a top-level domain).
var domainPattern = simkit.Pattern{Expr: `^(?:[a-z0-9-]{0,62}[a-z0-9]\.)+[a-z0-9-]{0,62}[a-z0-9]$`}

// localPartPattern is the sandbox's rule for a local part (see the
// package doc).
var localPartPattern = simkit.Pattern{Expr: `^[a-z0-9_+-](?:[a-z0-9._+-]{0,62}[a-z0-9_+-])?$`}

// canonicalDomain is name as mailcow keeps it: trimmed, lower case.
func canonicalDomain(name string) string {
	return strings.ToLower(strings.TrimSpace(name))
}

// validDomain applies mailcow's domain rule to a canonical name.
func validDomain(name string) bool {
	if len(name) > 253 || !domainPattern.Re().MatchString(name) {
		return false
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if strings.HasPrefix(l, "-") {
			return false
		}
	}
	return strings.Trim(labels[len(labels)-1], "0123456789") != ""
}

func validLocalPart(local string) bool { return localPartPattern.Re().MatchString(local) }

// validAddress is an address of a valid local part and domain.
func validAddress(address string) bool {
	local, name, ok := strings.Cut(address, "@")
	return ok && validLocalPart(local) && validDomain(name)
}
