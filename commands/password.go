package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// maxPasswordTries bounds the regeneration of passwords that miss a class
// of characters; at length 6 about one in eight does, so 100 tries never
// run out in practice.
const maxPasswordTries = 100

// passwordMix is how many digits and symbols a password of length n holds:
// one of each up to 12 characters, two up to 19, three at 20.
func passwordMix(n int) (digits, symbols int) {
	k := 1 + (n-apiclient.MinPasswordLen)/7
	return k, k
}

// newPassword generates a password for the mailbox login@domain of the
// configured length, from crypto randomness (go-password reads
// crypto/rand). It holds lower- and upper-case letters, digits and symbols
// of [apiclient.PasswordSymbols], differs from the user name, and passes
// [apiclient.CheckPassword]; a candidate that does not is thrown away.
func (c *shared) newPassword(login, domain string) (string, error) {
	n := c.cfg.PasswordLength
	digits, symbols := passwordMix(n)
	for range maxPasswordTries {
		pw, err := c.gen.Generate(n, digits, symbols, false, true)
		if err != nil {
			return "", fmt.Errorf("generate password: %w", err)
		}
		if !hasClasses(pw) {
			continue
		}
		if apiclient.CheckPassword(login, pw) != nil || apiclient.CheckPassword(login+"@"+domain, pw) != nil {
			continue
		}
		return pw, nil
	}
	return "", errors.New("generate password: no valid password after many tries")
}

// hasClasses reports whether pw has a lower-case and an upper-case letter, a
// digit and a symbol.
func hasClasses(pw string) bool {
	var lower, upper, digit, symbol bool
	for _, r := range pw {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune(apiclient.PasswordSymbols, r):
			symbol = true
		}
	}
	return lower && upper && digit && symbol
}

// credentials are the fields of n's mailbox and the password pw that a
// run set. The password is written only for the reply's own reader: not
// when the credentials go to someone else (n.Op.For), whose hand-over
// gives them a password of their own.
func credentials(n Notice, pw string) []Field {
	fs := []Field{{Label: "Address", Value: n.Op.Target()}}
	if n.Op.For == "" {
		fs = append(fs, Field{Label: "Password", Value: pw, Secret: true})
	}
	return fs
}
