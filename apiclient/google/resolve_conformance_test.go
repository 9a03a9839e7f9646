package google_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/commands/providertest"
)

var _ providertest.AdminSandbox = sandbox{}

// MakeAdmin makes the user a super admin (isAdmin).
func (s sandbox) MakeAdmin(address string) error { return s.SetAdmin(address, googlesim.RoleSuper) }

// TestResolveConformance runs the resolve suite: aliases, super admins,
// and the admin the client acts as.
func TestResolveConformance(t *testing.T) {
	t.Parallel()
	providertest.RunResolve(t, harness)
}
