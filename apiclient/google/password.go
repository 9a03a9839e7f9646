package google

import (
	"fmt"
)

// Google's password rules for users: any ASCII, 8 to 100 characters [doc:
// users resource].
const (
	MinPasswordLen = 8
	MaxPasswordLen = 100
)

// ErrPasswordRules is a password Google refuses; it does not carry the
// password. (A value of its own type, not fmt.Errorf's: no initialiser
// runs for it in every process.)
var ErrPasswordRules error = passwordRules{}

type passwordRules struct{}

func (passwordRules) Error() string {
	return fmt.Sprintf("a Google Workspace password is %d to %d ASCII characters", MinPasswordLen, MaxPasswordLen)
}

// CheckPassword checks password against Google's rules.
func CheckPassword(password string) error {
	if len(password) < MinPasswordLen || len(password) > MaxPasswordLen {
		return ErrPasswordRules
	}
	for i := 0; i < len(password); i++ {
		if password[i] < 0x20 || password[i] > 0x7e {
			return ErrPasswordRules
		}
	}
	return nil
}
