package google_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/google"
)

// TestOrgUnit: new users go into the configured organisational unit
// (orgUnitPath), which the start-up check reads (orgunits.get): a unit the
// customer lacks stops it with an error that says so; without one, new
// users go into the root and nothing more is asked.
func TestOrgUnit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	c := e.connect(t, e.acct.Admin, google.Settings{OrgUnit: "/Staff/New"})
	if err := c.Check(t.Context()); err == nil || !google.IsOrgUnitError(err) {
		t.Fatalf("Check with a unit the customer lacks = %v, want the unit's error", err)
	}
	e.sim.AddOrgUnit("/Staff/New")
	if err := c.Check(t.Context()); err != nil {
		t.Fatalf("Check = %v", err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.com", "nina", password, true); err != nil {
		t.Fatal(err)
	}
	if ou, ok := e.sim.OrgUnitOf("nina@example.com"); !ok || ou != "/Staff/New" {
		t.Errorf("nina's organisational unit = %q, %v; want /Staff/New", ou, ok)
	}
	if err := e.c.Check(t.Context()); err != nil {
		t.Fatalf("Check at the root = %v", err)
	}
	if _, err := e.c.AddMailbox(t.Context(), "example.com", "ada", password, true); err != nil {
		t.Fatal(err)
	}
	if ou, _ := e.sim.OrgUnitOf("ada@example.com"); ou != "/" {
		t.Errorf("ada's organisational unit = %q, want the root", ou)
	}
}
