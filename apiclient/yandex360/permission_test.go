package yandex360_test

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
)

// documented are the permissions docs/providers.md tells an operator to
// give mailbot's OAuth application when Y360_ORG_ID is set.
var documented = []string{y360sim.ReadUsers, y360sim.WriteUsers, y360sim.ReadDomains, y360sim.WriteDomains}

// With Y360_ORG_ID set, a token with the documented permissions passes
// the start-up check: it does not list the organisations, which needs
// directory:read_organization.
func TestCheckWithDocumentedPermissions(t *testing.T) {
	t.Parallel()
	e := setup(t)
	creds, err := e.sim.NewAccountWith(documented...)
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(t, creds.Token, yandex360.Settings{OrgID: creds.OrgID})
	if err := c.Check(t.Context()); err != nil {
		t.Fatalf("Check with the documented permissions = %v, want nil", err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.org", "ada", password, true); err != nil {
		t.Errorf("add with the documented permissions = %v", err)
	}
	// Without an organisation chosen, the organisation list is read, and
	// a token without directory:read_organization is told so.
	err = e.client(t, creds.Token, yandex360.Settings{}).Check(t.Context())
	got := checked(t, err, apiclient.ClassCredentials, "", 1)
	if !strings.Contains(got.Message, y360sim.ReadOrganization) {
		t.Errorf("Check without Y360_ORG_ID and without %s: message %q, want the permission named", y360sim.ReadOrganization, got.Message)
	}
}

// A 403 names the permission the call needed: at start and in an
// operation.
func TestForbiddenNamesThePermission(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, missing := range []string{y360sim.ReadDomains, y360sim.ReadUsers} {
		var perms []string
		for _, p := range documented {
			if !strings.HasSuffix(p, strings.TrimPrefix(missing, "directory:read_")) {
				perms = append(perms, p)
			}
		}
		creds, err := e.sim.NewAccountWith(perms...)
		if err != nil {
			t.Fatal(err)
		}
		c := e.client(t, creds.Token, yandex360.Settings{OrgID: creds.OrgID})
		got := checked(t, c.Check(t.Context()), apiclient.ClassCredentials, "", 1)
		if got.HTTPStatus != 403 || !strings.Contains(got.Message, missing) {
			t.Errorf("Check without %s: %+v, want HTTP 403 naming it", missing, got)
		}
	}
	readOnly, _ := e.sim.NewAccountWith(y360sim.ReadUsers, y360sim.ReadDomains)
	c := e.client(t, readOnly.Token, yandex360.Settings{OrgID: readOnly.OrgID})
	_, err := c.AddMailbox(t.Context(), "example.org", "ada", password, false)
	if got := checked(t, err, apiclient.ClassCredentials, "", 1); !strings.Contains(got.Message, y360sim.WriteUsers) {
		t.Errorf("add without %s: message %q, want the permission named", y360sim.WriteUsers, got.Message)
	}
}

// A look-up pages through the users 1,000 at a time, the most the list
// gives: one page of users finds the 250th.
func TestLookupPagesByThousand(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.sim.AddMailboxes("example.org", 250); err != nil {
		t.Fatal(err)
	}
	before := e.sim.Requests()
	m, err := e.c.LookupMailbox(t.Context(), "example.org", "user0250")
	if err != nil || m.Address != "user0250@example.org" {
		t.Fatalf("LookupMailbox = %+v, %v", m, err)
	}
	if n := e.sim.Requests() - before; n != 2 {
		t.Errorf("%d requests, want 2: the domain list and one page of users", n)
	}
}
