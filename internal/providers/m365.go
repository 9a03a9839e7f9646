package providers

import (
	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/config"
)

// m365Kind is Microsoft 365's row of providerTable.
var m365Kind = providerKind{
	name: apiclient.ProviderM365, title: "Microsoft 365", urlVar: "M365_BASE_URL",
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
	newSandbox: func() *Sandbox {
		sim := m365sim.New()
		acct := sim.NewAccount()
		return &Sandbox{Handler: sim, Vars: func(base string) [][2]string {
			return [][2]string{{"M365_BASE_URL", base}, {"M365_LOGIN_URL", base}, {"M365_TENANT_ID", acct.TenantID},
				{"M365_CLIENT_ID", acct.ClientID}, {"M365_CLIENT_SECRET", acct.ClientSecret}, {"M365_LICENSE", acct.License}}
		}}
	},
}
