package y360sim

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The patterns are compiled when first used, not at start (see
// mailcowsim's names.go).

// hostLabel is one label of an ASCII host name (RFC 1123 §2.1).
var hostLabel = simkit.Pattern{Expr: `^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`}

// canonicalDomain returns name in lower case without a trailing dot, and
// whether it is an ASCII host name of two labels or more, at most 253
// characters, whose last label starts with a letter.
func canonicalDomain(name string) (string, bool) {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	labels := strings.Split(name, ".")
	if len(name) > 253 || len(labels) < 2 {
		return name, false
	}
	for _, l := range labels {
		if !hostLabel.Re().MatchString(l) {
			return name, false
		}
	}
	last := labels[len(labels)-1]
	return name, last[0] >= 'a' && last[0] <= 'z'
}

// nicknameRule is the sandbox's rule for a nickname (see the package doc).
var nicknameRule = simkit.Pattern{Expr: `^[a-z]([a-z0-9._-]{0,28}[a-z0-9])?$`}

// passwordRule is the sandbox's rule for a password (see the package doc).
var passwordRule = simkit.Pattern{Expr: `^[A-Za-z0-9!@#$%^&*()_+:;,.-]{6,20}$`}

// passwordRuleText is the 400 message of a refused password: the rule.
const passwordRuleText = "password must be 6 to 20 characters: Latin letters, digits and !@#$%^&*()_-+:;,. and not the nickname"

// passwordOK reports whether the sandbox accepts password for nickname.
func passwordOK(nickname, password string) bool {
	return passwordRule.Re().MatchString(password) && !strings.EqualFold(password, nickname)
}

// hex16 returns 16 random lowercase hex characters.
func hex16() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand documents it)
	return hex.EncodeToString(b)
}

// randomText returns n random characters of base32.
func randomText(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(rand.Text())
	}
	return b.String()[:n]
}
