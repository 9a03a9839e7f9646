package commands

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/idna"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/internal/dnsname"
)

// Limits of domain names (RFC 1035 §2.3.4) and of mailbox names (the real
// service's rules).
const (
	// maxExistingLoginLen bounds the syntax of a user name: the local part
	// of an address (RFC 5321 §4.5.3.1.1).
	maxExistingLoginLen = 64
)

// NormalizeDomain checks a domain name and returns it lower case, in
// ASCII (punycode), without a trailing dot (the rule of internal/dnsname).
func NormalizeDomain(s string) (string, error) { return dnsname.Normalize(s) }

// displayDomain is the Unicode name, followed by its ASCII (punycode) form when the
// name is internationalised: "xn--e1afmkfd.xn--p1ai (пример.рф)".
func displayDomain(ascii string) string {
	if !strings.Contains(ascii, "xn--") {
		return ascii
	}
	u, err := idna.Display.ToUnicode(ascii)
	if err != nil || u == ascii {
		return ascii
	}
	return u + " (" + ascii + ")"
}

// CheckDomainPatterns checks MAILBOT_DOMAINS patterns: domain names and
// *.suffix.
func CheckDomainPatterns(patterns []string) error {
	_, err := normalizePatterns(patterns)
	return err
}

// normalizePatterns returns the patterns with each name normalised.
func normalizePatterns(patterns []string) ([]string, error) {
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		name, wild := strings.CutPrefix(strings.TrimSpace(p), "*.")
		d, err := NormalizeDomain(name)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %v", p, err)
		}
		if wild {
			d = "*." + d
		}
		out = append(out, d)
	}
	return out, nil
}

// allowed reports whether domain matches one of the normalised patterns: an
// exact name, or *.suffix for the subdomains of suffix (not suffix itself).
// No patterns allow every domain.
func allowed(patterns []string, domain string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if suffix, ok := strings.CutPrefix(p, "*."); ok {
			if strings.HasSuffix(domain, "."+suffix) {
				return true
			}
		} else if domain == p {
			return true
		}
	}
	return false
}

// normalizeLogin checks the syntax of a user name, whatever the
// action, and returns it lower case: any user name of Latin letters,
// digits, '.', '_', '+' and '-' up to 64 characters, not starting or
// ending with '.' and without "..". It lets through no character that
// could change an API request's path or query. The selected provider's
// own rule (checkLogin) then applies to every action alike.
func normalizeLogin(_ Action, s string) (string, error) {
	return existingLogin(strings.ToLower(s))
}

// loginChecker is a provider that states its own rule of user names
// (CheckLogin returns why a name breaks it, in words, or nil).
type loginChecker interface {
	CheckLogin(login string) error
}

// checkLogin checks login by the rule of domain's provider, the same for
// every action: its own, or, for a provider that states none, the
// strictest (apiclient.StrictLogin).
func (c *policyService) checkLogin(domain, login string) error {
	if lc, ok := providerAs[loginChecker](c.at(domain)); ok {
		return lc.CheckLogin(login)
	}
	return apiclient.StrictLogin(login)
}

// existingLogin is normalizeLogin's rule for a mailbox that exists.
func existingLogin(s string) (string, error) {
	switch {
	case s == "":
		return "", errors.New("it is empty")
	case len(s) > maxExistingLoginLen:
		return "", fmt.Errorf("it is longer than %d characters", maxExistingLoginLen)
	case s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, ".."):
		return "", errors.New("it may not start or end with '.', nor hold '..'")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			return "", errors.New("it may hold only Latin letters, digits, '.', '_', '+' and '-'")
		}
	}
	return s, nil
}
