package apiclient

import (
	"errors"
	"strings"
)

// PasswordSymbols are the symbols a password may hold besides Latin letters
// and digits (PDD's password rules).
const PasswordSymbols = "!@#$%^&*()_-+:;,."

// Password length limits (PDD's password rules).
const (
	MinPasswordLen = 6
	MaxPasswordLen = 20
)

// Reasons a password breaks PDD's password rules. None carries the password.
var (
	ErrPasswordTooShort = errors.New("password shorter than 6 characters")
	ErrPasswordTooLong  = errors.New("password longer than 20 characters")
	ErrPasswordChars    = errors.New("password has a character other than Latin letters, digits and the symbols " + PasswordSymbols + " alone")
	ErrPasswordIsLogin  = errors.New("password equals the user name")
)

// CheckPassword checks password against PDD's password rules for the
// mailbox login (a user name, or user@domain): 6 to 20 characters; Latin
// letters, digits and [PasswordSymbols] only; different from the user name
// in any letter case.
func CheckPassword(login, password string) error {
	for _, r := range password {
		if !IsPasswordRune(r) {
			return ErrPasswordChars
		}
	}
	switch n := len(password); {
	case n < MinPasswordLen:
		return ErrPasswordTooShort
	case n > MaxPasswordLen:
		return ErrPasswordTooLong
	}
	user, _, _ := strings.Cut(login, "@")
	if strings.EqualFold(user, password) || strings.EqualFold(login, password) {
		return ErrPasswordIsLogin
	}
	return nil
}

// IsPasswordRune reports whether r may stand in a password.
func IsPasswordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(PasswordSymbols, r)
}

// RefusePassword is the refusal, decided before anything is sent to
// provider, of an empty password or of one that check (the provider's
// own rules) finds fault with: a ClassRefused error of ReasonPassword for
// op, whose message never holds the password; nil for a password check
// accepts.
func RefusePassword(provider string, op Op, password string, check func(string) error) error {
	message := "empty password"
	if password != "" {
		err := check(password)
		if err == nil {
			return nil
		}
		message = err.Error()
	}
	return &Error{Provider: provider, Op: op, Class: ClassRefused, Reason: ReasonPassword, Message: message}
}
