package providers

import (
	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// googleKind is Google Workspace's row of providerTable.
var googleKind = providerKind{
	name: apiclient.ProviderGoogle, title: google.Title, minPassword: google.MinPasswordLen, urlVar: "GOOGLE_BASE_URL",
	newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
		return google.New(cfg.GoogleBaseURL, []byte(cfg.GoogleCredentials.Reveal()), cfg.GoogleAdmin,
			google.Settings{Customer: cfg.GoogleCustomer, OrgUnit: cfg.GoogleOrgUnit, CredentialsVariable: cfg.Variable("GOOGLE_CREDENTIALS")}, opts...)
	},
	checkVar: func(err error) string {
		if google.IsOrgUnitError(err) {
			return "GOOGLE_ORG_UNIT"
		}
		if apiclient.ReasonOf(err) == apiclient.ReasonNotFound { // the customer of domains.list
			return "GOOGLE_CUSTOMER"
		}
		return "GOOGLE_BASE_URL"
	},
	simVars: []string{"GOOGLE_BASE_URL", "GOOGLE_CREDENTIALS", "GOOGLE_ADMIN"}, fileVars: []string{"GOOGLE_CREDENTIALS"},
	newSandbox: func() *Sandbox {
		sim := googlesim.New()
		acct := sim.NewAccount()
		return &Sandbox{Handler: sim, values: func(base string) []string {
			return []string{base, string(acct.KeyFile(base)), acct.Admin}
		}}
	},
}
