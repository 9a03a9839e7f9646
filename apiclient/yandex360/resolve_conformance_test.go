package yandex360_test

import (
	"testing"

	"github.com/mailbot/mailbot/commands/providertest"
)

var _ providertest.AdminSandbox = sandbox{}

// MakeAdmin makes the user an administrator of its organisation (isAdmin).
func (s sandbox) MakeAdmin(address string) error { return s.SetAdmin(address, true) }

// TestResolveConformance runs the resolve suite: aliases and
// administrators.
func TestResolveConformance(t *testing.T) {
	t.Parallel()
	providertest.RunResolve(t, harness)
}
