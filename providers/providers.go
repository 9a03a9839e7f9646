// Package providers is the table of the providers mailbot can drive: what
// each one is to the rest of the program (its name, the variable of its
// base URL, its adapter's constructor and start-up check, its sandbox). A
// provider is one package under apiclient and one row here; its variables
// are config's fields tagged with its name, and its capabilities
// and the words replies use for it are its adapter's own. Built from the
// table beside it: a provider's metered wrapper (Metrics), the shell's
// providers (ShellRouter) and mailbot sim, which serves the sandboxes.
package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// providerKind is everything main knows of one provider: one row of
// providerTable. Its variables are config's fields tagged
// provider:"<name>" (the one of type secret holds the credentials); its
// capabilities and the words replies use for it are the adapter's own
// (commands.Provider's Capabilities).
type providerKind struct {
	name  string // MAILBOT_PROVIDER's value, apiclient.Provider…
	title string // the adapter's Title: the words replies and the shell's banner use
	// minPassword is the shortest password the provider takes, where it
	// is longer than the core's shortest (0 otherwise).
	minPassword int
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
	// simVars are the variables that make mailbot drive the sandbox, in
	// the order mailbot sim prints them; fileVars are those of them whose
	// value sim writes to a file (NAME_FILE= a key file).
	simVars, fileVars []string
	// newSandbox builds the provider's sandbox, with an account; its
	// values are simVars' values once it is served at a base URL.
	newSandbox func() *Sandbox
}

// providerTable is every provider mailbot can drive, the default first:
// one row each, in the file named for the provider.
var providerTable = []providerKind{pddKind, yandex360Kind, mailcowKind, googleKind, m365Kind}

// Rules is what the configuration checks of each provider, the default
// first.
func Rules() []config.Provider {
	rules := make([]config.Provider, len(providerTable))
	for i, k := range providerTable {
		rules[i] = config.Provider{Name: k.name, Title: k.title, MinPassword: k.minPassword}
	}
	return rules
}

// Titles lists the providers' titles, the default first.
func Titles() []string {
	titles := make([]string, len(providerTable))
	for i, k := range providerTable {
		titles[i] = k.title
	}
	return titles
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

// As is cfg with provider selected (MAILBOT_PROVIDER): one of several
// in use is built and checked as it would be alone.
func As(cfg *config.Config, provider string) *config.Config {
	c := *cfg
	c.Provider = provider
	return &c
}

// Router routes each domain to its provider by cfg's MAILBOT_ROUTES,
// every other domain to MAILBOT_PROVIDER's; byName holds every provider
// of cfg.Selected().
func Router(cfg *config.Config, byName map[string]commands.Provider) (*commands.Router, error) {
	routes := make([]commands.RouteTo, 0, len(cfg.Routes()))
	for _, r := range cfg.Routes() {
		routes = append(routes, commands.RouteTo{Pattern: r.Pattern, Provider: byName[r.Provider]})
	}
	r, err := commands.NewRouter(byName[cfg.Provider], routes...)
	if err != nil {
		return nil, &config.Error{Var: "MAILBOT_ROUTES", Reason: err.Error()}
	}
	return r, nil
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
	values   func(baseURL string) []string // the row's simVars' values
}

// NewSandbox returns provider's sandbox, with an account (and, but for
// mailcow, whose domains need no verification, nothing else in it).
func NewSandbox(provider string) (*Sandbox, error) {
	k, ok := kindOf(provider)
	if !ok {
		return nil, fmt.Errorf("no sandbox of provider %q (want %s)", provider, OrList(Names()))
	}
	sb := k.newSandbox()
	sb.Vars = func(base string) [][2]string {
		kv := make([][2]string, len(k.simVars))
		for i, v := range sb.values(base) {
			kv[i] = [2]string{k.simVars[i], v}
		}
		return kv
	}
	sb.FileVars = map[string]bool{}
	for _, v := range k.fileVars {
		sb.FileVars[v] = true
	}
	return sb, nil
}

// SimVars says, per provider, the variables mailbot sim prints for its
// sandbox: "pdd: PDD_BASE_URL= and PDD_TOKEN=".
func SimVars() []string {
	lines := make([]string, len(providerTable))
	for i, k := range providerTable {
		vars := make([]string, len(k.simVars))
		for j, v := range k.simVars {
			vars[j] = v + "="
			if slices.Contains(k.fileVars, v) {
				vars[j] = v + "_FILE= (a key file it writes, removed at stop)"
			}
		}
		lines[i] = k.name + ": " + config.AndList(vars)
	}
	return lines
}

// OrList writes names as "a, b or c".
func OrList(names []string) string { return config.OrList(names) }

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

// Title is the words for provider: its adapter's Title.
func Title(provider string) string {
	k, _ := kindOf(provider)
	return k.title
}
