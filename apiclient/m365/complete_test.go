package m365_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
)

// An add that finds its user existing completes only a user an earlier
// add left without any licence: a user who holds another licence, or who
// holds a directory role (an administrator, often unlicensed), is
// "exists", and neither their password nor their licences change. Else
// an add of the tenant's administrator's address would set a password
// that the requester sees.
func TestAddDoesNotCompleteAnotherUser(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	// An administrator without a licence.
	if err := w.sim.SetSeats(m365sim.SKUExchange, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.com", "admin", "Admin-Secret-1", false); err != nil {
		t.Fatal(err)
	}
	if err := w.sim.SetSeats(m365sim.SKUExchange, 10); err != nil {
		t.Fatal(err)
	}
	if err := w.sim.AddRole("admin@example.com", "Global Administrator"); err != nil {
		t.Fatal(err)
	}
	// A user who holds another licence than M365_LICENSE.
	if err := w.sim.SetSeats(m365sim.SKUEssential, 10); err != nil {
		t.Fatal(err)
	}
	other := w.client(t, func(s *m365.Settings) { s.License = m365sim.SKUEssential })
	if _, err := other.AddMailbox(t.Context(), "example.com", "ceo", "Ceo-Secret-1", false); err != nil {
		t.Fatal(err)
	}
	for login, pw := range map[string]string{"admin": "Admin-Secret-1", "ceo": "Ceo-Secret-1"} {
		_, err := c.AddMailbox(t.Context(), "example.com", login, "Taken-Over-9", false)
		if apiclient.ReasonOf(err) != apiclient.ReasonExists {
			t.Errorf("an add of %s@example.com, an existing user mailbot did not leave unfinished: %v, want exists", login, err)
		}
		if m, _ := w.sim.Mailbox(login + "@example.com"); m.Password != pw {
			t.Errorf("an add of %s@example.com set its password", login)
		}
	}
}
