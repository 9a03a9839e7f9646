package providers

import (
	"strconv"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// yandex360Kind is Yandex 360's row of providerTable.
var yandex360Kind = providerKind{
	name: apiclient.ProviderYandex360, title: yandex360.Title, urlVar: "Y360_BASE_URL",
	newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
		org, _ := strconv.ParseInt(cfg.Y360OrgID, 10, 64) // checked by loadConfig; "" is 0, any organisation
		return yandex360.New(cfg.Y360BaseURL, cfg.Y360Token.Reveal(),
			yandex360.Settings{OrgID: org, DepartmentID: int64(cfg.Y360DepartmentID)}, opts...)
	},
	checkVar: func(err error) string {
		switch apiclient.ClassOf(err) {
		case 0: // none, or several organisations to choose from
			return "Y360_ORG_ID"
		case apiclient.ClassRefused:
			if r := apiclient.ReasonOf(err); r == apiclient.ReasonNotFound || r == apiclient.ReasonNotAllowed {
				return "Y360_ORG_ID" // an unknown organisation
			}
		}
		return "Y360_BASE_URL"
	},
	checked: func(cfg *config.Config, p commands.Provider, logger *zap.Logger) {
		if y, ok := Unwrap(p).(*yandex360.Client); ok && cfg.Y360OrgID == "" {
			logger.Info("Yandex 360 organisation chosen: the one the token sees", zap.Int64("org_id", y.OrgID()))
		}
	},
	simVars: []string{"Y360_BASE_URL", "Y360_TOKEN", "Y360_ORG_ID"},
	newSandbox: func() *Sandbox {
		sim := y360sim.New()
		creds := sim.NewAccount()
		return &Sandbox{Handler: sim, values: func(base string) []string {
			return []string{base, creds.Token, strconv.FormatInt(creds.OrgID, 10)}
		}}
	},
}
