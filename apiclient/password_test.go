package apiclient_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestRefusePassword: an empty password, and one the provider's check
// finds fault with, are refused as ReasonPassword with nothing sent, in
// words that never hold the password; one the check accepts is not.
func TestRefusePassword(t *testing.T) {
	t.Parallel()
	tooShort := errors.New("password shorter than 8 characters")
	check := func(p string) error {
		if len(p) < 8 {
			return tooShort
		}
		return nil
	}
	if err := apiclient.RefusePassword("google", apiclient.OpAdd, "Long-enough-1", check); err != nil {
		t.Errorf("an accepted password: %v", err)
	}
	for password, want := range map[string]string{"": "empty password", "Sh0rt!": tooShort.Error()} {
		err := apiclient.RefusePassword("google", apiclient.OpReset, password, check)
		var e *apiclient.Error
		if !errors.As(err, &e) || e.Class != apiclient.ClassRefused || e.Reason != apiclient.ReasonPassword ||
			e.Op != apiclient.OpReset || e.Provider != "google" || e.Message != want {
			t.Errorf("RefusePassword(%q) = %#v, want a refusal %q", password, err, want)
		}
		if password != "" && strings.Contains(err.Error(), password) {
			t.Errorf("the refusal %q holds the password", err)
		}
	}
}
