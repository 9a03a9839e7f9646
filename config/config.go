// Package config is mailbot's configuration: the environment variables,
// decoded (a secret may come from a file), checked, and described for
// `mailbot help`. Each variable's name is written once, in a struct tag of
// [Config].
//
// The decoding follows envconfig's tags and its Decoder interface, but
// is done here, field by field, rather than by envconfig.Process: Process
// stops at the first bad value (an operator is told every bad variable at
// once), reads only the process environment (tests pass a lookup), and
// knows no _FILE variants for secrets.
package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/dnscheck"
)

// Config is mailbot's configuration. The tags say everything about a
// variable, and both the decoding and `mailbot help` read them:
//
//   - envconfig: the variable's name; default: its default (envconfig's own
//     tags, so the struct decodes under envconfig.Process too); desc: its
//     meaning in `mailbot help`.
//   - scope: the subcommands that read it (comma-separated); without one,
//     every subcommand that reads configuration does. A variable is
//     checked only for the subcommands that read it, so that a bad
//     MAILBOT_PASSWORD_LENGTH does not stop `mailbot sim`.
//   - provider: the provider (MAILBOT_PROVIDER) whose variable it is; the
//     variables of the other providers are neither checked nor required.
//   - need: the subcommands that require it to be set.
//   - core: the commands.Setting the variable sets, whose errors
//     commands.Config.Check reports.
//   - deprecated: the variable's new name; the old one is read while the
//     new one is not set, with a warning.
//   - empty:"keep": set and empty is a value of its own (MAILBOT_HTTP_ADDR=
//     disables the listener). Elsewhere a set but empty variable counts as
//     unset, so that it takes its default.
//
// A field of type Secret or DatabaseURL may come from a file instead: its
// variable's name with _FILE appended names the file (as container
// platforms mount secrets); one of the two may be set, never both. The
// file's trailing white space is dropped, and an error about its value
// names the _FILE variable and the file.
type Config struct {
	SlackAppToken    Secret        `envconfig:"SLACK_APP_TOKEN" scope:"serve" need:"serve" desc:"app-level token xapp-..., scope connections:write"`
	SlackBotToken    Secret        `envconfig:"SLACK_BOT_TOKEN" scope:"serve" need:"serve" desc:"bot token xoxb-..."`
	SlackAPIURL      string        `envconfig:"SLACK_API_URL" scope:"serve" default:"https://slack.com/api/" desc:"Slack Web API base URL"`
	Provider         string        `envconfig:"MAILBOT_PROVIDER" scope:"serve,shell" desc:"the mail-hosting API mailbot drives: {providers}"`
	RoutesSpec       string        `envconfig:"MAILBOT_ROUTES" scope:"serve,shell" desc:"several providers at once: domain=provider pairs, comma-separated (old.example=mailcow,*.example.org=google; *.suffix is its subdomains, the most specific pair wins); MAILBOT_PROVIDER serves every other domain"`
	DomainAdminsSpec string        `envconfig:"MAILBOT_DOMAIN_ADMINS" scope:"serve,shell" desc:"admins of some domains only: domain=ID ID ... pairs separated by ; (example.com=U123 S456;shop.example=U789), Slack user and user group IDs"`
	ProviderTimeout  time.Duration `envconfig:"MAILBOT_PROVIDER_TIMEOUT" scope:"serve,shell" default:"15s" desc:"timeout of one request to the provider, whichever it is"`
	PDD
	Yandex360
	Mailcow
	Google
	M365
	ForcePasswordChange bool          `envconfig:"MAILBOT_FORCE_PASSWORD_CHANGE" scope:"serve,shell" default:"true" desc:"new mailboxes and reset passwords must be changed at the next login, where the provider can require it"`
	Admins              []string      `envconfig:"MAILBOT_ADMINS" scope:"serve,shell" need:"serve" desc:"comma-separated Slack user IDs (U..., W...) and user group IDs (S..., members are admins) allowed to run operations and decide requests"`
	OpsChannel          string        `envconfig:"MAILBOT_OPS_CHANNEL" scope:"serve" desc:"channel ID for notices and approval requests"`
	Approvals           string        `envconfig:"MAILBOT_APPROVALS" core:"Approvals" scope:"serve,shell" default:"off" desc:"off, requests or all (for serve, requests and all need MAILBOT_OPS_CHANNEL)"`
	ApprovalTTL         time.Duration `envconfig:"MAILBOT_APPROVAL_TTL" core:"ApprovalTTL" scope:"serve,shell" default:"24h" desc:"a pending request older than this expires"`
	ApprovalsRequired   int           `envconfig:"MAILBOT_APPROVALS_REQUIRED" core:"ApprovalsRequired" scope:"serve,shell" default:"1" desc:"how many different admins must approve a request, 1 to {approvals.max}"`
	ApprovalRemind      time.Duration `envconfig:"MAILBOT_APPROVAL_REMIND" scope:"serve,shell" desc:"empty: no reminders; a duration shorter than MAILBOT_APPROVAL_TTL: a request still pending after it gets one reminder"`
	HandoverTTL         time.Duration `envconfig:"MAILBOT_HANDOVER_TTL" core:"HandoverTTL" scope:"serve,shell" default:"72h" desc:"how long a hand-over's Show my password button works"`
	SelfService         string        `envconfig:"MAILBOT_SELF_SERVICE" core:"SelfService" scope:"serve,shell" default:"off" desc:"off, or reset: anyone may reset the password of the mailbox whose address is their own confirmed Slack e-mail"`
	ImportMaxRows       int           `envconfig:"MAILBOT_IMPORT_MAX_ROWS" core:"ImportMaxRows" scope:"serve,shell" default:"1000" desc:"the most mailboxes one import may create, 1 to 10000"`
	Domains             []string      `envconfig:"MAILBOT_DOMAINS" core:"Domains" scope:"serve,shell" desc:"allow-list of domains: example.com, *.example.org (subdomains only)"`
	DefaultDomain       string        `envconfig:"MAILBOT_DEFAULT_DOMAIN" core:"DefaultDomain" scope:"serve,shell" desc:"domain for /mailbox add with a bare user name"`
	PasswordLength      int           `envconfig:"MAILBOT_PASSWORD_LENGTH" core:"PasswordLength" scope:"serve,shell" default:"16" desc:"length of generated passwords, {password.min} to {password.max}"`
	DatabaseURL         DatabaseURL   `envconfig:"MAILBOT_DATABASE_URL" scope:"serve,shell,audit" need:"audit" desc:"postgres://... or postgresql://...: requests, decisions and the audit trail live in this PostgreSQL database; empty: in the process (one replica)"`
	AuditRetention      time.Duration `envconfig:"MAILBOT_AUDIT_RETENTION" scope:"serve" default:"8760h" desc:"with MAILBOT_DATABASE_URL: audit entries older than this are deleted (hourly, by one replica); 0 keeps them for ever"`
	DNSResolver         string        `envconfig:"MAILBOT_DNS_RESOLVER" scope:"serve,shell" desc:"host:port of the DNS server /maildomain check asks; empty: the system's resolver"`
	HTTPAddr            string        `envconfig:"MAILBOT_HTTP_ADDR" scope:"serve" empty:"keep" default:":8080" desc:"health and metrics listener (/healthz, /readyz, /metrics); set and empty disables it"`
	ShutdownTimeout     time.Duration `envconfig:"MAILBOT_SHUTDOWN_TIMEOUT" scope:"serve" default:"20s" desc:"how long work in flight may run after SIGTERM"`
	Concurrency         int           `envconfig:"MAILBOT_CONCURRENCY" scope:"serve" default:"8" desc:"operations run at once; more wait their turn"`
	LogLevel            string        `envconfig:"MAILBOT_LOG_LEVEL" default:"info" desc:"debug, info, warn or error (any letter case)"`
	LogFormat           string        `envconfig:"MAILBOT_LOG_FORMAT" default:"json" desc:"json or console"`

	files     fileSources // the secrets read from a file, by variable: errors name their _FILE variant
	providers []Provider  // the rows of MAILBOT_PROVIDER's values
	// routes and domainAdmins are MAILBOT_ROUTES and
	// MAILBOT_DOMAIN_ADMINS, parsed.
	routes       []Route
	domainAdmins []DomainAdmins
	// deprecated says, a line each, which deprecated variables were read:
	// the subcommand logs them as warnings.
	deprecated []string
	// readFrom names, by variable, the deprecated one its value was read
	// from: an error about the value names the variable that was set.
	readFrom map[string]string
	// unused says which variables set belong to a provider not in use.
	unused string
}

// useOldNames takes the value of each renamed variable from its old name
// when only that one is set, and notes it in c.deprecated.
func (c *Config) useOldNames(lookup func(string) (string, bool)) {
	for _, v := range envVars() {
		if v.renamedTo == "" {
			continue
		}
		old, oldSet := lookup(v.name)
		if _, newSet := lookup(v.renamedTo); !oldSet || newSet {
			continue
		}
		if err := c.SetVar(v.renamedTo, old); err == nil {
			if c.readFrom == nil {
				c.readFrom = map[string]string{}
			}
			c.readFrom[v.renamedTo] = v.name
			c.deprecated = append(c.deprecated, v.name+" is deprecated: it still works, but set "+v.renamedTo+" instead")
		}
	}
}

// Error names the variable that is wrong. Reason never holds a
// token or a password.
type Error struct {
	Var    string
	Reason string
}

func (e *Error) Error() string { return "configuration: " + e.Var + ": " + e.Reason }

// Errors is every bad variable at once, one line each.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find each *Error.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// Provider is what the configuration knows of one provider, from its row
// of the provider table: its name (MAILBOT_PROVIDER's value), its title,
// and the shortest password it takes (0: the core's bound alone).
type Provider struct {
	Name, Title string
	MinPassword int
}

// providerNames is MAILBOT_PROVIDER's values, the default first.
func (c *Config) providerNames() []string { return names(c.providers) }

// names is the names of provs.
func names(provs []Provider) []string {
	out := make([]string, len(provs))
	for i, p := range provs {
		out[i] = p.Name
	}
	return out
}

// revealer is a secret's type: it prints redacted, and reveal gives the
// value itself.
type revealer interface{ Reveal() string }

// Load decodes the variables through lookup (os.LookupEnv in
// production, a map in tests) and checks those that subcommand sub reads
// for the selected provider, and that those it needs are set. It reports
// every bad variable at once.
//
// providers are the rows of MAILBOT_PROVIDER's values, the default first.
func Load(lookup func(string) (string, bool), sub string, providers []Provider) (*Config, error) {
	vars := envVars()
	c := Config{providers: providers}
	bad, files, err := decodeEnv(&c, vars, envLookup(lookup, vars))
	if err != nil {
		return nil, err
	}
	if c.Provider == "" && len(providers) > 0 {
		c.Provider = providers[0].Name
	}
	c.useOldNames(envLookup(lookup, vars))
	for name, e := range c.problems(sub, files) {
		if _, ok := bad[name]; !ok {
			bad[name] = e
		}
	}
	if err := c.report(sub, bad); err != nil {
		return nil, err
	}
	c.files = files
	if sub == "serve" || sub == "shell" {
		c.unused = c.otherProviderVars(lookup)
	}
	return &c, nil
}

// otherProviderVars is a warning naming the variables set (not empty, not
// their default, as a shared ConfigMap lists them) that belong to a
// provider other than the one in use, or "".
func (c *Config) otherProviderVars(lookup func(string) (string, bool)) string {
	var names []string
	for _, v := range envVars() {
		if v.provider == "" || c.selects(v.provider) {
			continue
		}
		for _, name := range []string{v.name, v.fileVar()} {
			if val, ok := lookup(name); ok && val != "" && val != v.def && (name == v.name || v.secret) {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, ", ") + " set but not read: another provider's variables, and the one in use is MAILBOT_PROVIDER=" + c.Provider
}

// report is every bad variable of bad that subcommand sub reads, in the
// order of config's fields, or nil.
func (c *Config) report(sub string, bad map[string]*Error) error {
	var errs Errors
	for _, v := range envVars() {
		if e, ok := bad[v.name]; ok && v.usedBy(sub, c.Selected()) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// adminUsers is the user IDs (U…, W…) of MAILBOT_ADMINS.
func (c *Config) adminUsers() []string {
	return slices.DeleteFunc(slices.Clone(c.Admins), commands.IsGroupID)
}

// AdminGroups is the user group IDs (S…) of MAILBOT_ADMINS: their members
// are admins (docs/approvals.md).
func (c *Config) AdminGroups() []string {
	return slices.DeleteFunc(slices.Clone(c.Admins), func(id string) bool { return !commands.IsGroupID(id) })
}

// RequireServe checks what serve needs. Load(lookup, "serve", …)
// already did; it remains for callers holding a config loaded for another
// subcommand.
func (c *Config) RequireServe() error { return c.report("serve", c.problems("serve", c.files)) }

// CredentialsVar is the variable that holds the credentials of c's
// provider: its one secret.
func (c *Config) CredentialsVar() string { return c.CredentialsVarOf(c.Provider) }

// CredentialsVarOf is the variable that holds provider's credentials.
func (c *Config) CredentialsVarOf(provider string) string {
	for _, v := range envVars() {
		if v.secret && v.provider == provider {
			return v.name
		}
	}
	return ""
}

// CoreConfig is the part of Config the commands core uses. Admins keeps
// the user group IDs: the transport resolves them (commands.Config.InGroup).
func (c *Config) CoreConfig() commands.Config {
	cc := commands.Config{
		Admins:            c.Admins,
		Approvals:         commands.ApprovalMode(c.Approvals), // commands.Config.Check parses it
		ApprovalTTL:       c.ApprovalTTL,
		ApprovalsRequired: c.ApprovalsRequired,
		RemindAfter:       c.ApprovalRemind,
		Domains:           c.Domains,
		DefaultDomain:     c.DefaultDomain,
		PasswordLength:    c.PasswordLength,
		HandoverTTL:       c.HandoverTTL,
		SelfService:       commands.SelfServiceMode(c.SelfService), // commands.Config.Check parses it
		ImportMaxRows:     c.ImportMaxRows,
		ImportConcurrency: c.Concurrency,

		ForcePasswordChange: c.ForcePasswordChange,
		CredentialsVariable: c.files.variable(c.CredentialsVar()),
		DomainAdmins:        c.domainAdmins,
	}
	if len(c.routes) > 0 {
		cc.CredentialsVariables = map[string]string{}
		for _, p := range c.Selected() {
			cc.CredentialsVariables[p] = c.files.variable(c.CredentialsVarOf(p))
		}
	}
	// MAILBOT_DNS_RESOLVER was checked by loadConfig: "" or host:port.
	if dns, err := dnscheck.New(c.DNSResolver); err == nil {
		cc.DNS = dns
	}
	return cc
}

// LookupVar is the value of the variable name as c holds it, in the
// environment's form (a Secret revealed); ok is false for a name that is
// not one of config's variables.
func (c *Config) LookupVar(name string) (value string, ok bool) {
	i := slices.IndexFunc(envVars(), func(v configVar) bool { return v.name == name })
	if i < 0 {
		return "", false
	}
	f := reflect.ValueOf(c).Elem().FieldByIndex(envVars()[i].index)
	if r, isSecret := f.Interface().(revealer); isSecret {
		return r.Reveal(), true
	}
	return fmt.Sprint(f.Interface()), true
}

// SetVar sets the variable name of c to value, decoded as the
// environment's would be.
func (c *Config) SetVar(name, value string) error {
	i := slices.IndexFunc(envVars(), func(v configVar) bool { return v.name == name })
	if i < 0 {
		return errors.New("not a configuration variable: " + name)
	}
	field := reflect.ValueOf(c).Elem().FieldByIndex(envVars()[i].index)
	v := reflect.New(field.Type()).Elem()
	if err := decodeField(v, value); err != nil {
		return err // c keeps its value
	}
	field.Set(v)
	return nil
}

// Variable names the variable the operator set for the variable name: its
// _FILE variant when the value came from a file, name itself otherwise.
func (c *Config) Variable(name string) string { return c.files.variable(name) }

// Attributed is e, or, when e is about the value of a secret that came
// from a file, e naming the _FILE variable and the file.
func (c *Config) Attributed(e *Error) *Error { return c.files.attributed(e) }

// CredentialsOf names the variables that hold the selected provider's
// credentials: those serve requires ("MAILCOW_URL and MAILCOW_API_KEY").
func (c *Config) CredentialsOf() string {
	return strings.Join(c.credentialVars(c.Provider), " and ")
}

// credentialVars are provider's variables that serve requires.
func (c *Config) credentialVars(provider string) []string {
	var names []string
	for _, v := range envVars() {
		if v.provider == provider && slices.Contains(v.need, "serve") {
			names = append(names, v.name)
		}
	}
	return names
}

// ProviderCredentialsSet reports whether the credentials of the selected
// provider are set: without them the shell drives that provider's
// embedded sandbox (serve requires them).
func (c *Config) ProviderCredentialsSet() bool { return c.CredentialsSetOf(c.Provider) }

// CredentialsSetOf reports whether provider's credentials are set.
func (c *Config) CredentialsSetOf(provider string) bool {
	for _, name := range c.credentialVars(provider) {
		if v, _ := c.LookupVar(name); v == "" {
			return false
		}
	}
	return true
}

// Deprecations says, a line each, which deprecated variables were read:
// the subcommand logs them as warnings.
func (c *Config) Deprecations() []string { return c.deprecated }

// UnusedVars is, for serve and shell, a warning naming the variables set
// that belong to another provider than the one in use, or "".
func (c *Config) UnusedVars() string { return c.unused }
