package providers

import (
	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// mailcowKind is mailcow's row of providerTable.
var mailcowKind = providerKind{
	name: apiclient.ProviderMailcow, title: mailcow.Title, urlVar: "MAILCOW_URL",
	newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
		return mailcow.New(cfg.MailcowURL, cfg.MailcowAPIKey.Reveal(), cfg.MailcowMX, opts...)
	},
	simVars: []string{"MAILCOW_URL", "MAILCOW_API_KEY", "MAILCOW_MX"},
	newSandbox: func() *Sandbox {
		sim := mailcowsim.New()
		key := sim.NewAccount()
		return &Sandbox{Handler: sim, values: func(base string) []string {
			return []string{base, key, sim.Hostname()}
		}}
	},
}
