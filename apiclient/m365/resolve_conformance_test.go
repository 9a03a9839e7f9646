package m365_test

import (
	"testing"

	"github.com/mailbot/mailbot/commands/providertest"
)

var (
	_ providertest.AliasMaker   = sandbox{}
	_ providertest.AdminSandbox = sandbox{}
)

// MakeAlias gives the mailbox the alias as a proxy address, as the
// Exchange admin center does (Graph cannot).
func (s sandbox) MakeAlias(alias, mailbox string) error {
	return s.AddProxyAddress(mailbox, "smtp:"+alias)
}

// MakeAdmin gives the user a directory role.
func (s sandbox) MakeAdmin(address string) error { return s.AddRole(address, "User Administrator") }

// TestResolveConformance runs the resolve suite: a proxy address names
// its user, and a user holding a directory role is an administrator.
func TestResolveConformance(t *testing.T) {
	t.Parallel()
	providertest.RunResolve(t, harness)
}
