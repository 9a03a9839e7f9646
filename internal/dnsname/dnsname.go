// Package dnsname is the one rule for what a domain name is (RFC 1035
// §2.3.4, and IDNA for internationalised names), shared by the commands'
// validation and the DNS checklist.
package dnsname

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/idna"
)

// Limits of a domain name in presentation form.
const (
	MaxNameLen  = 253
	MaxLabelLen = 63
)

// Normalize validates a domain name and returns it lower case, in ASCII
// (punycode), without a trailing dot.
//
// Its errors are short and lower case, for a message that puts the
// variable's or the field's name in front; they name the offending label,
// never more.
func Normalize(s string) (string, error) {
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return "", errors.New("empty domain name")
	}
	if isASCII(s) {
		s = strings.ToLower(s)
	} else {
		a, err := idna.Lookup.ToASCII(s)
		if err != nil {
			return "", errors.New("not a valid internationalised domain name")
		}
		s = strings.TrimSuffix(a, ".")
	}
	if err := Check(s); err != nil {
		return "", err
	}
	return s, nil
}

// Check applies RFC 1035 to a lower-case ASCII name: at least two labels,
// each valid ([CheckLabel]), at most [MaxNameLen] characters in all, and
// a top-level label that is not all digits (not an IP address).
func Check(s string) error {
	if len(s) > MaxNameLen {
		return fmt.Errorf("longer than %d characters", MaxNameLen)
	}
	if !strings.Contains(s, ".") {
		return errors.New("needs at least two labels, such as example.com")
	}
	var tld string
	for l := range strings.SplitSeq(s, ".") { // no slice of labels: Check runs on every command
		if err := CheckLabel(l); err != nil {
			return err
		}
		tld = l
	}
	if strings.IndexFunc(tld, notDigit) < 0 {
		return fmt.Errorf("top-level domain %q is all digits", tld)
	}
	return nil
}

// CheckLabel checks one label of a lower-case ASCII name: letters, digits
// and hyphens, 1 to [MaxLabelLen] characters, no hyphen at either end.
func CheckLabel(l string) error {
	switch {
	case l == "":
		return errors.New("has an empty label (two dots in a row, or a leading dot)")
	case len(l) > MaxLabelLen:
		return fmt.Errorf("label %q is longer than %d characters", l[:12]+"…", MaxLabelLen)
	case l[0] == '-' || l[len(l)-1] == '-':
		return fmt.Errorf("label %q starts or ends with a hyphen", l)
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("label %q has a character other than letters, digits and hyphens", l)
		}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// notDigit reports whether r is not an ASCII digit.
func notDigit(r rune) bool { return r < '0' || r > '9' }
