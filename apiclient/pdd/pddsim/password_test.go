package pddsim

import (
	"errors"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

func TestPasswordCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		password string
		want     Code
	}{
		{"Abc-12", ""},
		{"!@#$%^&*()_-+:;,.", ""},
		{"abcdefghijklmnopqrst", ""},
		{"Abc-1", CodePasswdTooShort},
		{"abcdefghijklmnopqrstu", CodePasswdTooLong},
		{"Abc 123", CodeBadPasswdChars},
		{"Abc=123", CodeBadPasswdChars},
		{"Abc/123", CodeBadPasswdChars},
		{"Пароль1", CodeBadPasswdChars},
		{"ab\x00", CodeBadPasswdChars}, // characters before length
		{"ab\xffcdefg", CodeBadPasswdChars},
		{"Marina", CodeBadPasswdChars},
		{"MARINA@example.com", CodeBadPasswdChars},
		{"marina1", ""},
	}
	for _, tc := range tests {
		if got := passwordCode(tc.password, "marina", "marina@example.com"); got != tc.want {
			t.Errorf("passwordCode(%q) = %q, want %q", tc.password, got, tc.want)
		}
	}
}

// FuzzPasswordRules compares the sandbox's reading of PDD's password rules with the
// client's, written apart: for every login the sandbox accepts, both must
// judge every password alike, down to the code.
func FuzzPasswordRules(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzPasswordRules.
	f.Fuzz(func(t *testing.T, login, password string) {
		user, code := checkLogin(login, "example.com")
		if code != "" {
			return
		}
		address := user + "@example.com"
		sim := passwordCode(password, user, address)
		var client Code
		switch err := apiclient.CheckPassword(address, password); {
		case err == nil:
		case errors.Is(err, apiclient.ErrPasswordTooShort):
			client = CodePasswdTooShort
		case errors.Is(err, apiclient.ErrPasswordTooLong):
			client = CodePasswdTooLong
		default:
			client = CodeBadPasswdChars
		}
		if sim != client {
			t.Fatalf("login %q, password %q: the sandbox answers %q, the client's check %q", login, password, sim, client)
		}
		if sim == "" && strings.EqualFold(password, user) {
			t.Fatalf("login %q: the password %q equal to the user name passed", login, password)
		}
	})
}
