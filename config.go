package main

import (
	"fmt"
	"io"
	"net"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kelseyhightower/envconfig"
	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/apiclient"
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

// config is mailbot's configuration: interface §2. The envconfig tags name
// the variables; desc and default feed `mailbot help`.
type config struct {
	SlackAppToken   secret        `envconfig:"SLACK_APP_TOKEN" desc:"app-level token xapp-..., scope connections:write (serve)"`
	SlackBotToken   secret        `envconfig:"SLACK_BOT_TOKEN" desc:"bot token xoxb-... (serve)"`
	SlackAPIURL     string        `envconfig:"SLACK_API_URL" default:"https://slack.com/api/" desc:"Slack Web API base URL"`
	PDDToken        secret        `envconfig:"PDD_TOKEN" desc:"value of the PddToken header (serve; the shell uses its sandbox without it)"`
	PDDBaseURL      string        `envconfig:"PDD_BASE_URL" default:"https://pddimp.yandex.ru" desc:"PDD API base URL"`
	PDDTimeout      time.Duration `envconfig:"PDD_TIMEOUT" default:"15s" desc:"timeout of one PDD request"`
	Admins          []string      `envconfig:"MAILBOT_ADMINS" desc:"comma-separated Slack user IDs allowed to run operations (serve)"`
	OpsChannel      string        `envconfig:"MAILBOT_OPS_CHANNEL" desc:"channel ID for notifications and approval requests"`
	Approvals       string        `envconfig:"MAILBOT_APPROVALS" default:"off" desc:"off, requests or all (requests and all need MAILBOT_OPS_CHANNEL)"`
	ApprovalTTL     time.Duration `envconfig:"MAILBOT_APPROVAL_TTL" default:"24h" desc:"a pending request older than this can no longer be approved"`
	Domains         []string      `envconfig:"MAILBOT_DOMAINS" desc:"allow-list of domains: example.com, *.example.org (subdomains only)"`
	DefaultDomain   string        `envconfig:"MAILBOT_DEFAULT_DOMAIN" desc:"domain for /mailbox add with a bare user name"`
	PasswordLength  int           `envconfig:"MAILBOT_PASSWORD_LENGTH" default:"16" desc:"length of generated passwords, 6 to 20"`
	HTTPAddr        string        `envconfig:"MAILBOT_HTTP_ADDR" default:":8080" desc:"health and metrics listener (/healthz, /readyz, /metrics); empty disables it"`
	LogLevel        string        `envconfig:"MAILBOT_LOG_LEVEL" default:"info" desc:"debug, info, warn or error"`
	LogFormat       string        `envconfig:"MAILBOT_LOG_FORMAT" default:"json" desc:"json or console"`
	ShutdownTimeout time.Duration `envconfig:"MAILBOT_SHUTDOWN_TIMEOUT" default:"20s" desc:"how long work in flight may run after SIGTERM"`
	Concurrency     int           `envconfig:"MAILBOT_CONCURRENCY" default:"8" desc:"operations run at once; more wait their turn"`
}

// configError names the variable that is wrong.
type configError struct {
	Var    string
	Reason string
}

func (e *configError) Error() string { return "configuration: " + e.Var + ": " + e.Reason }

// loadConfig reads the variables of config through getenv, applies the
// defaults and checks every value. It checks what every subcommand needs;
// [config.requireServe] adds what serve needs.
func loadConfig(getenv func(string) string) (*config, error) {
	var c config
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name := f.Tag.Get("envconfig")
		raw := strings.TrimSpace(getenv(name))
		if raw == "" {
			raw = f.Tag.Get("default")
		}
		if err := setField(v.Field(i), raw); err != nil {
			return nil, &configError{Var: name, Reason: err.Error()}
		}
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// setField decodes raw into the field as envconfig does: durations,
// integers, comma-separated lists, strings.
func setField(f reflect.Value, raw string) error {
	switch p := f.Addr().Interface().(type) {
	case *secret:
		return p.Decode(raw)
	case *time.Duration:
		if raw == "" {
			return nil
		}
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("%q is not a duration such as 15s or 24h", raw)
		}
		*p = d
	case *int:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", raw)
		}
		*p = n
	case *[]string:
		*p = nil
		for _, s := range strings.Split(raw, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*p = append(*p, s)
			}
		}
	case *string:
		*p = raw
	default:
		return fmt.Errorf("unsupported type %s", f.Type())
	}
	return nil
}

var (
	slackUserID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	slackChannelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
)

// check validates the values every subcommand uses.
func (c *config) check() error {
	checks := []struct {
		name string
		err  error
	}{
		{"SLACK_APP_TOKEN", checkToken(c.SlackAppToken, "xapp-", "an app-level token (xapp-...)")},
		{"SLACK_BOT_TOKEN", checkToken(c.SlackBotToken, "xoxb-", "a bot token (xoxb-...)")},
		{"SLACK_API_URL", c.normaliseSlackURL()},
		{"PDD_BASE_URL", checkURL(c.PDDBaseURL)},
		{"PDD_TIMEOUT", positive(c.PDDTimeout)},
		{"MAILBOT_ADMINS", matchAll(c.Admins, slackUserID, "a Slack user ID such as U012AB3CD")},
		{"MAILBOT_OPS_CHANNEL", matchAll(nonEmpty(c.OpsChannel), slackChannelID, "a Slack channel ID such as C012AB3CD")},
		{"MAILBOT_APPROVALS", c.checkApprovals()},
		{"MAILBOT_APPROVAL_TTL", positive(c.ApprovalTTL)},
		{"MAILBOT_DOMAINS", commands.CheckDomainPatterns(c.Domains)},
		{"MAILBOT_DEFAULT_DOMAIN", c.checkDefaultDomain()},
		{"MAILBOT_PASSWORD_LENGTH", inRange(c.PasswordLength, apiclient.MinPasswordLen, apiclient.MaxPasswordLen)},
		{"MAILBOT_HTTP_ADDR", checkAddr(c.HTTPAddr)},
		{"MAILBOT_LOG_LEVEL", oneOf(c.LogLevel, "debug", "info", "warn", "error")},
		{"MAILBOT_LOG_FORMAT", oneOf(c.LogFormat, "json", "console")},
		{"MAILBOT_SHUTDOWN_TIMEOUT", positive(c.ShutdownTimeout)},
		{"MAILBOT_CONCURRENCY", inRange(c.Concurrency, 1, 1024)},
	}
	for _, ch := range checks {
		if ch.err != nil {
			return &configError{Var: ch.name, Reason: ch.err.Error()}
		}
	}
	return nil
}

// requireServe checks that what serve needs is there. The shell shows
// approval requests on the console, so only serve needs the ops channel.
func (c *config) requireServe() error {
	if c.Approvals != string(commands.ApprovalsOff) && c.OpsChannel == "" {
		return &configError{Var: "MAILBOT_APPROVALS", Reason: "mode " + c.Approvals + " needs MAILBOT_OPS_CHANNEL for the approval requests"}
	}
	for _, r := range []struct {
		name string
		set  bool
	}{
		{"SLACK_APP_TOKEN", c.SlackAppToken != ""},
		{"SLACK_BOT_TOKEN", c.SlackBotToken != ""},
		{"PDD_TOKEN", c.PDDToken != ""},
		{"MAILBOT_ADMINS", len(c.Admins) > 0},
	} {
		if !r.set {
			return &configError{Var: r.name, Reason: "required by serve, not set (see mailbot help)"}
		}
	}
	return nil
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
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return fmt.Errorf("must be one of %s, got %q", strings.Join(allowed, ", "), s)
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
			return fmt.Errorf("%q is not %s", v, what)
		}
	}
	return nil
}

func checkAddr(addr string) error {
	if addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%q is not host:port (such as :8080)", addr)
	}
	return nil
}

func (c *config) checkApprovals() error {
	_, err := commands.ParseApprovalMode(c.Approvals)
	return err
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

// coreConfig is the part of config the commands core uses.
func (c *config) coreConfig() commands.Config {
	mode, _ := commands.ParseApprovalMode(c.Approvals) // checked in check
	return commands.Config{
		Admins:         c.Admins,
		Approvals:      mode,
		ApprovalTTL:    c.ApprovalTTL,
		Domains:        c.Domains,
		DefaultDomain:  c.DefaultDomain,
		PasswordLength: c.PasswordLength,
	}
}

// printHelp lists the subcommands and every variable with its default.
func printHelp(w io.Writer) error {
	fmt.Fprint(w, `mailbot: administer mail domains and mailboxes from Slack.

Usage:
  mailbot [serve]            run the Slack bot over Socket Mode
  mailbot shell [--as USER]  type slash commands on a console (embedded sandbox without PDD_TOKEN)
  mailbot sim [--addr ADDR] [--tls]
                             run the PDD sandbox as an HTTP(S) server
  mailbot version            print the version
  mailbot help               print this help

Environment:
`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  VARIABLE\tDEFAULT\tMEANING")
	if err := envconfig.Usagef("", &config{}, tw, helpFormat); err != nil {
		return err
	}
	return tw.Flush()
}

// helpFormat is the envconfig template of the variables table.
const helpFormat = "{{range .}}  {{usage_key .}}\t{{with usage_default .}}{{.}}{{else}}-{{end}}\t{{usage_description .}}\n{{end}}"
