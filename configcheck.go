package main

import (
	"errors"
	"fmt"
	"github.com/mailbot/mailbot/apiclient"
	"io"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/commands"
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
	slackGroupID   = regexp.MustCompile(`^S[A-Z0-9]{2,}$`)
	slackChannelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
	quoted         = regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`)
)

// problems returns the reason for each bad variable: bad values, then,
// for subcommand sub, unset variables it needs and values that contradict
// each other. It normalises some values (the Slack URL's slash, the
// default domain, the letter case of the log settings).
func (c *config) problems(sub string) map[string]string {
	p := make(map[string]string)
	add := func(name string, err error) {
		if _, seen := p[name]; err != nil && !seen {
			p[name] = err.Error()
		}
	}
	for _, ch := range c.valueChecks() {
		add(ch.name, ch.err)
	}
	v := reflect.ValueOf(c).Elem()
	for _, cv := range envVars() {
		if slices.Contains(cv.need, sub) && v.Field(cv.index).IsZero() {
			add(cv.name, fmt.Errorf("required by %s, not set (see mailbot help)", sub))
		}
	}
	for _, ch := range c.crossChecks(sub) {
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
	c.Admins, c.Domains = cleanList(c.Admins), cleanList(c.Domains)
	return []check{
		{"SLACK_APP_TOKEN", checkToken(c.SlackAppToken, "xapp-", "an app-level token (xapp-...)")},
		{"SLACK_BOT_TOKEN", checkToken(c.SlackBotToken, "xoxb-", "a bot token (xoxb-...)")},
		{"SLACK_API_URL", c.normaliseSlackURL()},
		{"PDD_BASE_URL", checkURL(c.PDDBaseURL)},
		{"PDD_TIMEOUT", positive(c.PDDTimeout)},
		{"MAILBOT_ADMINS", checkAdmins(c.Admins)},
		{"MAILBOT_OPS_CHANNEL", matchAll(nonEmpty(c.OpsChannel), slackChannelID, "a Slack channel ID such as C012AB3CD")},
		{"MAILBOT_APPROVALS", c.checkApprovals()},
		{"MAILBOT_APPROVAL_TTL", positive(c.ApprovalTTL)},
		{"MAILBOT_APPROVALS_REQUIRED", inRange(c.ApprovalsRequired, 1, 5)},
		{"MAILBOT_APPROVAL_REMIND", c.checkRemind()},
		{"MAILBOT_DOMAINS", commands.CheckDomainPatterns(c.Domains)},
		{"MAILBOT_DEFAULT_DOMAIN", c.checkDefaultDomain()},
		{"MAILBOT_PASSWORD_LENGTH", inRange(c.PasswordLength, apiclient.MinPasswordLen, apiclient.MaxPasswordLen)},
		{"MAILBOT_DATABASE_URL", checkDatabaseURL(c.DatabaseURL)},
		{"MAILBOT_DNS_RESOLVER", checkResolver(c.DNSResolver)},
		{"MAILBOT_HTTP_ADDR", checkAddr(c.HTTPAddr)},
		{"MAILBOT_LOG_LEVEL", oneOf(c.LogLevel, "debug", "info", "warn", "error")},
		{"MAILBOT_LOG_FORMAT", oneOf(c.LogFormat, "json", "console")},
		{"MAILBOT_SHUTDOWN_TIMEOUT", positive(c.ShutdownTimeout)},
		{"MAILBOT_CONCURRENCY", inRange(c.Concurrency, 1, 1024)},
	}
}

// crossChecks checks the values that must agree with each other for sub.
func (c *config) crossChecks(sub string) []check {
	var checks []check
	off := c.Approvals == "" || strings.EqualFold(c.Approvals, string(commands.ApprovalsOff))
	if sub == "serve" && !off && c.OpsChannel == "" {
		checks = append(checks, check{"MAILBOT_APPROVALS", fmt.Errorf("mode %s needs MAILBOT_OPS_CHANNEL for the approval requests", c.Approvals)})
	}
	if c.ApprovalsRequired > 1 && off {
		checks = append(checks, check{"MAILBOT_APPROVALS_REQUIRED", fmt.Errorf(
			"is %d, but MAILBOT_APPROVALS is off, so nothing is ever approved: set MAILBOT_APPROVALS to requests or all, or this to 1", c.ApprovalsRequired)})
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
	return fmt.Errorf("must be one of %s, got %q", strings.Join(allowed, ", "), shorten(s, 20))
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
			return fmt.Errorf("%q is not %s", shorten(v, 40), what)
		}
	}
	return nil
}

func checkAdmins(ids []string) error {
	for _, id := range ids {
		if !slackUserID.MatchString(id) && !isGroupID(id) {
			return fmt.Errorf("%q is not a Slack user ID (U012AB3CD, W012AB3CD) or user group ID (S012AB3CD)", shorten(id, 40))
		}
	}
	return nil
}

func checkAddr(addr string) error {
	if addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%q is not host:port (such as :8080)", shorten(addr, 60))
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
		return fmt.Errorf("%q is not host:port with a port (such as 127.0.0.1:53)", shorten(addr, 60))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: the port must be a number from 1 to 65535", shorten(addr, 60))
	}
	return nil
}

func (c *config) checkApprovals() error {
	_, err := commands.ParseApprovalMode(c.Approvals)
	return err
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

func (c *config) checkDefaultDomain() error {
	if c.DefaultDomain == "" {
		return nil
	}
	d, err := commands.NormalizeDomain(c.DefaultDomain)
	if err != nil {
		return err
	}
	c.DefaultDomain = d
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

// shorten cuts s to n bytes at most, for echoing a value.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
