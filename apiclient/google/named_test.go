package google_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/commands"
)

var _ commands.NamedAdder = (*google.Client)(nil)

// TestAddNamedMailbox: the add form's name reaches Google as the user's
// given and family names, split on the last space; without one (or
// without a family part) the login stands in, as Google requires both.
func TestAddNamedMailbox(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, tc := range []struct{ login, name, given, family string }{
		{"ada", "Ada King Lovelace", "Ada King", "Lovelace"},
		{"grace", "Grace", "Grace", "grace"},
		{"alan", "", "alan", "alan"},
	} {
		if _, err := e.c.AddNamedMailbox(t.Context(), "example.com", tc.login, apiclient.NameOf(tc.name), password, true); err != nil {
			t.Fatalf("AddNamedMailbox(%s, %q) = %v", tc.login, tc.name, err)
		}
		m, ok := e.sim.Mailbox(tc.login + "@example.com")
		if !ok || m.GivenName != tc.given || m.FamilyName != tc.family {
			t.Errorf("%q: the sandbox has %v %q %q, want %q %q", tc.name, ok, m.GivenName, m.FamilyName, tc.given, tc.family)
		}
	}
}

// TestCheckLogin: Google's user names by mailbot's rule for local parts:
// what PDD refuses but Google takes (digits first, '_', up to 64) passes;
// what no address may hold is refused.
func TestCheckLogin(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for login, ok := range map[string]bool{
		"john_doe": true, "2024.intern": true, "a": true, string(make64()): true,
		"": false, ".ada": false, "ada.": false, "a..b": false, "ada+x": false, string(make64()) + "a": false,
	} {
		if err := e.c.CheckLogin(login); (err == nil) != ok {
			t.Errorf("CheckLogin(%q) = %v, want ok %v", login, err, ok)
		}
	}
}

func make64() []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = 'a'
	}
	return b
}
