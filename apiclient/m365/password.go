package m365

import (
	"fmt"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Microsoft Entra's password rules for users: 8 to 256 characters, no
// Unicode, from at least three of lower case, upper case, digits and
// symbols [doc: entra-docs concept-sspr-policy].
const (
	MinPasswordLen = 8
	MaxPasswordLen = 256
)

// ErrPasswordRules is a password Microsoft refuses; it does not carry the
// password. (A value of its own type, not fmt.Errorf's: no initialiser
// runs for it in every process.)
var ErrPasswordRules error = passwordRules{}

type passwordRules struct{}

func (passwordRules) Error() string {
	return fmt.Sprintf("a Microsoft 365 password is %d to %d ASCII characters from at least three of lower case, upper case, digits and symbols",
		MinPasswordLen, MaxPasswordLen)
}

// CheckPassword checks password against Microsoft's rules.
func CheckPassword(password string) error {
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return ErrPasswordRules
	}
	var lower, upper, digit, symbol int
	for i := 0; i < len(password); i++ {
		switch b := password[i]; {
		case b < 0x20 || b > 0x7e:
			return ErrPasswordRules
		case b >= 'a' && b <= 'z':
			lower = 1
		case b >= 'A' && b <= 'Z':
			upper = 1
		case b >= '0' && b <= '9':
			digit = 1
		default:
			symbol = 1
		}
	}
	if lower+upper+digit+symbol < 3 {
		return ErrPasswordRules
	}
	return nil
}

// checkPassword refuses, before anything is sent, a password Microsoft
// would.
func checkPassword(op apiclient.Op, password string) error {
	return apiclient.RefusePassword(apiclient.ProviderM365, op, password, CheckPassword)
}

// address is login@domain in lower case, refusing a login that is not a
// user name Microsoft accepts.
func address(op apiclient.Op, domain, login string) (string, error) {
	d, err := domainName(op, domain)
	if err != nil {
		return "", err
	}
	if apiclient.LocalPartLogin(strings.ToLower(login)) != nil { // the characters of a userPrincipalName mailbot uses
		return "", refuse(op, apiclient.ReasonInvalid, "not a user name Microsoft 365 accepts (letters, digits, . - _)")
	}
	return strings.ToLower(login) + "@" + d, nil
}

// domainName returns domain in lower case without a trailing dot,
// refusing a name that could change a path, a query or a $filter it is
// put in.
func domainName(op apiclient.Op, domain string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if strings.Trim(d, ".") == "" || !strings.Contains(d, ".") || strings.ContainsAny(d, "/\\?#%@ &='\"()") {
		return "", refuse(op, apiclient.ReasonInvalid, "not a domain name")
	}
	return d, nil
}
