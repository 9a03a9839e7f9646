// Package providers is the table of the providers mailbot can drive: what
// each one is to the rest of the program (its name, the variable of its
// base URL, its adapter's constructor and start-up check, its sandbox). A
// provider is one package under apiclient and one row here; its variables
// are internal/config's fields tagged with its name, and its capabilities
// and the words replies use for it are its adapter's own.
package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
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
	"github.com/mailbot/mailbot/internal/config"
)

// providerKind is everything main knows of one provider: one row of
// providerTable. Its variables are config's fields tagged
// provider:"<name>" (the one of type secret holds the credentials); its
// capabilities and the words replies use for it are the adapter's own
// (commands.Provider's Capabilities).
type providerKind struct {
	name  string // MAILBOT_PROVIDER's value, apiclient.Provider…
	title string // the sandbox's name in the shell's banner
	// urlVar is the variable of the provider's base URL: what an error
	// of the constructor, or an unreachable provider at start, is about.
	urlVar string
	// newAdapter builds the adapter from cfg's variables, which
	// loadConfig has checked.
	newAdapter func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error)
	// checkVar names the variable a failed start-up check is about when
	// it is not the credentials (nil: urlVar).
	checkVar func(err error) string
	// checked logs what the start-up check chose (nil: nothing).
	checked func(cfg *config.Config, p commands.Provider, logger *zap.Logger)
	// newSandbox builds the provider's sandbox, with an account.
	newSandbox func() *Sandbox
}

// providerTable is every provider mailbot can drive, the default first.
var providerTable = []providerKind{
	{
		name: apiclient.ProviderPDD, title: "PDD", urlVar: "PDD_BASE_URL",
		newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
			return pdd.NewAdapter(cfg.PDDBaseURL, cfg.PDDToken.Reveal(), opts...)
		},
		newSandbox: func() *Sandbox {
			sim := pddsim.New()
			token := sim.NewAccount()
			return &Sandbox{Handler: sim, Vars: func(base string) [][2]string {
				return [][2]string{{"PDD_BASE_URL", base}, {"PDD_TOKEN", token}}
			}}
		},
	},
	{
		name: apiclient.ProviderYandex360, title: "Yandex 360", urlVar: "Y360_BASE_URL",
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
		newSandbox: func() *Sandbox {
			sim := y360sim.New()
			creds := sim.NewAccount()
			return &Sandbox{Handler: sim, Vars: func(base string) [][2]string {
				return [][2]string{{"Y360_BASE_URL", base}, {"Y360_TOKEN", creds.Token}, {"Y360_ORG_ID", strconv.FormatInt(creds.OrgID, 10)}}
			}}
		},
	},
	{
		name: apiclient.ProviderMailcow, title: "mailcow", urlVar: "MAILCOW_URL",
		newAdapter: func(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
			return mailcow.New(cfg.MailcowURL, cfg.MailcowAPIKey.Reveal(), cfg.MailcowMX, opts...)
		},
		newSandbox: func() *Sandbox {
			sim := mailcowsim.New()
			key := sim.NewAccount()
			return &Sandbox{Handler: sim, Vars: func(base string) [][2]string {
				return [][2]string{{"MAILCOW_URL", base}, {"MAILCOW_API_KEY", key}, {"MAILCOW_MX", sim.Hostname()}}
			}}
		},
	},
	googleKind,
	m365Kind,
}

// Names lists MAILBOT_PROVIDER's values, the default first.
func Names() []string {
	names := make([]string, len(providerTable))
	for i, k := range providerTable {
		names[i] = k.name
	}
	return names
}

// kindOf is the row of provider; ok is false for a name not in the table.
func kindOf(provider string) (k providerKind, ok bool) {
	i := slices.IndexFunc(providerTable, func(k providerKind) bool { return k.name == provider })
	if i < 0 {
		return providerTable[0], false
	}
	return providerTable[i], true
}

// kindOfConfig is the row of cfg's provider (loadConfig refused any
// other name).
func kindOfConfig(cfg *config.Config) providerKind {
	k, _ := kindOf(cfg.Provider)
	return k
}

// New returns the adapter of cfg's provider (MAILBOT_PROVIDER),
// with its variables, which loadConfig has checked. An error names the
// variable to fix.
func New(cfg *config.Config, opts ...apiclient.Option) (commands.Provider, error) {
	k := kindOfConfig(cfg)
	p, err := k.newAdapter(cfg, opts...)
	if err != nil {
		return nil, &config.Error{Var: k.urlVar, Reason: err.Error()}
	}
	return p, nil
}

// URL is the base URL of cfg's provider.
func URL(cfg *config.Config) string {
	v, _ := cfg.LookupVar(kindOfConfig(cfg).urlVar)
	return v
}

// Checker is a provider with a read call that proves its credentials at
// start (PDD has none: every PDD read needs a domain).
type Checker interface {
	Check(ctx context.Context) error
}

// Check proves the provider's credentials at start, where it has
// a read call: a refused token or key, or an unknown organisation, is one
// line naming the variable. mailcow's adapter sends a refused key never
// again, so that the server does not ban mailbot's address.
func Check(ctx context.Context, cfg *config.Config, p commands.Provider, logger *zap.Logger) error {
	c, ok := p.(Checker)
	if !ok {
		return nil
	}
	k := kindOfConfig(cfg)
	err := c.Check(ctx)
	if err == nil {
		if k.checked != nil {
			k.checked(cfg, p, logger)
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
	return &config.Error{Var: checkedVariable(cfg, err), Reason: what + err.Error()}
}

// Unwrap returns the adapter inside p's wrappers (the metrics').
func Unwrap(p commands.Provider) commands.Provider {
	for {
		w, ok := p.(interface{ Unwrap() commands.Provider })
		if !ok {
			return p
		}
		p = w.Unwrap()
	}
}

// checkedVariable names the variable a failed start-up check is about.
func checkedVariable(cfg *config.Config, err error) string {
	k := kindOfConfig(cfg)
	var e *apiclient.Error
	switch {
	case apiclient.ClassOf(err) == apiclient.ClassCredentials && errors.As(err, &e) && e.Setting != "":
		return strings.TrimSuffix(e.Setting, "_FILE") // serve names the _FILE variant the operator set
	case apiclient.ClassOf(err) == apiclient.ClassCredentials:
		return cfg.CredentialsVar()
	case k.checkVar != nil:
		return k.checkVar(err)
	}
	return k.urlVar
}

// Sandbox is a provider's embedded sandbox (mailbot sim, and the shell
// without credentials): an HTTP handler, and the variables that make
// mailbot drive it once it is served at a base URL.
type Sandbox struct {
	Handler http.Handler
	Vars    func(baseURL string) [][2]string // name, value: the lines mailbot sim prints
	// FileVars are the variables of Vars whose value mailbot sim writes
	// to a file, printing NAME_FILE=<path> instead (a key file); the
	// shell sets them as they are.
	FileVars map[string]bool
}

// NewSandbox returns provider's sandbox, with an account (and, but for
// mailcow, whose domains need no verification, nothing else in it).
func NewSandbox(provider string) (*Sandbox, error) {
	k, ok := kindOf(provider)
	if !ok {
		return nil, fmt.Errorf("no sandbox of provider %q (want %s)", provider, OrList(Names()))
	}
	return k.newSandbox(), nil
}

// OrList writes names as "a, b or c".
func OrList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Use points cfg's provider variables at the sandbox served at
// baseURL.
func (s *Sandbox) Use(cfg *config.Config, baseURL string) error {
	for _, kv := range s.Vars(baseURL) {
		if err := cfg.SetVar(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// Title is the sandbox title of provider: "PDD", "Yandex 360", "mailcow",
// "Google Workspace".
func Title(provider string) string {
	k, _ := kindOf(provider)
	return k.title
}
