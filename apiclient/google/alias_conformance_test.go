package google_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// The conformance suite's sandbox has the sandbox's record of aliases,
// the oracle of the alias suite.
var (
	_ commands.Aliaser          = (*google.Client)(nil)
	_ providertest.AliasSandbox = sandbox{}
)

// TestAliasConformance runs the alias suite on the harness of the
// conformance suite: its Connect fetches the token first (Check), so the
// suite's counts of writes see the API's calls alone.
func TestAliasConformance(t *testing.T) {
	t.Parallel()
	providertest.RunAliases(t, harness)
}
