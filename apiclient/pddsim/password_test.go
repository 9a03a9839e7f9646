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
		want     apiclient.Code
	}{
		{"Abc-12", ""},
		{"!@#$%^&*()_-+:;,.", ""},
		{"abcdefghijklmnopqrst", ""},
		{"Abc-1", apiclient.CodePasswdTooShort},
		{"abcdefghijklmnopqrstu", apiclient.CodePasswdTooLong},
		{"Abc 123", apiclient.CodeBadPasswdChars},
		{"Abc=123", apiclient.CodeBadPasswdChars},
		{"Abc/123", apiclient.CodeBadPasswdChars},
		{"Пароль1", apiclient.CodeBadPasswdChars},
		{"ab\x00", apiclient.CodeBadPasswdChars}, // characters before length
		{"ab\xffcdefg", apiclient.CodeBadPasswdChars},
		{"Marina", apiclient.CodeBadPasswdChars},
		{"MARINA@example.com", apiclient.CodeBadPasswdChars},
		{"marina1", ""},
	}
	for _, tc := range tests {
		if got := passwordCode(tc.password, "marina", "marina@example.com"); got != tc.want {
			t.Errorf("passwordCode(%q) = %q, want %q", tc.password, got, tc.want)
		}
	}
}

// FuzzPasswordRules compares the sandbox's reading of seed §8 with the
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
		var client apiclient.Code
		switch err := apiclient.ValidatePassword(address, password); {
		case err == nil:
		case errors.Is(err, apiclient.ErrPasswordTooShort):
			client = apiclient.CodePasswdTooShort
		case errors.Is(err, apiclient.ErrPasswordTooLong):
			client = apiclient.CodePasswdTooLong
		default:
			client = apiclient.CodeBadPasswdChars
		}
		if sim != client {
			t.Fatalf("login %q, password %q: the sandbox answers %q, the client's check %q", login, password, sim, client)
		}
		if sim == "" && strings.EqualFold(password, user) {
			t.Fatalf("login %q: the password %q equal to the user name passed", login, password)
		}
	})
}
