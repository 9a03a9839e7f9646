package mailcow_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// harness serves a fresh mailcowsim; the client's MX host is the
// sandbox's own host name.
var harness = providertest.Harness{New: func(t *testing.T) providertest.Env {
	sim := mailcowsim.New()
	key := sim.NewAccount()
	return providertest.Env{
		Sandbox: providertest.Adapt(sim),
		Secrets: []string{key},
		Connect: func(base string, valid bool, opts ...apiclient.Option) (commands.Provider, error) {
			k := key
			if !valid {
				k = mailcowsim.New().NewAccount() // a key of another sandbox: HTTP 401
			}
			return mailcow.New(base, k, sim.Hostname(), opts...)
		},
	}
}}

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, harness)
}
