package google_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// TestResolveDelegatedAdminAndAliasOfTheAdmin: a user with an admin role
// short of super admin (isDelegatedAdmin) is an administrator, and an
// alias of the admin the client acts as resolves to that admin, an alias,
// with ActsAs.
func TestResolveDelegatedAdminAndAliasOfTheAdmin(t *testing.T) {
	t.Parallel()
	e := aliasEnv(t)
	if err := e.sim.SetAdmin("carol@example.com", googlesim.RoleDelegated); err != nil {
		t.Fatal(err)
	}
	r, err := e.c.ResolveMailbox(t.Context(), "example.com", "carol")
	if err != nil || !r.Admin || r.Alias || r.ActsAs {
		t.Errorf("ResolveMailbox of a delegated admin = %+v, %v; want Admin", r, err)
	}
	if _, err := e.c.AddAlias(t.Context(), "boss@example.com", e.acct.Admin); err != nil {
		t.Fatal(err)
	}
	r, err = e.c.ResolveMailbox(t.Context(), "example.com", "boss")
	if err != nil || !r.Alias || !r.ActsAs || r.Address != e.acct.Admin {
		t.Errorf("ResolveMailbox of an alias of the admin = %+v, %v; want an alias of %s, ActsAs", r, err, e.acct.Admin)
	}
	if r, err := e.c.ResolveMailbox(t.Context(), "example.com", "bob"); err != nil || r.Admin || r.ActsAs || r.Alias {
		t.Errorf("ResolveMailbox of a plain user = %+v, %v", r, err)
	}
}
