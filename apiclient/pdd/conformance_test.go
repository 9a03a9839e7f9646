package pdd_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// harness serves a fresh pddsim whose first account is the adapter's.
var harness = providertest.Harness{New: func(t *testing.T) providertest.Env {
	sim := pddsim.New().Shared()
	token := sim.NewAccount()
	return providertest.Env{
		Sandbox: providertest.Adapt(sim),
		Secrets: []string{token},
		Connect: func(base string, valid bool, opts ...apiclient.Option) (commands.Provider, error) {
			tok := token
			if !valid {
				tok = pddsim.New().NewAccount() // a token of another sandbox: bad_token
			}
			return pdd.NewAdapter(base, tok, opts...)
		},
	}
}}

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, harness)
}
