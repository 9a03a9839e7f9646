package pddsim

import (
	"strings"
)

// MaxLoginLen is the longest user name the real service accepts.
const MaxLoginLen = 30

// canonicalDomain returns s in lower case without one trailing dot, and
// whether it is a host name (see the package doc).
func canonicalDomain(s string) (string, bool) {
	s = strings.TrimSuffix(s, ".")
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return s, false // before lowering: "K" (U+212A) must not become "k"
		}
	}
	s = strings.ToLower(s)
	if len(s) > 253 {
		return s, false
	}
	labels := strings.Split(s, ".")
	if tld := labels[len(labels)-1]; len(labels) < 2 || tld == "" || !isLetter(tld[:1]) {
		return s, false
	}
	for _, l := range labels {
		if !isLabel(l) {
			return s, false
		}
	}
	return s, true
}

// isLabel reports whether l is a label of RFC 1035 as relaxed by RFC 1123.
func isLabel(l string) bool {
	if len(l) < 1 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// checkLogin returns the user name of login (a user name, or user@domain for
// the domain name) in lower case, or the code of the rule it breaks.
func checkLogin(login, name string) (string, Code) {
	user, dom, ok := strings.Cut(login, "@")
	if ok {
		if d, valid := canonicalDomain(dom); !valid || d != name {
			return "", CodeBadLoginFormat
		}
	}
	n := len(user)
	if n == 0 || !isLetter(user[:1]) || !isAlnum(user[n-1]) {
		return "", CodeBadLoginFormat
	}
	for i := 0; i < n; i++ {
		if c := user[i]; !isAlnum(c) && c != '-' && c != '.' {
			return "", CodeBadLoginFormat
		}
	}
	if n > MaxLoginLen {
		return "", CodeLoginTooLong
	}
	return strings.ToLower(user), ""
}

// isLetter reports whether s is one Latin letter.
func isLetter(s string) bool {
	return len(s) == 1 && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
