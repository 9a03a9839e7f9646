package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// quoted is a quoted string in an error, compiled on first use.
var quoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`) })

// problems returns the bad variables: bad values, then, for subcommand
// sub, unset variables it needs and values that contradict each other. It
// normalises some values (the Slack URL's slash, the default domain, the
// letter case of the log settings and of the provider, the mailcow MX).
// An error about a Secret that came from a file (files) names its _FILE
// variable and the file.
func (c *Config) problems(sub string, files fileSources) map[string]*Error {
	p := make(map[string]*Error)
	add := func(name string, err error) {
		if _, seen := p[name]; err != nil && !seen {
			p[name] = files.attributed(&Error{Var: name, Reason: err.Error()})
		}
	}
	for _, ch := range c.valueChecks() {
		add(ch.name, ch.err)
	}
	for _, ch := range c.sectionChecks() {
		add(ch.name, ch.err)
	}
	for _, ch := range c.coreChecks() {
		add(ch.name, ch.err)
	}
	v := reflect.ValueOf(c).Elem()
	for _, cv := range envVars() {
		if slices.Contains(cv.need, sub) && v.FieldByIndex(cv.index).IsZero() {
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

// section is a provider's variables, a struct embedded in Config (in
// the file named for the provider) that checks its own values.
type section interface {
	checks(c *Config) []check
}

// sectionChecks checks the values of every provider's section.
func (c *Config) sectionChecks() []check {
	var checks []check
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if !v.Type().Field(i).Anonymous || !v.Type().Field(i).IsExported() {
			continue
		}
		if s, ok := v.Field(i).Addr().Interface().(section); ok {
			checks = append(checks, s.checks(c)...)
		}
	}
	return checks
}

// passwordCheck refuses generated passwords shorter than a provider in
// use takes (its row's bound).
func (c *Config) passwordCheck() []check {
	var checks []check
	for _, name := range c.Selected() {
		checks = append(checks, c.passwordCheckOf(name)...)
	}
	return checks
}

// passwordCheckOf is passwordCheck for the provider called name.
func (c *Config) passwordCheckOf(name string) []check {
	i := slices.IndexFunc(c.providers, func(p Provider) bool { return p.Name == name })
	if i < 0 || c.PasswordLength <= 0 || c.PasswordLength >= c.providers[i].MinPassword {
		return nil
	}
	p := c.providers[i]
	return []check{{c.nameOf(&c.PasswordLength), fmt.Errorf(
		"is %d, but %s (MAILBOT_PROVIDER=%s) requires passwords of at least %d characters: set %d or more",
		c.PasswordLength, p.Title, p.Name, p.MinPassword, p.MinPassword)}}
}

// valueChecks checks each value on its own.
func (c *Config) valueChecks() []check {
	c.LogLevel, c.LogFormat = strings.ToLower(c.LogLevel), strings.ToLower(c.LogFormat)
	c.Provider = strings.ToLower(c.Provider)
	c.Admins, c.Domains = cleanList(c.Admins), cleanList(c.Domains)
	v := c.nameOf
	return []check{
		{v(&c.SlackAppToken), checkToken(c.SlackAppToken, "xapp-", "an app-level token (xapp-...)")},
		{v(&c.SlackBotToken), checkToken(c.SlackBotToken, "xoxb-", "a bot token (xoxb-...)")},
		{v(&c.SlackAPIURL), c.normaliseSlackURL()},
		{v(&c.Provider), oneOf(c.Provider, c.providerNames()...)},
		{v(&c.RoutesSpec), c.checkRoutes()},
		{v(&c.DomainAdminsSpec), c.checkDomainAdmins()},
		{v(&c.ProviderTimeout), positive(c.ProviderTimeout)},
		{v(&c.Admins), checkAdmins(c.Admins)},
		{v(&c.OpsChannel), matchAll(nonEmpty(c.OpsChannel), commands.IsChannelID, "a Slack channel ID such as C012AB3CD")},
		{v(&c.ApprovalRemind), c.checkRemind()},
		{v(&c.DatabaseURL), checkDatabaseURL(c.DatabaseURL)},
		{v(&c.DNSResolver), checkResolver(c.DNSResolver)},
		{v(&c.HTTPAddr), checkAddr(c.HTTPAddr)},
		{v(&c.LogLevel), oneOf(c.LogLevel, "debug", "info", "warn", "error")},
		{v(&c.LogFormat), oneOf(c.LogFormat, "json", "console")},
		{v(&c.ShutdownTimeout), positive(c.ShutdownTimeout)},
		{v(&c.AuditRetention), checkRetention(c.AuditRetention)},
		{v(&c.Concurrency), commands.CheckRange(c.Concurrency, 1, 1024)},
		{v(&c.ImportMaxRows), commands.CheckRange(c.ImportMaxRows, 1, commands.MaxImportMaxRows)},
	}
}

// coreChecks checks the policy settings by the core's own rules
// (commands.Config.Check), and keeps the default domain normalised.
func (c *Config) coreChecks() []check {
	cc, errs := c.CoreConfig().Check()
	if cc.DefaultDomain != "" {
		c.DefaultDomain = cc.DefaultDomain
	}
	if cc.Approvals != "" {
		c.Approvals = string(cc.Approvals)
	}
	checks := make([]check, len(errs))
	for i, e := range errs {
		checks[i] = check{settingVar(e.Setting), e.Err}
	}
	return checks
}

// crossChecks checks the values that must agree with each other for sub.
func (c *Config) crossChecks(sub string, files fileSources) []check {
	var checks []check
	off := c.Approvals == "" || strings.EqualFold(c.Approvals, string(commands.ApprovalsOff))
	if sub == "serve" && !off && c.OpsChannel == "" {
		checks = append(checks, check{c.nameOf(&c.Approvals), fmt.Errorf("mode %s needs MAILBOT_OPS_CHANNEL for the approval requests", c.Approvals)})
	}
	if c.ApprovalsRequired > 1 && off {
		checks = append(checks, check{c.nameOf(&c.ApprovalsRequired), fmt.Errorf(
			"is %d, but MAILBOT_APPROVALS is off, so nothing is ever approved: set MAILBOT_APPROVALS to requests or all, or this to 1", c.ApprovalsRequired)})
	}
	checks = append(checks, c.credentialsChecks(files)...)
	checks = append(checks, c.passwordCheck()...)
	// With user groups the number of admins is known only at start; the
	// shell adds its own user, an admin.
	users := slices.Compact(slices.Sorted(slices.Values(c.adminUsers())))
	if n := len(users); n > 0 && len(c.AdminGroups()) == 0 && !off {
		if sub == "shell" {
			n++
		}
		if c.ApprovalsRequired > n {
			checks = append(checks, check{c.nameOf(&c.ApprovalsRequired), fmt.Errorf(
				"is %d, but there are only %d admins (MAILBOT_ADMINS) to approve", c.ApprovalsRequired, n)})
		}
	}
	return checks
}

// credentialsChecks refuses credentials set in part: the shell drives
// the sandbox only when none is set, and the real provider with all.
func (c *Config) credentialsChecks(files fileSources) []check {
	var checks []check
	for _, p := range c.Selected() {
		checks = append(checks, c.credentialsChecksOf(p, files)...)
	}
	return checks
}

// credentialsChecksOf is credentialsChecks for provider.
func (c *Config) credentialsChecksOf(provider string, files fileSources) []check {
	var set, unset []string
	for _, name := range c.credentialVars(provider) {
		if v, _ := c.LookupVar(name); v != "" {
			set = append(set, files.variable(name))
		} else {
			unset = append(unset, name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	checks := make([]check, len(unset))
	for i, name := range unset {
		checks[i] = check{name, fmt.Errorf("not set, but %s is: set both, or neither for the shell's sandbox", strings.Join(set, " and "))}
	}
	return checks
}

func checkToken(t Secret, prefix, what string) error {
	if t == "" || strings.HasPrefix(t.Reveal(), prefix) && len(t) > len(prefix) && !strings.ContainsAny(t.Reveal(), " \t\r\n") {
		return nil
	}
	return fmt.Errorf("must be %s; the value given is not (not shown)", what)
}

func (c *Config) normaliseSlackURL() error {
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
func checkBareToken(t Secret) error {
	if strings.ContainsAny(t.Reveal(), " \t\r\n") {
		return errors.New("must be one word; the value given holds white space (not shown)")
	}
	return nil
}

func positive(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("must be a positive duration, got %s", d)
	}
	return nil
}

// checkRetention refuses a negative retention; 0 keeps entries for ever.
func checkRetention(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("must be 0 (keep for ever) or a positive duration, got %s", d)
	}
	return nil
}

func positiveOrUnset(d time.Duration) error {
	if d < 0 {
		return positive(d)
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

func matchAll(values []string, valid func(string) bool, what string) error {
	for _, v := range values {
		if !valid(v) {
			return fmt.Errorf("%q is not %s", textcut.Runes(v, 40), what)
		}
	}
	return nil
}

func checkAdmins(ids []string) error {
	for _, id := range ids {
		if !commands.IsUserID(id) && !commands.IsGroupID(id) {
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

func (c *Config) checkRemind() error {
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
func checkDatabaseURL(d DatabaseURL) error {
	raw := d.Reveal()
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
	return strings.TrimSpace(quoted().ReplaceAllString(err.Error(), ""))
}
