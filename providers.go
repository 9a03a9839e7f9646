package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands"
)

// newProvider returns the adapter of cfg's provider (MAILBOT_PROVIDER),
// with its variables, which loadConfig has checked. An error names the
// variable to fix.
func newProvider(cfg *config, opts ...apiclient.Option) (commands.Provider, error) {
	var (
		p   commands.Provider
		err error
		bad string // the variable an error is about
	)
	switch cfg.Provider {
	case providerYandex360:
		bad = "Y360_BASE_URL"
		org, _ := strconv.ParseInt(cfg.Y360OrgID, 10, 64) // checked by loadConfig; "" is 0, any organisation
		p, err = yandex360.New(cfg.Y360BaseURL, cfg.Y360Token.reveal(),
			yandex360.Settings{OrgID: org, DepartmentID: int64(cfg.Y360DepartmentID)}, opts...)
	case providerMailcow:
		bad = "MAILCOW_URL"
		p, err = mailcow.New(cfg.MailcowURL, cfg.MailcowAPIKey.reveal(), cfg.MailcowMX, opts...)
	default:
		bad = "PDD_BASE_URL"
		p, err = pdd.NewAdapter(cfg.PDDBaseURL, cfg.PDDToken.reveal(), opts...)
	}
	if err != nil {
		return nil, &configError{Var: bad, Reason: err.Error()}
	}
	return p, nil
}

// providerURL is the base URL of cfg's provider.
func (c *config) providerURL() string {
	switch c.Provider {
	case providerYandex360:
		return c.Y360BaseURL
	case providerMailcow:
		return c.MailcowURL
	}
	return c.PDDBaseURL
}

// checker is a provider with a read call that proves its credentials at
// start (Yandex 360, mailcow; PDD has none: every PDD read needs a domain).
type checker interface {
	Check(ctx context.Context) error
}

// checkProvider proves the provider's credentials at start, where it has
// a read call: a refused token or key, or an unknown organisation, is one
// line naming the variable. mailcow's adapter sends a refused key never
// again, so that the server does not ban mailbot's address.
func checkProvider(ctx context.Context, cfg *config, p commands.Provider, logger *zap.Logger) error {
	c, ok := p.(checker)
	if !ok {
		return nil
	}
	err := c.Check(ctx)
	if err == nil {
		if y, ok := unwrapProvider(p).(*yandex360.Client); ok && cfg.Y360OrgID == "" {
			logger.Info("Yandex 360 organisation chosen: the one the token sees", zap.Int64("org_id", y.OrgID()))
		}
		return nil
	}
	if ctx.Err() != nil {
		return nil
	}
	what := "the provider refused it at start: "
	if class := apiclient.ClassOf(err); class == apiclient.ClassTemporary || class == apiclient.ClassUncertain {
		what = "the provider could not be reached at start to check it: "
	}
	return &configError{Var: checkedVariable(cfg, err), Reason: what + err.Error()}
}

// unwrapProvider returns the adapter inside p's wrappers (the metrics').
func unwrapProvider(p commands.Provider) commands.Provider {
	for {
		w, ok := p.(interface{ Unwrap() commands.Provider })
		if !ok {
			return p
		}
		p = w.Unwrap()
	}
}

// checkedVariable names the variable a failed start-up check is about.
func checkedVariable(cfg *config, err error) string {
	switch {
	case apiclient.ClassOf(err) == apiclient.ClassCredentials:
		return cfg.credentialsVar()
	case cfg.Provider == providerMailcow:
		return "MAILCOW_URL"
	case apiclient.ClassOf(err) == 0 || apiclient.ReasonOf(err) == apiclient.ReasonNotFound ||
		apiclient.ReasonOf(err) == apiclient.ReasonNotAllowed: // an unknown organisation, none, or several to choose from
		return "Y360_ORG_ID"
	}
	return "Y360_BASE_URL"
}

// sandbox is a provider's embedded sandbox (mailbot sim, and the shell
// without credentials): an HTTP handler, and the variables that make
// mailbot drive it once it is served at a base URL.
type sandbox struct {
	handler http.Handler
	vars    func(baseURL string) [][2]string // name, value: the lines mailbot sim prints
}

// newSandbox returns provider's sandbox, with an account (and, but for
// mailcow, whose domains need no verification, nothing else in it).
func newSandbox(provider string) (*sandbox, error) {
	switch provider {
	case providerYandex360:
		sim := y360sim.New()
		creds := sim.NewAccount()
		return &sandbox{handler: sim, vars: func(base string) [][2]string {
			return [][2]string{{"Y360_BASE_URL", base}, {"Y360_TOKEN", creds.Token}, {"Y360_ORG_ID", strconv.FormatInt(creds.OrgID, 10)}}
		}}, nil
	case providerMailcow:
		sim := mailcowsim.New()
		key := sim.NewAccount()
		return &sandbox{handler: sim, vars: func(base string) [][2]string {
			return [][2]string{{"MAILCOW_URL", base}, {"MAILCOW_API_KEY", key}, {"MAILCOW_MX", sim.Hostname()}}
		}}, nil
	case providerPDD:
		sim := pddsim.New()
		token := sim.NewAccount()
		return &sandbox{handler: sim, vars: func(base string) [][2]string {
			return [][2]string{{"PDD_BASE_URL", base}, {"PDD_TOKEN", token}}
		}}, nil
	}
	return nil, fmt.Errorf("no sandbox of provider %q (want pdd, yandex360 or mailcow)", provider)
}

// useSandbox points cfg's provider variables at the sandbox served at
// baseURL.
func (s *sandbox) useSandbox(cfg *config, baseURL string) error {
	for _, kv := range s.vars(baseURL) {
		if err := cfg.setProviderVar(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// setProviderVar sets one provider variable of cfg, as the environment
// would.
func (c *config) setProviderVar(name, value string) error {
	switch name {
	case "PDD_BASE_URL":
		c.PDDBaseURL = value
	case "PDD_TOKEN":
		c.PDDToken = secret(value)
	case "Y360_BASE_URL":
		c.Y360BaseURL = value
	case "Y360_TOKEN":
		c.Y360Token = secret(value)
	case "Y360_ORG_ID":
		c.Y360OrgID = value
	case "MAILCOW_URL":
		c.MailcowURL = value
	case "MAILCOW_API_KEY":
		c.MailcowAPIKey = secret(value)
	case "MAILCOW_MX":
		c.MailcowMX = strings.ToLower(value)
	default:
		return errors.New("not a provider variable: " + name)
	}
	return nil
}
