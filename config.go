package main

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	_ "unsafe" // for the go:linkname of envconfigLookupEnv

	"github.com/kelseyhightower/envconfig"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/dnscheck"
)

// config is mailbot's configuration: interface §2. The tags say everything
// about a variable, and both the decoding and `mailbot help` read them:
//
//   - envconfig: the variable's name; default: its default (envconfig's own
//     tags); desc: its meaning in `mailbot help`.
//   - scope: the subcommands that read it (comma-separated); without one,
//     every subcommand that reads configuration does. A variable is
//     checked only for the subcommands that read it, so that a bad
//     MAILBOT_PASSWORD_LENGTH does not stop `mailbot sim`.
//   - need: the subcommands that require it to be set.
//   - empty:"keep": set and empty is a value of its own (MAILBOT_HTTP_ADDR=
//     disables the listener). Elsewhere a set but empty variable counts as
//     unset, so that it takes its default.
type config struct {
	SlackAppToken     secret        `envconfig:"SLACK_APP_TOKEN" scope:"serve" need:"serve" desc:"app-level token xapp-..., scope connections:write"`
	SlackBotToken     secret        `envconfig:"SLACK_BOT_TOKEN" scope:"serve" need:"serve" desc:"bot token xoxb-..."`
	SlackAPIURL       string        `envconfig:"SLACK_API_URL" scope:"serve" default:"https://slack.com/api/" desc:"Slack Web API base URL"`
	PDDToken          secret        `envconfig:"PDD_TOKEN" scope:"serve,shell" need:"serve" desc:"value of the PddToken header (the shell uses its embedded sandbox without it)"`
	PDDBaseURL        string        `envconfig:"PDD_BASE_URL" scope:"serve,shell" default:"https://pddimp.yandex.ru" desc:"PDD API base URL"`
	PDDTimeout        time.Duration `envconfig:"PDD_TIMEOUT" scope:"serve,shell" default:"15s" desc:"timeout of one PDD request"`
	Admins            []string      `envconfig:"MAILBOT_ADMINS" scope:"serve,shell" need:"serve" desc:"comma-separated Slack user IDs (U..., W...) and user group IDs (S..., members are admins) allowed to run operations and decide requests"`
	OpsChannel        string        `envconfig:"MAILBOT_OPS_CHANNEL" scope:"serve" desc:"channel ID for notifications and approval requests"`
	Approvals         string        `envconfig:"MAILBOT_APPROVALS" scope:"serve,shell" default:"off" desc:"off, requests or all (for serve, requests and all need MAILBOT_OPS_CHANNEL)"`
	ApprovalTTL       time.Duration `envconfig:"MAILBOT_APPROVAL_TTL" scope:"serve,shell" default:"24h" desc:"a pending request older than this expires"`
	ApprovalsRequired int           `envconfig:"MAILBOT_APPROVALS_REQUIRED" scope:"serve,shell" default:"1" desc:"how many different admins must approve a request, 1 to 5"`
	ApprovalRemind    time.Duration `envconfig:"MAILBOT_APPROVAL_REMIND" scope:"serve,shell" desc:"empty: no reminders; a duration shorter than MAILBOT_APPROVAL_TTL: a request still pending after it gets one reminder"`
	Domains           []string      `envconfig:"MAILBOT_DOMAINS" scope:"serve,shell" desc:"allow-list of domains: example.com, *.example.org (subdomains only)"`
	DefaultDomain     string        `envconfig:"MAILBOT_DEFAULT_DOMAIN" scope:"serve,shell" desc:"domain for /mailbox add with a bare user name"`
	PasswordLength    int           `envconfig:"MAILBOT_PASSWORD_LENGTH" scope:"serve,shell" default:"16" desc:"length of generated passwords, 6 to 20"`
	DatabaseURL       databaseURL   `envconfig:"MAILBOT_DATABASE_URL" scope:"serve,audit" need:"audit" desc:"postgres://... or postgresql://...: requests, decisions and the audit trail live in this PostgreSQL database; empty: in the process (one replica)"`
	AuditRetention    time.Duration `envconfig:"MAILBOT_AUDIT_RETENTION" scope:"serve" default:"8760h" desc:"with MAILBOT_DATABASE_URL: audit entries older than this are deleted (hourly, by one replica); 0 keeps them for ever"`
	DNSResolver       string        `envconfig:"MAILBOT_DNS_RESOLVER" scope:"serve,shell" desc:"host:port of the DNS server /maildomain check asks; empty: the system's resolver"`
	HTTPAddr          string        `envconfig:"MAILBOT_HTTP_ADDR" scope:"serve" empty:"keep" default:":8080" desc:"health and metrics listener (/healthz, /readyz, /metrics); set and empty disables it"`
	ShutdownTimeout   time.Duration `envconfig:"MAILBOT_SHUTDOWN_TIMEOUT" scope:"serve" default:"20s" desc:"how long work in flight may run after SIGTERM"`
	Concurrency       int           `envconfig:"MAILBOT_CONCURRENCY" scope:"serve" default:"8" desc:"operations run at once; more wait their turn"`
	LogLevel          string        `envconfig:"MAILBOT_LOG_LEVEL" default:"info" desc:"debug, info, warn or error (any letter case)"`
	LogFormat         string        `envconfig:"MAILBOT_LOG_FORMAT" default:"json" desc:"json or console"`
}

// configError names the variable that is wrong. Reason never holds a
// token or a password.
type configError struct {
	Var    string
	Reason string
}

func (e *configError) Error() string { return "configuration: " + e.Var + ": " + e.Reason }

// configErrors is every bad variable at once, one line each.
type configErrors []*configError

func (es configErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find each *configError.
func (es configErrors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// configVar is one field of config as its tags describe it.
type configVar struct {
	name, def, desc string
	scope, need     []string // nil scope: every subcommand that reads configuration
	keepEmpty       bool
	index           int // of the field in config
}

// usedBy reports whether subcommand sub reads the variable.
func (v configVar) usedBy(sub string) bool { return v.scope == nil || slices.Contains(v.scope, sub) }

// envVars lists the variables of config in the order of its fields.
// Reading tags is plain reflect.Type work, which leaves the linker's
// dead-code elimination on (unlike reflect.Value.MethodByName).
func envVars() []configVar {
	typ := reflect.TypeFor[config]()
	vars := make([]configVar, 0, typ.NumField())
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag
		name := tag.Get("envconfig")
		if name == "" {
			continue
		}
		vars = append(vars, configVar{
			name: name, def: tag.Get("default"), desc: tag.Get("desc"),
			scope: splitList(tag.Get("scope")), need: splitList(tag.Get("need")),
			keepEmpty: tag.Get("empty") == "keep", index: i,
		})
	}
	return vars
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// loadConfig decodes the variables through lookup (os.LookupEnv in
// production, a map in tests) and checks those that subcommand sub reads,
// and that those it needs are set. It reports every bad variable at once.
func loadConfig(lookup func(string) (string, bool), sub string) (*config, error) {
	vars := envVars()
	lookup = envLookup(lookup, vars)
	var c config
	bad, err := decodeEnv(&c, lookup)
	if err != nil {
		return nil, err
	}
	for name, reason := range c.problems(sub) {
		if _, ok := bad[name]; !ok {
			bad[name] = reason
		}
	}
	var errs configErrors
	for _, v := range vars {
		if reason, ok := bad[v.name]; ok && v.usedBy(sub) {
			errs = append(errs, &configError{Var: v.name, Reason: reason})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &c, nil
}

// envLookup trims the values of lookup and reports a set but empty
// variable as unset, so that it takes its default, unless it is tagged
// empty:"keep".
func envLookup(lookup func(string) (string, bool), vars []configVar) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		if ok && v == "" {
			i := slices.IndexFunc(vars, func(cv configVar) bool { return cv.name == name })
			ok = i >= 0 && vars[i].keepEmpty
		}
		return v, ok
	}
}

// envconfigLookupEnv is envconfig's source of values. envconfig v1.4
// reads variables only through this package variable (os.LookupEnv, see
// env_os.go), has no option to replace it (upstream PR #210, "Allow
// override of lookupEnv", is unmerged), and stops at the first value it
// cannot decode. run() takes its environment as a lookup, so that tests
// pass a map and run in parallel; so decodeEnv points this variable at
// that lookup for one decoding, under envMu, and puts it back. The other
// ways are worse: os.Setenv around envconfig.Process changes the
// environment under every other goroutine of the process (and of the
// commands it starts), and a patched copy of envconfig leaves the module
// the design card names. The version is pinned by go.mod and go.sum; if a
// new envconfig renamed the variable, decoding would silently read the
// process environment, and TestLoadConfigReadsTheLookupOnly would fail.
//
//go:linkname envconfigLookupEnv github.com/kelseyhightower/envconfig.lookupEnv
var envconfigLookupEnv func(string) (string, bool)

// envMu serialises the decodings that borrow envconfigLookupEnv.
var envMu sync.Mutex

// decodeEnv runs envconfig.Process on c with lookup as the environment. A
// value envconfig cannot decode is recorded, then treated as unset (so the
// field takes its default) and the decoding runs again, until every value
// decodes: bad maps each such variable to the reason.
func decodeEnv(c *config, lookup func(string) (string, bool)) (bad map[string]string, _ error) {
	envMu.Lock()
	defer envMu.Unlock()
	saved := envconfigLookupEnv
	defer func() { envconfigLookupEnv = saved }()
	bad = make(map[string]string)
	envconfigLookupEnv = func(name string) (string, bool) {
		if _, skip := bad[name]; skip {
			return "", false
		}
		return lookup(name)
	}
	for {
		*c = config{}
		err := envconfig.Process("", c)
		var pe *envconfig.ParseError
		if !errors.As(err, &pe) {
			return bad, err // nil, or a program error such as a bad default
		}
		if _, again := bad[pe.KeyName]; again {
			return nil, fmt.Errorf("configuration: %s: the default %q does not decode", pe.KeyName, pe.Value)
		}
		bad[pe.KeyName] = decodeReason(pe)
	}
}

// decodeReason says why a value does not decode. Only durations and
// numbers fail to decode, so the value is shown; tokens never fail.
func decodeReason(pe *envconfig.ParseError) string {
	v := shorten(pe.Value, 40)
	switch pe.TypeName {
	case "time.Duration":
		return fmt.Sprintf("%q is not a duration such as 15s or 24h", v)
	case "int":
		return fmt.Sprintf("%q is not a whole number", v)
	}
	return fmt.Sprintf("the value does not decode as %s", pe.TypeName)
}

// adminUsers is the user IDs (U…, W…) of MAILBOT_ADMINS.
func (c *config) adminUsers() []string {
	return slices.DeleteFunc(slices.Clone(c.Admins), isGroupID)
}

// adminGroups is the user group IDs (S…) of MAILBOT_ADMINS: their members
// are admins (interface §6).
func (c *config) adminGroups() []string {
	return slices.DeleteFunc(slices.Clone(c.Admins), func(id string) bool { return !isGroupID(id) })
}

func isGroupID(id string) bool { return slackGroupID.MatchString(id) }

// requireServe checks what serve needs. loadConfig(lookup, "serve")
// already did; it remains for callers holding a config loaded for another
// subcommand.
func (c *config) requireServe() error {
	var errs configErrors
	problems := c.problems("serve")
	for _, v := range envVars() {
		if reason, ok := problems[v.name]; ok && v.usedBy("serve") {
			errs = append(errs, &configError{Var: v.name, Reason: reason})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// coreConfig is the part of config the commands core uses. Admins keeps
// the user group IDs: the transport resolves them (commands.Config.InGroup).
func (c *config) coreConfig() commands.Config {
	mode, _ := commands.ParseApprovalMode(c.Approvals) // checked by loadConfig
	cc := commands.Config{
		Admins:            c.Admins,
		Approvals:         mode,
		ApprovalTTL:       c.ApprovalTTL,
		ApprovalsRequired: c.ApprovalsRequired,
		RemindAfter:       c.ApprovalRemind,
		Domains:           c.Domains,
		DefaultDomain:     c.DefaultDomain,
		PasswordLength:    c.PasswordLength,
	}
	// MAILBOT_DNS_RESOLVER was checked by loadConfig: "" or host:port.
	if dns, err := dnscheck.New(c.DNSResolver); err == nil {
		cc.DNS = dns
	}
	return cc
}
