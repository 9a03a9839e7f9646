package providers

import (
	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// m365Kind is Microsoft 365's row of providerTable.
var m365Kind = providerKind{
	name: apiclient.ProviderM365, title: m365.Title, minPassword: m365.MinPasswordLen, urlVar: "M365_BASE_URL",
	newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
		return m365.New(cfg.M365BaseURL, m365.Settings{TenantID: cfg.M365TenantID, ClientID: cfg.M365ClientID,
			ClientSecret: cfg.M365ClientSecret.Reveal(), License: cfg.M365License, UsageLocation: cfg.M365UsageLocation,
			LoginURL: cfg.M365LoginURL, SecretVariable: cfg.Variable("M365_CLIENT_SECRET")}, opts...)
	},
	checkVar: func(err error) string {
		if apiclient.ClassOf(err) == apiclient.ClassRefused {
			return "M365_LICENSE"
		}
		return "M365_BASE_URL"
	},
	simVars: []string{"M365_BASE_URL", "M365_LOGIN_URL", "M365_TENANT_ID", "M365_CLIENT_ID", "M365_CLIENT_SECRET", "M365_LICENSE"},
	newSandbox: func() *Sandbox {
		sim := m365sim.New()
		acct := sim.NewAccount()
		return &Sandbox{Handler: sim, values: func(base string) []string {
			return []string{base, base, acct.TenantID, acct.ClientID, acct.ClientSecret, acct.License}
		}}
	},
}
