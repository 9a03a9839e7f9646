package apiclient

import (
	"errors"
	"fmt"
	"strings"
)

// MaxStrictLoginLen bounds a user name by [StrictLogin].
const MaxStrictLoginLen = 30

// StrictLogin checks a user name by the strictest rule of the providers
// (PDD's, which Yandex 360's nicknames also meet): Latin letters, digits,
// '-' and '.'; starting with a letter, ending with a letter or a digit,
// without ".."; at most 30 characters. s is lower case. It returns why s
// breaks the rule, in words, or nil.
func StrictLogin(s string) error {
	switch {
	case s == "":
		return errors.New("it is empty")
	case len(s) > MaxStrictLoginLen:
		return fmt.Errorf("it is longer than %d characters", MaxStrictLoginLen)
	case !(s[0] >= 'a' && s[0] <= 'z'):
		return errors.New("it must start with a Latin letter")
	case strings.Contains(s, ".."):
		return errors.New("it may not start or end with '.', nor hold '..'")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return errors.New("it may hold only Latin letters, digits, '-' and '.'")
		}
	}
	if c := s[len(s)-1]; c == '-' || c == '.' {
		return errors.New("it must end with a letter or a digit")
	}
	return nil
}

// MaxLocalPartLen bounds a mailbox's local part (RFC 5321 §4.5.3.1.1).
const MaxLocalPartLen = 64

// LocalPartLogin checks a user name by the rule of providers that take
// most local parts (mailcow, Google Workspace): Latin letters, digits,
// '.', '-' and '_', digits first allowed, up to 64 characters, and a valid
// address (no '.' at either end, no ".."). s is lower case. It returns why
// s breaks the rule, in words, or nil.
func LocalPartLogin(s string) error {
	switch {
	case s == "":
		return errors.New("it is empty")
	case len(s) > MaxLocalPartLen:
		return fmt.Errorf("it is longer than %d characters", MaxLocalPartLen)
	case s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, ".."):
		return errors.New("it may not start or end with '.', nor hold '..'")
	case strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789.-_") != "":
		return errors.New("it may hold only Latin letters, digits, '.', '-' and '_'")
	}
	return nil
}

// PersonName is a person's given and family names as they were written
// (an import's columns, or the add form's name split by [NameOf]); either
// may be empty.
type PersonName struct{ Given, Family string }

// NameOf is the add form's name split by [SplitName].
func NameOf(name string) PersonName {
	given, family := SplitName(name)
	return PersonName{Given: given, Family: family}
}

// Full is the name whole: given and family names, a space between.
func (n PersonName) Full() string { return strings.TrimSpace(n.Given + " " + n.Family) }

// SplitName splits a person's name from the add form into given and
// family names on its last space: "Ada King Lovelace" is "Ada King" and
// "Lovelace"; a name of one word is a given name alone.
func SplitName(name string) (given, family string) {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexByte(name, ' '); i > 0 {
		return strings.TrimSpace(name[:i]), name[i+1:]
	}
	return name, ""
}
