package providers

import (
	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// pddKind is Yandex PDD's row of providerTable.
var pddKind = providerKind{
	name: apiclient.ProviderPDD, title: pdd.Title, urlVar: "PDD_BASE_URL",
	newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
		return pdd.NewAdapter(cfg.PDDBaseURL, cfg.PDDToken.Reveal(), opts...)
	},
	simVars: []string{"PDD_BASE_URL", "PDD_TOKEN"},
	newSandbox: func() *Sandbox {
		sim := pddsim.New()
		token := sim.NewAccount()
		return &Sandbox{Handler: sim, values: func(base string) []string {
			return []string{base, token}
		}}
	},
}
