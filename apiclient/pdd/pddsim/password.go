package pddsim

import (
	"strings"
)

// The sandbox's own reading of PDD's password rules. It does not
// call the client's checks (apiclient.CheckPassword): the sandbox is the
// independent check of the client, so the two are written apart and a
// test compares them.
const (
	// passwordSymbols are the symbols PDD allows besides Latin letters
	// and digits: ! @ # $ % ^ & * ( ) _ - + : ; , .
	passwordSymbols = "!@#$%^&*()_-+:;,."
	// minPasswordChars and maxPasswordChars are PDD's "6 to 20
	// characters".
	minPasswordChars = 6
	maxPasswordChars = 20
)

// passwordCode returns the code the real service answers when password
// breaks PDD's password rules for the mailbox user@domain (user and address in lower
// case), or "" when it does not. It checks the characters first, then the
// length in characters, then that the password differs from the user name
// and from the address, whatever the letter case (see the package doc).
func passwordCode(password, user, address string) Code {
	chars := 0
	for _, r := range password {
		if !passwordChar(r) {
			return CodeBadPasswdChars
		}
		chars++
	}
	switch lower := strings.ToLower(password); {
	case chars < minPasswordChars:
		return CodePasswdTooShort
	case chars > maxPasswordChars:
		return CodePasswdTooLong
	case lower == user || lower == address:
		return CodeBadPasswdChars
	}
	return ""
}

// passwordChar reports whether PDD allows r in a password: a Latin
// letter, a digit or one of passwordSymbols.
func passwordChar(r rune) bool {
	if r >= 0x80 {
		return false
	}
	return isAlnum(byte(r)) || strings.IndexByte(passwordSymbols, byte(r)) >= 0
}
