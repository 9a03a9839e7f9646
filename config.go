package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/internal/textcut"
)

// config is mailbot's configuration. The tags say everything about a
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
//   - empty:"keep": set and empty is a value of its own (MAILBOT_HTTP_ADDR=
//     disables the listener). Elsewhere a set but empty variable counts as
//     unset, so that it takes its default.
//
// A field of type secret or databaseURL may come from a file instead: its
// variable's name with _FILE appended names the file (as container
// platforms mount secrets); one of the two may be set, never both. The
// file's trailing white space is dropped, and an error about its value
// names the _FILE variable and the file.
type config struct {
	SlackAppToken       secret        `envconfig:"SLACK_APP_TOKEN" scope:"serve" need:"serve" desc:"app-level token xapp-..., scope connections:write"`
	SlackBotToken       secret        `envconfig:"SLACK_BOT_TOKEN" scope:"serve" need:"serve" desc:"bot token xoxb-..."`
	SlackAPIURL         string        `envconfig:"SLACK_API_URL" scope:"serve" default:"https://slack.com/api/" desc:"Slack Web API base URL"`
	Provider            string        `envconfig:"MAILBOT_PROVIDER" scope:"serve,shell" default:"pdd" desc:"the mail-hosting API mailbot drives: pdd, yandex360 or mailcow"`
	PDDToken            secret        `envconfig:"PDD_TOKEN" scope:"serve,shell" provider:"pdd" need:"serve" desc:"value of the PddToken header (the shell uses its embedded sandbox without it)"`
	PDDBaseURL          string        `envconfig:"PDD_BASE_URL" scope:"serve,shell" provider:"pdd" default:"https://pddimp.yandex.ru" desc:"PDD API base URL"`
	PDDTimeout          time.Duration `envconfig:"PDD_TIMEOUT" scope:"serve,shell" default:"15s" desc:"timeout of one request to the provider, whichever it is"`
	Y360Token           secret        `envconfig:"Y360_TOKEN" scope:"serve,shell" provider:"yandex360" need:"serve" desc:"Yandex 360 OAuth token (the shell uses its embedded sandbox without it)"`
	Y360OrgID           string        `envconfig:"Y360_ORG_ID" scope:"serve,shell" provider:"yandex360" desc:"Yandex 360 organisation ID; empty: the one organisation the token sees"`
	Y360BaseURL         string        `envconfig:"Y360_BASE_URL" scope:"serve,shell" provider:"yandex360" default:"https://api360.yandex.net" desc:"Yandex 360 API base URL"`
	Y360DepartmentID    int           `envconfig:"Y360_DEPARTMENT_ID" scope:"serve,shell" provider:"yandex360" default:"1" desc:"Yandex 360 department of new users"`
	MailcowURL          string        `envconfig:"MAILCOW_URL" scope:"serve,shell" provider:"mailcow" need:"serve" desc:"the mailcow server, https://mail.example.com (the shell uses its embedded sandbox without it and MAILCOW_API_KEY)"`
	MailcowAPIKey       secret        `envconfig:"MAILCOW_API_KEY" scope:"serve,shell" provider:"mailcow" need:"serve" desc:"a read-write mailcow API key (X-API-Key)"`
	MailcowMX           string        `envconfig:"MAILCOW_MX" scope:"serve,shell" provider:"mailcow" desc:"the MX host the DNS checklist expects; empty: the host of MAILCOW_URL (required when that is an IP address)"`
	ForcePasswordChange bool          `envconfig:"MAILBOT_FORCE_PASSWORD_CHANGE" scope:"serve,shell" default:"true" desc:"new mailboxes and reset passwords must be changed at the next login, where the provider can require it"`
	Admins              []string      `envconfig:"MAILBOT_ADMINS" scope:"serve,shell" need:"serve" desc:"comma-separated Slack user IDs (U..., W...) and user group IDs (S..., members are admins) allowed to run operations and decide requests"`
	OpsChannel          string        `envconfig:"MAILBOT_OPS_CHANNEL" scope:"serve" desc:"channel ID for notifications and approval requests"`
	Approvals           string        `envconfig:"MAILBOT_APPROVALS" scope:"serve,shell" default:"off" desc:"off, requests or all (for serve, requests and all need MAILBOT_OPS_CHANNEL)"`
	ApprovalTTL         time.Duration `envconfig:"MAILBOT_APPROVAL_TTL" scope:"serve,shell" default:"24h" desc:"a pending request older than this expires"`
	ApprovalsRequired   int           `envconfig:"MAILBOT_APPROVALS_REQUIRED" scope:"serve,shell" default:"1" desc:"how many different admins must approve a request, 1 to {approvals.max}"`
	ApprovalRemind      time.Duration `envconfig:"MAILBOT_APPROVAL_REMIND" scope:"serve,shell" desc:"empty: no reminders; a duration shorter than MAILBOT_APPROVAL_TTL: a request still pending after it gets one reminder"`
	HandoverTTL         time.Duration `envconfig:"MAILBOT_HANDOVER_TTL" scope:"serve,shell" default:"72h" desc:"how long a hand-over's Show my password button works"`
	SelfService         string        `envconfig:"MAILBOT_SELF_SERVICE" scope:"serve,shell" default:"off" desc:"off, or reset: anyone may reset the password of the mailbox whose address is their own confirmed Slack e-mail"`
	Domains             []string      `envconfig:"MAILBOT_DOMAINS" scope:"serve,shell" desc:"allow-list of domains: example.com, *.example.org (subdomains only)"`
	DefaultDomain       string        `envconfig:"MAILBOT_DEFAULT_DOMAIN" scope:"serve,shell" desc:"domain for /mailbox add with a bare user name"`
	PasswordLength      int           `envconfig:"MAILBOT_PASSWORD_LENGTH" scope:"serve,shell" default:"16" desc:"length of generated passwords, {password.min} to {password.max}"`
	DatabaseURL         databaseURL   `envconfig:"MAILBOT_DATABASE_URL" scope:"serve,shell,audit" need:"audit" desc:"postgres://... or postgresql://...: requests, decisions and the audit trail live in this PostgreSQL database; empty: in the process (one replica)"`
	AuditRetention      time.Duration `envconfig:"MAILBOT_AUDIT_RETENTION" scope:"serve" default:"8760h" desc:"with MAILBOT_DATABASE_URL: audit entries older than this are deleted (hourly, by one replica); 0 keeps them for ever"`
	DNSResolver         string        `envconfig:"MAILBOT_DNS_RESOLVER" scope:"serve,shell" desc:"host:port of the DNS server /maildomain check asks; empty: the system's resolver"`
	HTTPAddr            string        `envconfig:"MAILBOT_HTTP_ADDR" scope:"serve" empty:"keep" default:":8080" desc:"health and metrics listener (/healthz, /readyz, /metrics); set and empty disables it"`
	ShutdownTimeout     time.Duration `envconfig:"MAILBOT_SHUTDOWN_TIMEOUT" scope:"serve" default:"20s" desc:"how long work in flight may run after SIGTERM"`
	Concurrency         int           `envconfig:"MAILBOT_CONCURRENCY" scope:"serve" default:"8" desc:"operations run at once; more wait their turn"`
	LogLevel            string        `envconfig:"MAILBOT_LOG_LEVEL" default:"info" desc:"debug, info, warn or error (any letter case)"`
	LogFormat           string        `envconfig:"MAILBOT_LOG_FORMAT" default:"json" desc:"json or console"`

	files fileSources // the secrets read from a file, by variable: errors name their _FILE variant
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
	provider        string   // empty: whichever provider is selected
	keepEmpty       bool
	secret          bool // may come from the file named by fileVar
	index           int  // of the field in config
}

// usedBy reports whether subcommand sub reads the variable when provider
// is selected.
func (v configVar) usedBy(sub, provider string) bool {
	return (v.scope == nil || slices.Contains(v.scope, sub)) && (v.provider == "" || v.provider == provider)
}

// envVars lists the variables of config in the order of its fields.
// Reading tags is plain reflect.Type work, which leaves the linker's
// dead-code elimination on (unlike reflect.Value.MethodByName).
func envVars() []configVar {
	typ := reflect.TypeFor[config]()
	vars := make([]configVar, 0, typ.NumField())
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := f.Tag.Get("envconfig")
		if name == "" {
			continue
		}
		vars = append(vars, configVar{
			name: name, def: f.Tag.Get("default"), desc: f.Tag.Get("desc"),
			scope: splitList(f.Tag.Get("scope")), need: splitList(f.Tag.Get("need")),
			provider: f.Tag.Get("provider"), keepEmpty: f.Tag.Get("empty") == "keep",
			secret: f.Type.Implements(reflect.TypeFor[revealer]()), index: i,
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

// revealer is a secret's type: it prints redacted, and reveal gives the
// value itself.
type revealer interface{ reveal() string }

// loadConfig decodes the variables through lookup (os.LookupEnv in
// production, a map in tests) and checks those that subcommand sub reads
// for the selected provider, and that those it needs are set. It reports
// every bad variable at once.
func loadConfig(lookup func(string) (string, bool), sub string) (*config, error) {
	vars := envVars()
	var c config
	bad, files, err := decodeEnv(&c, vars, envLookup(lookup, vars))
	if err != nil {
		return nil, err
	}
	for name, e := range c.problems(sub, files) {
		if _, ok := bad[name]; !ok {
			bad[name] = e
		}
	}
	if err := c.report(sub, bad); err != nil {
		return nil, err
	}
	c.files = files
	return &c, nil
}

// report is every bad variable of bad that subcommand sub reads, in the
// order of config's fields, or nil.
func (c *config) report(sub string, bad map[string]*configError) error {
	var errs configErrors
	for _, v := range envVars() {
		if e, ok := bad[v.name]; ok && v.usedBy(sub, c.Provider) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// fileSources holds, by secret variable, the path of the file its value
// came from (its _FILE variant named it). The zero value, nil, is no
// file.
type fileSources map[string]string

// attributed is e, or, when e is about the value of a secret that came
// from a file, e naming the _FILE variable and the file: the operator
// set that variable, not the secret's own.
func (src fileSources) attributed(e *configError) *configError {
	path, ok := src[e.Var]
	if !ok {
		return e
	}
	return &configError{Var: e.Var + "_FILE", Reason: "the file " + path + ": " + e.Reason}
}

// variable names the variable the operator set for the variable name: its
// _FILE variant when the value came from a file, name itself otherwise.
func (src fileSources) variable(name string) string {
	if _, ok := src[name]; ok {
		return name + "_FILE"
	}
	return name
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

// decodeEnv decodes each variable of vars that lookup holds, or its
// default, into its field of c. A value that does not decode is recorded
// in bad, by variable, and the field takes its default. files is where
// the secrets read from files came from.
func decodeEnv(c *config, vars []configVar, lookup func(string) (string, bool)) (bad map[string]*configError, files fileSources, _ error) {
	bad = make(map[string]*configError)
	fields := reflect.ValueOf(c).Elem()
	for _, v := range vars {
		raw, set, path, err := v.value(lookup)
		if err != nil {
			bad[v.name] = err
			set = false
		}
		if set && path != "" {
			if files == nil {
				files = make(fileSources)
			}
			files[v.name] = path
		}
		if set {
			if derr := decodeField(fields.Field(v.index), raw); derr != nil {
				bad[v.name] = &configError{Var: v.name, Reason: decodeReason(fields.Field(v.index).Type(), raw)}
				set = false
			}
		}
		if !set && v.def != "" {
			if err := decodeField(fields.Field(v.index), v.def); err != nil {
				return nil, nil, fmt.Errorf("configuration: %s: the default %q does not decode", v.name, v.def)
			}
		}
	}
	return bad, files, nil
}

// value is the variable's value from lookup, or, for a secret, from the
// file its _FILE variant names, and then path is that file's. The file's
// trailing white space (spaces, tabs, CR, LF: what editors and container
// platforms leave) is dropped, its leading content kept; a file with
// nothing else is an error, as is a file that cannot be read. Every error
// names the _FILE variable and never the file's content.
func (v configVar) value(lookup func(string) (string, bool)) (raw string, set bool, path string, _ *configError) {
	raw, set = lookup(v.name)
	if !v.secret {
		return raw, set, "", nil
	}
	fileVar := v.fileVar()
	path, fromFile := lookup(fileVar)
	switch {
	case fromFile && set:
		return "", false, "", &configError{Var: fileVar, Reason: "set only one of " + v.name + " and " + fileVar}
	case !fromFile:
		return raw, set, "", nil
	}
	b, err := readSmallFile(path)
	if err != nil {
		return "", false, "", &configError{Var: fileVar, Reason: "cannot read the file: " + fileProblem(err)}
	}
	s := strings.TrimRight(string(b), secretFileSpace)
	switch {
	case len(b) == 0:
		return "", false, "", &configError{Var: fileVar, Reason: "the file " + path + " is empty"}
	case s == "":
		return "", false, "", &configError{Var: fileVar, Reason: "the file " + path + " holds only white space"}
	}
	return s, true, path, nil
}

// secretFileSpace is the trailing white space dropped from a secret's
// file.
const secretFileSpace = " \t\r\n"

// maxSecretFile bounds a secret's file: a token or a URL is far smaller,
// and a path such as /dev/zero must not hang the start.
const maxSecretFile = 64 << 10

// readSmallFile reads the file at path, of at most maxSecretFile bytes.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err == nil && len(b) > maxSecretFile {
		err = fmt.Errorf("larger than %d KiB", maxSecretFile>>10)
	}
	return b, err
}

// fileVar is the name of the variable that names a file holding the
// secret variable v: v's name with _FILE appended.
func (v configVar) fileVar() string { return v.name + "_FILE" }

// fileProblem is why a file could not be read, with its path (which the
// operator chose) but nothing of its content.
func fileProblem(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// decodeField sets field from raw: a type that decodes itself does
// (envconfig.Decoder, as under envconfig); otherwise by the field's kind.
func decodeField(field reflect.Value, raw string) error {
	if d, ok := field.Addr().Interface().(envconfig.Decoder); ok {
		return d.Decode(raw)
	}
	if field.Type() == reflect.TypeFor[time.Duration]() {
		d, err := time.ParseDuration(raw)
		field.SetInt(int64(d))
		return err
	}
	switch field.Kind() {
	case reflect.String:
		field.SetString(raw)
		return nil
	case reflect.Int:
		n, err := strconv.Atoi(raw)
		field.SetInt(int64(n))
		return err
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		field.SetBool(b)
		return err
	case reflect.Slice:
		if field.Type().Elem().Kind() == reflect.String {
			field.Set(reflect.ValueOf(strings.Split(raw, ",")).Convert(field.Type()))
			return nil
		}
	}
	return fmt.Errorf("configuration: no decoding for %s", field.Type())
}

// decodeReason says why a value does not decode. Only durations, numbers
// and booleans fail to decode, so the value is shown; secrets never fail.
func decodeReason(typ reflect.Type, raw string) string {
	v := textcut.Runes(raw, 40)
	switch typ {
	case reflect.TypeFor[time.Duration]():
		return fmt.Sprintf("%q is not a duration such as 15s or 24h", v)
	case reflect.TypeFor[int]():
		return fmt.Sprintf("%q is not a whole number", v)
	case reflect.TypeFor[bool]():
		return fmt.Sprintf("%q is not true or false", v)
	}
	return fmt.Sprintf("the value does not decode as %s", typ)
}

// adminUsers is the user IDs (U…, W…) of MAILBOT_ADMINS.
func (c *config) adminUsers() []string {
	return slices.DeleteFunc(slices.Clone(c.Admins), commands.IsGroupID)
}

// adminGroups is the user group IDs (S…) of MAILBOT_ADMINS: their members
// are admins (docs/approvals.md).
func (c *config) adminGroups() []string {
	return slices.DeleteFunc(slices.Clone(c.Admins), func(id string) bool { return !commands.IsGroupID(id) })
}

// requireServe checks what serve needs. loadConfig(lookup, "serve")
// already did; it remains for callers holding a config loaded for another
// subcommand.
func (c *config) requireServe() error { return c.report("serve", c.problems("serve", c.files)) }

// credentialsVar is the variable that holds the credentials of c's
// provider: its one secret.
func (c *config) credentialsVar() string {
	for _, v := range envVars() {
		if v.secret && v.provider == c.Provider {
			return v.name
		}
	}
	return ""
}

// coreConfig is the part of config the commands core uses. Admins keeps
// the user group IDs: the transport resolves them (commands.Config.InGroup).
func (c *config) coreConfig() commands.Config {
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

		ForcePasswordChange: c.ForcePasswordChange,
		CredentialsVariable: c.files.variable(c.credentialsVar()),
	}
	// MAILBOT_DNS_RESOLVER was checked by loadConfig: "" or host:port.
	if dns, err := dnscheck.New(c.DNSResolver); err == nil {
		cc.DNS = dns
	}
	return cc
}
