package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// secret is a token: it prints as <secret> wherever it might be logged.
type secret string

func (s secret) String() string                               { return "<secret>" }
func (s secret) GoString() string                             { return "<secret>" }
func (s secret) MarshalText() ([]byte, error)                 { return []byte("<secret>"), nil }
func (s secret) Format(f fmt.State, verb rune)                { _, _ = io.WriteString(f, "<secret>") }
func (s secret) reveal() string                               { return string(s) }
func (s *secret) Decode(value string) error                   { *s = secret(value); return nil }
func (s secret) MarshalLogObject(zapcore.ObjectEncoder) error { return nil }

// databaseURL is MAILBOT_DATABASE_URL: it prints with its password
// replaced by xxxxx, and reveal gives the URL itself, for the driver only.
type databaseURL string

func (d databaseURL) String() string                { return d.redacted() }
func (d databaseURL) GoString() string              { return strconv.Quote(d.redacted()) }
func (d databaseURL) MarshalText() ([]byte, error)  { return []byte(d.redacted()), nil }
func (d databaseURL) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, d.redacted()) }
func (d databaseURL) reveal() string                { return string(d) }

// redacted is the URL with the password of its user information and any
// password parameter replaced by xxxxx.
func (d databaseURL) redacted() string {
	if d == "" {
		return ""
	}
	u, err := url.Parse(string(d))
	if err != nil {
		return "<not a URL, not shown>"
	}
	if q := u.Query(); len(q) > 0 {
		for k := range q {
			if strings.Contains(strings.ToLower(k), "password") {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

var (
	slackUserID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	slackChannelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
	quoted         = regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`)
)

// The providers of MAILBOT_PROVIDER.
const (
	providerPDD       = "pdd"
	providerYandex360 = "yandex360"
	providerMailcow   = "mailcow"
)

// problems returns the bad variables: bad values, then, for subcommand
// sub, unset variables it needs and values that contradict each other. It
// normalises some values (the Slack URL's slash, the default domain, the
// letter case of the log settings and of the provider, the mailcow MX).
// An error about a secret that came from a file (files) names its _FILE
// variable and the file.
func (c *config) problems(sub string, files fileSources) map[string]*configError {
	p := make(map[string]*configError)
	add := func(name string, err error) {
		if _, seen := p[name]; err != nil && !seen {
			p[name] = files.attributed(&configError{Var: name, Reason: err.Error()})
		}
	}
	for _, ch := range c.valueChecks() {
		add(ch.name, ch.err)
	}
	for _, ch := range c.coreChecks() {
		add(ch.name, ch.err)
	}
	v := reflect.ValueOf(c).Elem()
	for _, cv := range envVars() {
		if slices.Contains(cv.need, sub) && v.Field(cv.index).IsZero() {
			add(cv.name, fmt.Errorf("required by %s, not set (see mailbot help)", sub))
		}
	}
	for _, ch := range c.crossChecks(sub, files) {
		add(ch.name, ch.err)
	}
	return p
}

type check struct {
	name string
	err  error
}

// valueChecks checks each value on its own.
func (c *config) valueChecks() []check {
	c.LogLevel, c.LogFormat = strings.ToLower(c.LogLevel), strings.ToLower(c.LogFormat)
	c.Provider = strings.ToLower(c.Provider)
	c.Admins, c.Domains = cleanList(c.Admins), cleanList(c.Domains)
	return []check{
		{"SLACK_APP_TOKEN", checkToken(c.SlackAppToken, "xapp-", "an app-level token (xapp-...)")},
		{"SLACK_BOT_TOKEN", checkToken(c.SlackBotToken, "xoxb-", "a bot token (xoxb-...)")},
		{"SLACK_API_URL", c.normaliseSlackURL()},
		{"MAILBOT_PROVIDER", oneOf(c.Provider, providerPDD, providerYandex360, providerMailcow)},
		{"PDD_BASE_URL", checkURL(c.PDDBaseURL)},
		{"PDD_TIMEOUT", positive(c.PDDTimeout)},
		{"Y360_TOKEN", checkBareToken(c.Y360Token)},
		{"Y360_ORG_ID", checkOrgID(c.Y360OrgID)},
		{"Y360_BASE_URL", checkURL(c.Y360BaseURL)},
		{"Y360_DEPARTMENT_ID", inRange(c.Y360DepartmentID, 1, math.MaxInt32)},
		{"MAILCOW_URL", checkOptionalURL(c.MailcowURL)},
		{"MAILCOW_API_KEY", checkBareToken(c.MailcowAPIKey)},
		{"MAILCOW_MX", c.normaliseMailcowMX()},
		{"MAILBOT_ADMINS", checkAdmins(c.Admins)},
		{"MAILBOT_OPS_CHANNEL", matchAll(nonEmpty(c.OpsChannel), slackChannelID, "a Slack channel ID such as C012AB3CD")},
		{"MAILBOT_APPROVAL_REMIND", c.checkRemind()},
		{"MAILBOT_DATABASE_URL", checkDatabaseURL(c.DatabaseURL)},
		{"MAILBOT_DNS_RESOLVER", checkResolver(c.DNSResolver)},
		{"MAILBOT_HTTP_ADDR", checkAddr(c.HTTPAddr)},
		{"MAILBOT_LOG_LEVEL", oneOf(c.LogLevel, "debug", "info", "warn", "error")},
		{"MAILBOT_LOG_FORMAT", oneOf(c.LogFormat, "json", "console")},
		{"MAILBOT_SHUTDOWN_TIMEOUT", positive(c.ShutdownTimeout)},
		{"MAILBOT_CONCURRENCY", inRange(c.Concurrency, 1, 1024)},
	}
}

// coreSettings names the variable of each setting of commands.Config
// that commands.Config.Check refuses.
var coreSettings = map[commands.Setting]string{
	commands.SettingApprovals:         "MAILBOT_APPROVALS",
	commands.SettingApprovalTTL:       "MAILBOT_APPROVAL_TTL",
	commands.SettingApprovalsRequired: "MAILBOT_APPROVALS_REQUIRED",
	commands.SettingDomains:           "MAILBOT_DOMAINS",
	commands.SettingDefaultDomain:     "MAILBOT_DEFAULT_DOMAIN",
	commands.SettingPasswordLength:    "MAILBOT_PASSWORD_LENGTH",
	commands.SettingHandoverTTL:       "MAILBOT_HANDOVER_TTL",
	commands.SettingSelfService:       "MAILBOT_SELF_SERVICE",
}

// coreChecks checks the policy settings by the core's own rules
// (commands.Config.Check), and keeps the default domain normalised.
func (c *config) coreChecks() []check {
	cc, errs := c.coreConfig().Check()
	if cc.DefaultDomain != "" {
		c.DefaultDomain = cc.DefaultDomain
	}
	if cc.Approvals != "" {
		c.Approvals = string(cc.Approvals)
	}
	checks := make([]check, len(errs))
	for i, e := range errs {
		checks[i] = check{coreSettings[e.Setting], e.Err}
	}
	return checks
}

// crossChecks checks the values that must agree with each other for sub.
func (c *config) crossChecks(sub string, files fileSources) []check {
	var checks []check
	off := c.Approvals == "" || strings.EqualFold(c.Approvals, string(commands.ApprovalsOff))
	if sub == "serve" && !off && c.OpsChannel == "" {
		checks = append(checks, check{"MAILBOT_APPROVALS", fmt.Errorf("mode %s needs MAILBOT_OPS_CHANNEL for the approval requests", c.Approvals)})
	}
	if c.ApprovalsRequired > 1 && off {
		checks = append(checks, check{"MAILBOT_APPROVALS_REQUIRED", fmt.Errorf(
			"is %d, but MAILBOT_APPROVALS is off, so nothing is ever approved: set MAILBOT_APPROVALS to requests or all, or this to 1", c.ApprovalsRequired)})
	}
	if c.Provider == providerMailcow && (c.MailcowURL == "") != (c.MailcowAPIKey == "") {
		missing, other := "MAILCOW_URL", files.variable("MAILCOW_API_KEY")
		if c.MailcowAPIKey == "" {
			missing, other = "MAILCOW_API_KEY", "MAILCOW_URL"
		}
		checks = append(checks, check{missing, fmt.Errorf("not set, but %s is: set both, or neither for the shell's sandbox", other)})
	}
	// With user groups the number of admins is known only at start; the
	// shell adds its own user, an admin.
	users := slices.Compact(slices.Sorted(slices.Values(c.adminUsers())))
	if n := len(users); n > 0 && len(c.adminGroups()) == 0 && !off {
		if sub == "shell" {
			n++
		}
		if c.ApprovalsRequired > n {
			checks = append(checks, check{"MAILBOT_APPROVALS_REQUIRED", fmt.Errorf(
				"is %d, but there are only %d admins (MAILBOT_ADMINS) to approve", c.ApprovalsRequired, n)})
		}
	}
	return checks
}

// ProviderCredentialsSet reports whether the credentials of the selected
// provider are set: without them the shell drives that provider's
// embedded sandbox (serve requires them).
func (c *config) ProviderCredentialsSet() bool {
	switch c.Provider {
	case providerYandex360:
		return c.Y360Token != ""
	case providerMailcow:
		return c.MailcowURL != "" && c.MailcowAPIKey != ""
	}
	return c.PDDToken != ""
}

func checkToken(t secret, prefix, what string) error {
	if t == "" || strings.HasPrefix(t.reveal(), prefix) && len(t) > len(prefix) && !strings.ContainsAny(t.reveal(), " \t\r\n") {
		return nil
	}
	return fmt.Errorf("must be %s; the value given is not (not shown)", what)
}

func (c *config) normaliseSlackURL() error {
	if err := checkURL(c.SlackAPIURL); err != nil {
		return err
	}
	if !strings.HasSuffix(c.SlackAPIURL, "/") {
		c.SlackAPIURL += "/"
	}
	return nil
}

func checkURL(raw string) error {
	_, err := apiclient.CheckURL(raw)
	return err
}

// checkOptionalURL is checkURL for a URL without a default: empty, or a
// URL by the same rules.
func checkOptionalURL(raw string) error {
	if raw == "" {
		return nil
	}
	return checkURL(raw)
}

// checkBareToken checks a token that has no known prefix: one word.
func checkBareToken(t secret) error {
	if strings.ContainsAny(t.reveal(), " \t\r\n") {
		return errors.New("must be one word; the value given holds white space (not shown)")
	}
	return nil
}

// checkOrgID checks Y360_ORG_ID: empty, or a positive whole number.
func checkOrgID(id string) error {
	if id == "" {
		return nil
	}
	if n, err := strconv.ParseUint(id, 10, 63); err != nil || n == 0 {
		return fmt.Errorf("%q is not an organisation ID (a positive whole number)", textcut.Runes(id, 40))
	}
	return nil
}

// normaliseMailcowMX checks MAILCOW_MX and, when it is empty, sets it to
// the host of MAILCOW_URL, which must then be a name, not an IP address.
func (c *config) normaliseMailcowMX() error {
	if c.MailcowMX != "" {
		mx, err := commands.NormalizeDomain(c.MailcowMX)
		if err != nil {
			return err
		}
		c.MailcowMX = mx
		return nil
	}
	u, err := url.Parse(c.MailcowURL)
	if c.MailcowURL == "" || err != nil || u.Hostname() == "" {
		return nil // MAILCOW_URL's own check says what is wrong with it
	}
	if net.ParseIP(u.Hostname()) != nil {
		return errors.New("required when the host of MAILCOW_URL is an IP address: the MX host name the DNS checklist expects")
	}
	c.MailcowMX = strings.ToLower(u.Hostname())
	return nil
}

func positive(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("must be a positive duration, got %s", d)
	}
	return nil
}

func inRange(n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("must be %d to %d, got %d", lo, hi, n)
	}
	return nil
}

func oneOf(s string, allowed ...string) error {
	if slices.Contains(allowed, s) {
		return nil
	}
	return fmt.Errorf("must be one of %s, got %q", strings.Join(allowed, ", "), textcut.Runes(s, 20))
}

// cleanList trims the entries of a comma-separated list (envconfig splits
// on the commas only) and drops the empty ones.
func cleanList(list []string) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func matchAll(values []string, re *regexp.Regexp, what string) error {
	for _, v := range values {
		if !re.MatchString(v) {
			return fmt.Errorf("%q is not %s", textcut.Runes(v, 40), what)
		}
	}
	return nil
}

func checkAdmins(ids []string) error {
	for _, id := range ids {
		if !slackUserID.MatchString(id) && !commands.IsGroupID(id) {
			return fmt.Errorf("%q is not a Slack user ID (U012AB3CD, W012AB3CD) or user group ID (S012AB3CD)", textcut.Runes(id, 40))
		}
	}
	return nil
}

func checkAddr(addr string) error {
	if addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%q is not host:port (such as :8080)", textcut.Runes(addr, 60))
	}
	return nil
}

// checkResolver checks MAILBOT_DNS_RESOLVER: empty, or host:port.
func checkResolver(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("%q is not host:port with a port (such as 127.0.0.1:53)", textcut.Runes(addr, 60))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: the port must be a number from 1 to 65535", textcut.Runes(addr, 60))
	}
	return nil
}

func (c *config) checkRemind() error {
	switch {
	case c.ApprovalRemind == 0:
		return nil
	case c.ApprovalRemind < 0:
		return fmt.Errorf("must be empty (no reminders) or a positive duration, got %s", c.ApprovalRemind)
	case c.ApprovalTTL > 0 && c.ApprovalRemind >= c.ApprovalTTL:
		return fmt.Errorf("must be shorter than MAILBOT_APPROVAL_TTL (%s), got %s", c.ApprovalTTL, c.ApprovalRemind)
	}
	return nil
}

// sslModes are libpq's values of sslmode.
var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// checkDatabaseURL checks MAILBOT_DATABASE_URL without ever showing it:
// empty, or a postgres:// or postgresql:// URL that parses.
func checkDatabaseURL(d databaseURL) error {
	raw := d.reveal()
	if raw == "" {
		return nil
	}
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return errors.New("must start with postgres:// or postgresql:// (the value is not shown)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("does not parse as a URL: %s (the value is not shown)", urlProblem(err))
	}
	if mode := u.Query().Get("sslmode"); mode != "" && !slices.Contains(sslModes, mode) {
		return fmt.Errorf("sslmode must be one of %s", strings.Join(sslModes, ", "))
	}
	return nil
}

// urlProblem is what url.Parse found wrong, without the quoted pieces of
// the URL its errors carry (they may hold the password).
func urlProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.TrimSpace(quoted.ReplaceAllString(err.Error(), ""))
}
