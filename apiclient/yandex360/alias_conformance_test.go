package yandex360_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

var _ commands.Aliaser = (*yandex360.Client)(nil)

// The sandbox shim embeds the y360sim server, whose Aliases (local parts)
// is the alias suite's oracle.
func TestAliasConformance(t *testing.T) {
	t.Parallel()
	providertest.RunAliases(t, harness)
}
