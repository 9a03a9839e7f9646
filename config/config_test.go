package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kelseyhightower/envconfig"

	"github.com/mailbot/mailbot/commands"
)

// Values that must never appear in an error: tokens and passwords.
const (
	secretAppToken = "xapp-1-A0-SECRETAPP"
	secretBotToken = "xoxb-1-SECRETBOT"
	secretDBPass   = "SECRETDBPASS"
)

// serveBase is what serve needs, so that a case adds only its bad value.
func serveBase() map[string]string {
	return map[string]string{
		"SLACK_APP_TOKEN": secretAppToken, "SLACK_BOT_TOKEN": secretBotToken,
		"PDD_TOKEN": "pdd-SECRETPDD", "MAILBOT_ADMINS": "UADMIN1",
	}
}

func with(env map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

// assertNoSecret fails when s holds a token or a password of the tests.
func assertNoSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, sec := range []string{"SECRETAPP", "SECRETBOT", "SECRETPDD", secretDBPass} {
		if strings.Contains(s, sec) {
			t.Errorf("%s shows a secret (%s): %q", where, sec, s)
		}
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig(envFrom(nil), "shell")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		SlackAPIURL: "https://slack.com/api/", Provider: "pdd", PDD: PDD{PDDBaseURL: "https://pddimp.yandex.ru"}, ProviderTimeout: 15 * time.Second,
		Yandex360: Yandex360{Y360BaseURL: "https://api360.yandex.net", Y360DepartmentID: 1}, ForcePasswordChange: true,
		Approvals: "off", ApprovalTTL: 24 * time.Hour, ApprovalsRequired: 1, PasswordLength: 16,
		HandoverTTL: 72 * time.Hour, SelfService: "off", ImportMaxRows: 1000,
		HTTPAddr: ":8080", ShutdownTimeout: 20 * time.Second, Concurrency: 8, LogLevel: "info", LogFormat: "json",
		AuditRetention: 8760 * time.Hour, providers: testProviders, Google: Google{GoogleCustomer: "my_customer", GoogleOrgUnit: "/", GoogleBaseURL: "https://www.googleapis.com"},
		M365: M365{M365UsageLocation: "US", M365BaseURL: "https://graph.microsoft.com", M365LoginURL: "https://login.microsoftonline.com"},
	}
	if diff := cmp.Diff(want, *cfg, cmp.AllowUnexported(Config{})); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// TestServeReportsEveryMissingVariable: one run names all four.
func TestServeReportsEveryMissingVariable(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(envFrom(nil), "serve")
	want := []string{
		"configuration: SLACK_APP_TOKEN: required by serve, not set (see mailbot help)",
		"configuration: SLACK_BOT_TOKEN: required by serve, not set (see mailbot help)",
		"configuration: PDD_TOKEN: required by serve, not set (see mailbot help)",
		"configuration: MAILBOT_ADMINS: required by serve, not set (see mailbot help)",
	}
	if err == nil {
		t.Fatal("loadConfig(serve) with nothing set = nil error")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("error lines (-want +got):\n%s", diff)
	}
	cfg, err := loadConfig(envFrom(nil), "shell")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.RequireServe(); err == nil || strings.Count(err.Error(), "\n") != 3 {
		t.Errorf("requireServe on the shell's configuration = %v, want the same four lines", err)
	}
}

func TestLoadConfigValues(t *testing.T) {
	t.Parallel()
	env := with(serveBase(),
		"SLACK_API_URL", "http://127.0.0.1:9/api",
		"MAILBOT_ADMINS", " U1AAA, W2BBB ,S3CCC,",
		"MAILBOT_DOMAINS", "example.com, *.example.org",
		"MAILBOT_DEFAULT_DOMAIN", "Example.COM.",
		"MAILBOT_PASSWORD_LENGTH", "20",
		"MAILBOT_APPROVALS", "requests",
		"MAILBOT_APPROVALS_REQUIRED", "2",
		"MAILBOT_APPROVAL_REMIND", "1h",
		"MAILBOT_OPS_CHANNEL", "C0OPS",
		"MAILBOT_DATABASE_URL", "postgresql://mailbot:"+secretDBPass+"@db.internal:5432/mailbot?sslmode=verify-full",
		"MAILBOT_DNS_RESOLVER", "[::1]:5353",
		"MAILBOT_LOG_LEVEL", "DEBUG",
		"MAILBOT_LOG_FORMAT", "Console",
		"PDD_TIMEOUT", "2s",
	)
	cfg, err := loadConfig(envFrom(env), "serve")
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		SlackAPIURL, DefaultDomain, DNSResolver, LogLevel, LogFormat, DB string
		Admins, Users, Groups, Domains                                   []string
		Required                                                         int
		Remind, PDDTimeout                                               time.Duration
	}{cfg.SlackAPIURL, cfg.DefaultDomain, cfg.DNSResolver, cfg.LogLevel, cfg.LogFormat, cfg.DatabaseURL.Reveal(),
		cfg.Admins, cfg.adminUsers(), cfg.AdminGroups(), cfg.Domains, cfg.ApprovalsRequired, cfg.ApprovalRemind, cfg.ProviderTimeout}
	want := got
	want.SlackAPIURL, want.DefaultDomain, want.DNSResolver = "http://127.0.0.1:9/api/", "example.com", "[::1]:5353"
	want.LogLevel, want.LogFormat, want.DB = "debug", "console", env["MAILBOT_DATABASE_URL"]
	want.Admins, want.Users, want.Groups = []string{"U1AAA", "W2BBB", "S3CCC"}, []string{"U1AAA", "W2BBB"}, []string{"S3CCC"}
	want.Domains, want.Required, want.Remind, want.PDDTimeout = []string{"example.com", "*.example.org"}, 2, time.Hour, 2*time.Second
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	core := cfg.CoreConfig()
	if !slices.Equal(core.Admins, want.Admins) || core.ApprovalsRequired != 2 || core.RemindAfter != time.Hour {
		t.Errorf("coreConfig() = %+v, want the admins, 2 approvals and a reminder after 1h", core)
	}
}

// TestLoadConfigErrors gives one bad value per case: the error is exactly
// one line, naming that variable, and shows no secret.
func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	dbURL := func(s string) string { return strings.ReplaceAll(s, "PW", secretDBPass) }
	for _, tc := range []struct {
		name, sub string
		env       map[string]string
		wantVar   string
		wantIn    string // a part of the reason
	}{
		{"bot token in app token", "serve", map[string]string{"SLACK_APP_TOKEN": "xoxb-1-SECRETBOT"}, "SLACK_APP_TOKEN", "xapp-"},
		{"app token in bot token", "serve", map[string]string{"SLACK_BOT_TOKEN": "xapp-1-SECRETAPP"}, "SLACK_BOT_TOKEN", "xoxb-"},
		{"plain http Slack", "serve", map[string]string{"SLACK_API_URL": "http://slack.example.com/api/"}, "SLACK_API_URL", "https"},
		{"plain http PDD", "shell", map[string]string{"PDD_BASE_URL": "http://pdd.example.com"}, "PDD_BASE_URL", "https"},
		{"malformed duration", "shell", map[string]string{"PDD_TIMEOUT": "fifteen"}, "PDD_TIMEOUT", `"fifteen" is not a duration`},
		{"negative duration", "shell", map[string]string{"MAILBOT_APPROVAL_TTL": "-1h"}, "MAILBOT_APPROVAL_TTL", "positive"},
		{"length 30", "shell", map[string]string{"MAILBOT_PASSWORD_LENGTH": "30"}, "MAILBOT_PASSWORD_LENGTH", "6 to 20, got 30"},
		{"length 5", "serve", map[string]string{"MAILBOT_PASSWORD_LENGTH": "5"}, "MAILBOT_PASSWORD_LENGTH", "6 to 20"},
		{"length not a number", "shell", map[string]string{"MAILBOT_PASSWORD_LENGTH": "long"}, "MAILBOT_PASSWORD_LENGTH", "not a whole number"},
		{"unknown mode", "shell", map[string]string{"MAILBOT_APPROVALS": "sometimes"}, "MAILBOT_APPROVALS", "off, requests or all"},
		{"approvals without ops channel", "serve", map[string]string{"MAILBOT_APPROVALS": "all"}, "MAILBOT_APPROVALS", "MAILBOT_OPS_CHANNEL"},
		{"bad admin", "serve", map[string]string{"MAILBOT_ADMINS": "UADMIN1,alice"}, "MAILBOT_ADMINS", `"alice"`},
		{"bad channel", "serve", map[string]string{"MAILBOT_OPS_CHANNEL": "#ops"}, "MAILBOT_OPS_CHANNEL", "channel ID"},
		{"bad domain pattern", "shell", map[string]string{"MAILBOT_DOMAINS": "exa mple.com"}, "MAILBOT_DOMAINS", ""},
		{"bad default domain", "shell", map[string]string{"MAILBOT_DEFAULT_DOMAIN": "-bad-.com"}, "MAILBOT_DEFAULT_DOMAIN", ""},
		{"bad http addr", "serve", map[string]string{"MAILBOT_HTTP_ADDR": "8080"}, "MAILBOT_HTTP_ADDR", "host:port"},
		{"bad log level", "sim", map[string]string{"MAILBOT_LOG_LEVEL": "loud"}, "MAILBOT_LOG_LEVEL", "debug, info, warn, error"},
		{"bad log format", "audit", map[string]string{"MAILBOT_LOG_FORMAT": "xml", "MAILBOT_DATABASE_URL": "postgres://h/db"}, "MAILBOT_LOG_FORMAT", "json, console"},
		{"bad shutdown timeout", "serve", map[string]string{"MAILBOT_SHUTDOWN_TIMEOUT": "0s"}, "MAILBOT_SHUTDOWN_TIMEOUT", "positive"},
		{"concurrency 0", "serve", map[string]string{"MAILBOT_CONCURRENCY": "0"}, "MAILBOT_CONCURRENCY", "1 to 1024"},
		{"required 0", "shell", map[string]string{"MAILBOT_APPROVALS_REQUIRED": "0"}, "MAILBOT_APPROVALS_REQUIRED", "1 to 5"},
		{"required 6", "shell", map[string]string{"MAILBOT_APPROVALS": "requests", "MAILBOT_APPROVALS_REQUIRED": "6"}, "MAILBOT_APPROVALS_REQUIRED", "1 to 5"},
		{"required two", "shell", map[string]string{"MAILBOT_APPROVALS_REQUIRED": "two"}, "MAILBOT_APPROVALS_REQUIRED", "whole number"},
		{"required with approvals off", "shell", map[string]string{"MAILBOT_APPROVALS_REQUIRED": "2"}, "MAILBOT_APPROVALS_REQUIRED", "MAILBOT_APPROVALS is off"},
		{"required above the admins", "serve", map[string]string{"MAILBOT_ADMINS": "UADMIN1,UADMIN2,UADMIN1", "MAILBOT_APPROVALS": "requests",
			"MAILBOT_OPS_CHANNEL": "COPS", "MAILBOT_APPROVALS_REQUIRED": "3"}, "MAILBOT_APPROVALS_REQUIRED", "only 2 admins"},
		{"required above the admins and the shell's", "shell", map[string]string{"MAILBOT_ADMINS": "UADMIN1", "MAILBOT_APPROVALS": "all",
			"MAILBOT_APPROVALS_REQUIRED": "3"}, "MAILBOT_APPROVALS_REQUIRED", "only 2 admins"},
		{"remind negative", "shell", map[string]string{"MAILBOT_APPROVAL_REMIND": "-5m"}, "MAILBOT_APPROVAL_REMIND", "positive"},
		{"remind not shorter than the TTL", "serve", map[string]string{"MAILBOT_APPROVAL_REMIND": "2h", "MAILBOT_APPROVAL_TTL": "2h"}, "MAILBOT_APPROVAL_REMIND",
			"shorter than MAILBOT_APPROVAL_TTL (2h0m0s)"},
		{"remind malformed", "shell", map[string]string{"MAILBOT_APPROVAL_REMIND": "daily"}, "MAILBOT_APPROVAL_REMIND", "not a duration"},
		{"resolver without port", "shell", map[string]string{"MAILBOT_DNS_RESOLVER": "8.8.8.8"}, "MAILBOT_DNS_RESOLVER", "with a port"},
		{"resolver without host", "serve", map[string]string{"MAILBOT_DNS_RESOLVER": ":53"}, "MAILBOT_DNS_RESOLVER", "host:port"},
		{"resolver port out of range", "shell", map[string]string{"MAILBOT_DNS_RESOLVER": "ns1:99999"}, "MAILBOT_DNS_RESOLVER", "1 to 65535"},
		{"database http", "serve", map[string]string{"MAILBOT_DATABASE_URL": dbURL("http://u:PW@db/x")}, "MAILBOT_DATABASE_URL", "postgres://"},
		{"database scheme in capitals", "audit", map[string]string{"MAILBOT_DATABASE_URL": dbURL("POSTGRES://u:PW@db/x")}, "MAILBOT_DATABASE_URL", "postgres://"},
		{"database bad port", "serve", map[string]string{"MAILBOT_DATABASE_URL": dbURL("postgres://u:PW@db:port/x")}, "MAILBOT_DATABASE_URL", "invalid port"},
		{"database bad escape", "audit", map[string]string{"MAILBOT_DATABASE_URL": dbURL("postgres://u:PW%zz@db/x")}, "MAILBOT_DATABASE_URL", "does not parse"},
		{"database password in the query", "serve", map[string]string{"MAILBOT_DATABASE_URL": dbURL("postgres://db/x?password=PW&sslmode=sometimes")},
			"MAILBOT_DATABASE_URL", "sslmode"},
		{"audit without a database", "audit", nil, "MAILBOT_DATABASE_URL", "required by audit"},
		{"unknown provider", "shell", map[string]string{"MAILBOT_PROVIDER": "gmail"}, "MAILBOT_PROVIDER", "pdd, yandex360, mailcow"},
		{"yandex360 without a token", "serve", map[string]string{"MAILBOT_PROVIDER": "yandex360"}, "Y360_TOKEN", "required by serve"},
		{"plain http Yandex 360", "shell", map[string]string{"MAILBOT_PROVIDER": "Yandex360", "Y360_BASE_URL": "http://api360.example.com"}, "Y360_BASE_URL", "https"},
		{"org ID not a number", "shell", map[string]string{"MAILBOT_PROVIDER": "yandex360", "Y360_ORG_ID": "acme"}, "Y360_ORG_ID", `"acme" is not an organisation ID`},
		{"org ID 0", "shell", map[string]string{"MAILBOT_PROVIDER": "yandex360", "Y360_ORG_ID": "0"}, "Y360_ORG_ID", "positive whole number"},
		{"department 0", "shell", map[string]string{"MAILBOT_PROVIDER": "yandex360", "Y360_DEPARTMENT_ID": "0"}, "Y360_DEPARTMENT_ID", "got 0"},
		{"department not a number", "shell", map[string]string{"MAILBOT_PROVIDER": "yandex360", "Y360_DEPARTMENT_ID": "sales"}, "Y360_DEPARTMENT_ID", "whole number"},
		{"token with a space", "shell", map[string]string{"MAILBOT_PROVIDER": "yandex360", "Y360_TOKEN": "y0 SECRETPDD"}, "Y360_TOKEN", "one word"},
		{"mailcow without a URL", "serve", map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_API_KEY": "SECRETPDD"}, "MAILCOW_URL", "required by serve"},
		{"mailcow key without a URL in the shell", "shell", map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_API_KEY": "SECRETPDD"}, "MAILCOW_URL", "set both"},
		{"mailcow URL without a key in the shell", "shell", map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_URL": "https://mail.example.com"}, "MAILCOW_API_KEY", "set both"},
		{"plain http mailcow", "shell", map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_URL": "http://mail.example.com", "MAILCOW_API_KEY": "SECRETPDD"}, "MAILCOW_URL", "https"},
		{"mailcow at an IP address without MX", "serve", map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_URL": "https://192.0.2.7", "MAILCOW_API_KEY": "SECRETPDD"}, "MAILCOW_MX", "IP address"},
		{"bad mailcow MX", "shell", map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_MX": "mx_1.example.com"}, "MAILCOW_MX", ""},
		{"force password change not a boolean", "shell", map[string]string{"MAILBOT_FORCE_PASSWORD_CHANGE": "sometimes"}, "MAILBOT_FORCE_PASSWORD_CHANGE", `"sometimes" is not true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			if tc.sub == "serve" {
				env = serveBase()
			}
			for k, v := range tc.env {
				env[k] = v
			}
			_, err := loadConfig(envFrom(env), tc.sub)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("loadConfig = %v, want a *Error", err)
			}
			msg := err.Error()
			if prefix := "configuration: " + tc.wantVar + ": "; !strings.HasPrefix(msg, prefix) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line starting %q", msg, prefix)
			}
			if !strings.Contains(msg, tc.wantIn) {
				t.Errorf("error %q: want it to say %q", msg, tc.wantIn)
			}
			assertNoSecret(t, "the error", msg)
		})
	}
}

// TestLoadConfigReportsEveryBadVariable: every bad variable at once, one
// line each, in the order of mailbot help.
func TestLoadConfigReportsEveryBadVariable(t *testing.T) {
	t.Parallel()
	env := with(serveBase(),
		"SLACK_APP_TOKEN", secretBotToken,
		"PDD_TIMEOUT", "soon",
		"MAILBOT_APPROVALS_REQUIRED", "9",
		"MAILBOT_PASSWORD_LENGTH", "30",
		"MAILBOT_DATABASE_URL", "postgres://mailbot:"+secretDBPass+"@db:x/mailbot",
		"MAILBOT_LOG_LEVEL", "loud",
	)
	_, err := loadConfig(envFrom(env), "serve")
	if err == nil {
		t.Fatal("loadConfig = nil error")
	}
	var vars []string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "configuration: "), ":")
		vars = append(vars, name)
	}
	want := []string{"SLACK_APP_TOKEN", "PDD_TIMEOUT", "MAILBOT_APPROVALS_REQUIRED", "MAILBOT_PASSWORD_LENGTH", "MAILBOT_DATABASE_URL", "MAILBOT_LOG_LEVEL"}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("variables named (-want +got):\n%s\nerror:\n%s", diff, err)
	}
	assertNoSecret(t, "the error", err.Error())
	var ces Errors
	if !errors.As(err, &ces) || len(ces) != len(want) {
		t.Errorf("errors.As(Errors) = %v", ces)
	}
}

// TestLoadConfigChecksOnlyWhatTheSubcommandReads: a bad value stops the
// subcommands that read it, and only those.
func TestLoadConfigChecksOnlyWhatTheSubcommandReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env   map[string]string
		fails []string
	}{
		{map[string]string{"MAILBOT_PASSWORD_LENGTH": "30"}, []string{"serve", "shell"}},
		{map[string]string{"SLACK_APP_TOKEN": secretBotToken}, []string{"serve"}},
		{map[string]string{"MAILBOT_DATABASE_URL": "mysql://db"}, []string{"serve", "shell", "audit"}},
		{map[string]string{"MAILBOT_HTTP_ADDR": "8080"}, []string{"serve"}},
		{map[string]string{"MAILBOT_LOG_LEVEL": "loud"}, []string{"serve", "shell", "sim", "audit"}},
	} {
		for _, sub := range []string{"serve", "shell", "sim", "audit"} {
			env := with(serveBase(), "MAILBOT_DATABASE_URL", "postgres://db/mailbot")
			for k, v := range tc.env {
				env[k] = v
			}
			_, err := loadConfig(envFrom(env), sub)
			if want := slices.Contains(tc.fails, sub); (err != nil) != want {
				t.Errorf("%v for %s: loadConfig = %v, want an error: %v", tc.env, sub, err, want)
			}
		}
	}
}

// TestSetAndEmpty tells a variable set and empty from an unset one.
func TestSetAndEmpty(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		get  func(*Config) any
		want any
	}{
		{"HTTP addr unset", nil, func(c *Config) any { return c.HTTPAddr }, ":8080"},
		{"HTTP addr empty disables", map[string]string{"MAILBOT_HTTP_ADDR": ""}, func(c *Config) any { return c.HTTPAddr }, ""},
		{"HTTP addr blank disables", map[string]string{"MAILBOT_HTTP_ADDR": "  "}, func(c *Config) any { return c.HTTPAddr }, ""},
		{"HTTP addr set", map[string]string{"MAILBOT_HTTP_ADDR": " 127.0.0.1:9090 "}, func(c *Config) any { return c.HTTPAddr }, "127.0.0.1:9090"},
		{"timeout empty takes the default", map[string]string{"PDD_TIMEOUT": ""}, func(c *Config) any { return c.ProviderTimeout }, 15 * time.Second},
		{"length blank takes the default", map[string]string{"MAILBOT_PASSWORD_LENGTH": " "}, func(c *Config) any { return c.PasswordLength }, 16},
		{"remind empty: none", map[string]string{"MAILBOT_APPROVAL_REMIND": ""}, func(c *Config) any { return c.ApprovalRemind }, time.Duration(0)},
		{"log level empty", map[string]string{"MAILBOT_LOG_LEVEL": ""}, func(c *Config) any { return c.LogLevel }, "info"},
		{"database empty", map[string]string{"MAILBOT_DATABASE_URL": ""}, func(c *Config) any { return c.DatabaseURL.Reveal() }, ""},
	} {
		cfg, err := loadConfig(envFrom(with(serveBase(), flat(tc.env)...)), "serve")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := tc.get(cfg); got != tc.want {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func flat(env map[string]string) []string {
	var kv []string
	for k, v := range env {
		kv = append(kv, k, v)
	}
	return kv
}

// TestLoadConfigReadsTheLookupOnly shows that loadConfig reads the lookup
// run() was given, not the process environment, and leaves the process
// environment (which envconfig.Process still reads) as it was.
func TestLoadConfigReadsTheLookupOnly(t *testing.T) {
	t.Setenv("MAILBOT_PASSWORD_LENGTH", "30")
	t.Setenv("MAILBOT_LOG_LEVEL", "debug")
	cfg, err := loadConfig(envFrom(map[string]string{"MAILBOT_PASSWORD_LENGTH": "12"}), "shell")
	if err != nil {
		t.Fatalf("loadConfig = %v: it read the process environment", err)
	}
	if cfg.PasswordLength != 12 || cfg.LogLevel != "info" {
		t.Errorf("length %d, log level %q: want 12 and info, from the lookup alone", cfg.PasswordLength, cfg.LogLevel)
	}
	var plain struct {
		Length int `envconfig:"MAILBOT_PASSWORD_LENGTH"`
	}
	if err := envconfig.Process("", &plain); err != nil || plain.Length != 30 {
		t.Errorf("envconfig.Process after loadConfig = %d, %v; want 30 from the process environment", plain.Length, err)
	}
	if _, ok := os.LookupEnv("MAILBOT_PASSWORD_LENGTH"); !ok {
		t.Error("loadConfig changed the process environment")
	}
}

func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	s := Secret("xoxb-" + secretBotToken)
	d := DatabaseURL("postgres://mailbot:" + secretDBPass + "@db:5432/mailbot?sslmode=require&password=" + secretDBPass)
	cfg := Config{SlackBotToken: s, DatabaseURL: d}
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []string{
		fmt.Sprint(s), fmt.Sprintf("%v %s %q %+v %#v %x", s, s, s, s, s, s),
		fmt.Sprint(d), fmt.Sprintf("%v %s %q %+v %#v %x", d, d, d, d, d, d),
		fmt.Sprintf("%+v %#v", cfg, cfg), string(js),
	} {
		assertNoSecret(t, "the formatted value", got)
	}
	if got, want := d.String(), "postgres://mailbot:xxxxx@db:5432/mailbot?password=xxxxx&sslmode=require"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if !strings.Contains(d.Reveal(), secretDBPass) {
		t.Error("reveal() lost the password")
	}
}

// TestWriteVarsListsEveryVariable: the help lists every variable of
// Config with its default (or -) and meaning, what serve requires, the
// _FILE variant of each secret, and the limits the checks enforce.
func TestWriteVarsListsEveryVariable(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	WriteVars(&out, testProviders)
	lines := map[string]string{}
	for l := range strings.SplitSeq(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			lines[f[0]] = l
		}
	}
	// docs/configuration.md's table, as the operators read it.
	interfaceVars := []string{"SLACK_APP_TOKEN", "SLACK_BOT_TOKEN", "SLACK_API_URL", "MAILBOT_PROVIDER", "MAILBOT_ROUTES", "MAILBOT_DOMAIN_ADMINS", "PDD_TOKEN", "PDD_BASE_URL", "MAILBOT_PROVIDER_TIMEOUT", "PDD_TIMEOUT",
		"Y360_TOKEN", "Y360_ORG_ID", "Y360_BASE_URL", "Y360_DEPARTMENT_ID", "MAILCOW_URL", "MAILCOW_API_KEY", "MAILCOW_MX",
		"MAILBOT_FORCE_PASSWORD_CHANGE",
		"MAILBOT_ADMINS", "MAILBOT_OPS_CHANNEL", "MAILBOT_APPROVALS", "MAILBOT_APPROVAL_TTL", "MAILBOT_APPROVALS_REQUIRED",
		"MAILBOT_APPROVAL_REMIND", "MAILBOT_HANDOVER_TTL", "MAILBOT_SELF_SERVICE", "MAILBOT_IMPORT_MAX_ROWS", "MAILBOT_DOMAINS", "MAILBOT_DEFAULT_DOMAIN", "MAILBOT_PASSWORD_LENGTH", "MAILBOT_DATABASE_URL",
		"MAILBOT_AUDIT_RETENTION", "GOOGLE_CREDENTIALS", "GOOGLE_ADMIN", "GOOGLE_CUSTOMER", "GOOGLE_ORG_UNIT", "GOOGLE_BASE_URL",
		"M365_TENANT_ID", "M365_CLIENT_ID", "M365_CLIENT_SECRET", "M365_LICENSE", "M365_USAGE_LOCATION", "M365_BASE_URL", "M365_LOGIN_URL",
		"MAILBOT_DNS_RESOLVER", "MAILBOT_HTTP_ADDR", "MAILBOT_SHUTDOWN_TIMEOUT", "MAILBOT_CONCURRENCY", "MAILBOT_LOG_LEVEL", "MAILBOT_LOG_FORMAT"}
	var tagged []string
	for _, v := range envVars() {
		tagged = append(tagged, v.name)
		line, ok := lines[v.name]
		def := v.def
		if v.name == "MAILBOT_PROVIDER" {
			def = testProviders[0].Name // the table's first
		}
		switch {
		case !ok:
			t.Errorf("help does not list %s", v.name)
		case def != "" && strings.Fields(line)[1] != def:
			t.Errorf("help line %q: want the default %q second", line, def)
		case def == "" && strings.Fields(line)[1] != "-":
			t.Errorf("help line %q: want - for no default", line)
		case len(strings.Fields(line)) < 3:
			t.Errorf("help line %q has no meaning", line)
		}
	}
	if diff := cmp.Diff(interfaceVars, tagged, cmp.Transformer("sort", func(s []string) []string { return slices.Sorted(slices.Values(s)) })); diff != "" {
		t.Errorf("config's variables against the documented list (-want +got):\n%s", diff)
	}
	for _, name := range []string{"SLACK_APP_TOKEN", "SLACK_BOT_TOKEN", "PDD_TOKEN", "Y360_TOKEN", "MAILCOW_API_KEY", "MAILBOT_DATABASE_URL"} {
		if !strings.Contains(lines[name+"_FILE"], "a file holding "+name) {
			t.Errorf("help does not list %s_FILE:\n%s", name, out.String())
		}
	}
	if !strings.Contains(lines["MAILBOT_APPROVALS_REQUIRED"], fmt.Sprintf("1 to %d", commands.MaxApprovalsRequired)) {
		t.Errorf("help line %q does not give the limit of commands.MaxApprovalsRequired", lines["MAILBOT_APPROVALS_REQUIRED"])
	}
	if s := out.String(); !strings.Contains(lines["SLACK_BOT_TOKEN"], "(required by serve)") || !strings.Contains(s, "set and empty disables it") {
		t.Errorf("help does not say what serve requires, or how to disable the listener:\n%s", s)
	}
}

// FuzzDatabaseURL: whatever the URL, neither the check's error nor the
// printed URL shows the password. The password carries a marker ("Zq9"),
// so that it cannot be mistaken for the fixed words of an error.
func FuzzDatabaseURL(f *testing.F) {
	f.Add("mailbot", "s3cret", "db.internal:5432/mailbot?sslmode=verify-full")
	f.Add("u", "p@ss:w/rd", "db:port/x")
	f.Add("u", "%zz", "db/x")
	f.Fuzz(func(t *testing.T, user, pass, rest string) {
		pass = "Zq9" + pass
		if strings.Contains(user+rest, pass) {
			return // the password is also elsewhere in the URL
		}
		d := DatabaseURL("postgres://" + user + ":" + pass + "@" + rest)
		if err := checkDatabaseURL(d); err != nil && strings.Contains(err.Error(), pass) {
			t.Errorf("the error shows the password: %v", err)
		}
		u, err := url.Parse(d.Reveal())
		if err != nil {
			if d.String() != "<not a URL, not shown>" {
				t.Errorf("String() of a URL that does not parse = %q", d.String())
			}
			return
		}
		if p, ok := u.User.Password(); ok && p == pass && strings.Contains(d.String(), pass) {
			t.Errorf("String() = %q shows the password", d.String())
		}
	})
}

// TestProviderTimeoutRenamed: MAILBOT_PROVIDER_TIMEOUT bounds a provider
// request; the old PDD_TIMEOUT is still read when the new name is not
// set, with a deprecation line for the log, and the new name wins when
// both are.
func TestProviderTimeoutRenamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		env        map[string]string
		want       time.Duration
		deprecated bool
	}{
		{"default", nil, 15 * time.Second, false},
		{"new name", map[string]string{"MAILBOT_PROVIDER_TIMEOUT": "3s"}, 3 * time.Second, false},
		{"old name", map[string]string{"PDD_TIMEOUT": "4s"}, 4 * time.Second, true},
		{"both: the new wins", map[string]string{"PDD_TIMEOUT": "4s", "MAILBOT_PROVIDER_TIMEOUT": "5s"}, 5 * time.Second, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := loadConfig(envFrom(tc.env), "shell")
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ProviderTimeout != tc.want {
				t.Errorf("ProviderTimeout = %s, want %s", cfg.ProviderTimeout, tc.want)
			}
			warned := len(cfg.Deprecations()) == 1 && strings.Contains(cfg.deprecated[0], "PDD_TIMEOUT is deprecated") &&
				strings.Contains(cfg.Deprecations()[0], "MAILBOT_PROVIDER_TIMEOUT")
			if warned != tc.deprecated {
				t.Errorf("deprecated = %q, want a PDD_TIMEOUT line: %v", cfg.Deprecations(), tc.deprecated)
			}
		})
	}
	if _, err := loadConfig(envFrom(map[string]string{"MAILBOT_PROVIDER_TIMEOUT": "-1s"}), "shell"); err == nil ||
		!strings.Contains(err.Error(), "MAILBOT_PROVIDER_TIMEOUT: must be a positive duration") {
		t.Errorf("a negative MAILBOT_PROVIDER_TIMEOUT: %v", err)
	}
}
