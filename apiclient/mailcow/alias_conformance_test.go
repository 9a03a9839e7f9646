package mailcow_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// aliasSandbox is the sandbox with its record of aliases, the oracle of
// the alias suite.
type aliasSandbox struct {
	providertest.Sandbox
	sim *mailcowsim.Server
}

func (s aliasSandbox) Aliases(mailbox string) []string { return s.sim.Aliases(mailbox) }

var _ commands.Aliaser = (*mailcow.Client)(nil)

func TestAliasConformance(t *testing.T) {
	t.Parallel()
	providertest.RunAliases(t, aliasHarness)
}

// TestResolveConformance runs the resolve suite: an alias names the
// mailbox it delivers to (mailcow reports no administrators).
func TestResolveConformance(t *testing.T) {
	t.Parallel()
	providertest.RunResolve(t, aliasHarness)
}

// aliasHarness serves a fresh mailcowsim, with its record of aliases.
var aliasHarness = providertest.Harness{New: func(t *testing.T) providertest.Env {
	sim := mailcowsim.New()
	key := sim.NewAccount()
	return providertest.Env{
		Sandbox: aliasSandbox{Sandbox: providertest.Adapt(sim), sim: sim},
		Secrets: []string{key},
		Connect: func(base string, _ bool, opts ...apiclient.Option) (commands.Provider, error) {
			return mailcow.New(base, key, sim.Hostname(), opts...)
		},
	}
}}
