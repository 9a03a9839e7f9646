package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestOtherProvidersAreIgnored: the variables of a provider other than the
// selected one are neither checked nor required.
func TestOtherProvidersAreIgnored(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"PDD_BASE_URL": "http://pdd.example.com", "Y360_BASE_URL": "ftp://x", "Y360_ORG_ID": "acme",
		"Y360_DEPARTMENT_ID": "sales", "MAILCOW_URL": "http://mail.example.com", "MAILCOW_MX": "mx_1",
	}
	for provider, own := range map[string]string{"pdd": "PDD_BASE_URL", "yandex360": "Y360_BASE_URL", "mailcow": "MAILCOW_URL"} {
		env := with(serveBase(), "MAILBOT_PROVIDER", provider, "Y360_TOKEN", "y0-SECRETPDD", "MAILCOW_API_KEY", "SECRETPDD")
		for k, v := range bad {
			env[k] = v
		}
		_, err := loadConfig(envFrom(env), "serve")
		var ces Errors
		if !errors.As(err, &ces) {
			t.Fatalf("%s: loadConfig = %v, want Errors", provider, err)
		}
		for _, ce := range ces {
			if v := ce.Var; !strings.HasPrefix(v, strings.SplitN(own, "_", 2)[0]) {
				t.Errorf("%s: %s is reported, but it belongs to another provider", provider, ce)
			}
		}
		if !strings.Contains(err.Error(), own) {
			t.Errorf("%s: its own bad %s is not reported: %v", provider, own, err)
		}
	}
}

// TestProviderValues: each provider's values and what the shell learns
// from ProviderCredentialsSet; a serve of each provider needs no other's
// credentials.
func TestProviderValues(t *testing.T) {
	t.Parallel()
	noPDD := func(env map[string]string) map[string]string { delete(env, "PDD_TOKEN"); return env }
	for _, tc := range []struct {
		name, sub string
		env       map[string]string
		creds     bool
		check     func(*Config) bool
	}{
		{"pdd shell sandbox", "shell", nil, false, func(c *Config) bool { return c.Provider == apiclient.ProviderPDD }},
		{"pdd serve", "serve", serveBase(), true, func(c *Config) bool { return c.PDDToken.Reveal() == "pdd-SECRETPDD" }},
		{"yandex360 shell sandbox", "shell", map[string]string{"MAILBOT_PROVIDER": "YANDEX360", "PDD_TOKEN": "pdd-SECRETPDD"}, false,
			func(c *Config) bool {
				return c.Provider == apiclient.ProviderYandex360 && c.Y360DepartmentID == 1 && c.Y360OrgID == ""
			}},
		{"yandex360 serve", "serve", with(noPDD(serveBase()), "MAILBOT_PROVIDER", "yandex360", "Y360_TOKEN", "y0-SECRETPDD",
			"Y360_ORG_ID", "123456", "Y360_DEPARTMENT_ID", "7", "Y360_BASE_URL", "http://127.0.0.1:9/"), true,
			func(c *Config) bool {
				return c.Y360OrgID == "123456" && c.Y360DepartmentID == 7 && c.Y360BaseURL == "http://127.0.0.1:9/"
			}},
		{"mailcow shell sandbox", "shell", map[string]string{"MAILBOT_PROVIDER": "mailcow"}, false,
			func(c *Config) bool { return c.MailcowMX == "" }},
		{"mailcow serve, MX from the URL", "serve", with(noPDD(serveBase()), "MAILBOT_PROVIDER", "mailcow", "MAILCOW_URL", "https://Mail.Example.com:8443",
			"MAILCOW_API_KEY", "SECRETPDD"), true, func(c *Config) bool { return c.MailcowMX == "mail.example.com" }},
		{"mailcow at an IP address with MX", "serve", with(noPDD(serveBase()), "MAILBOT_PROVIDER", "mailcow", "MAILCOW_URL", "http://127.0.0.1:8443",
			"MAILCOW_API_KEY", "SECRETPDD", "MAILCOW_MX", "MX.example.com."), true, func(c *Config) bool { return c.MailcowMX == "mx.example.com" }},
		{"force password change off", "shell", map[string]string{"MAILBOT_FORCE_PASSWORD_CHANGE": "false"}, false,
			func(c *Config) bool { return !c.ForcePasswordChange }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := loadConfig(envFrom(tc.env), tc.sub)
			if err != nil {
				t.Fatalf("loadConfig(%s) = %v", tc.sub, err)
			}
			if got := cfg.ProviderCredentialsSet(); got != tc.creds {
				t.Errorf("ProviderCredentialsSet() = %v, want %v", got, tc.creds)
			}
			if !tc.check(cfg) {
				t.Errorf("values not as set: %+v", cfg)
			}
		})
	}
}

// writeSecretFile writes content to a new file and returns its path.
func writeSecretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSecretsFromFiles: every secret variable may come from the file its
// _FILE variant names, without the file's trailing white space.
func TestSecretsFromFiles(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"SLACK_APP_TOKEN_FILE":      writeSecretFile(t, secretAppToken+"\n"),
		"SLACK_BOT_TOKEN_FILE":      writeSecretFile(t, secretBotToken+"\r\n"),
		"PDD_TOKEN_FILE":            writeSecretFile(t, "pdd-SECRETPDD"),
		"MAILBOT_DATABASE_URL_FILE": writeSecretFile(t, "postgres://u:"+secretDBPass+"@db/x\n"),
		"MAILBOT_ADMINS":            "UADMIN1",
	}
	cfg, err := loadConfig(envFrom(env), "serve")
	if err != nil {
		t.Fatalf("loadConfig = %v", err)
	}
	for name, got := range map[string]string{
		"SLACK_APP_TOKEN": cfg.SlackAppToken.Reveal(), "SLACK_BOT_TOKEN": cfg.SlackBotToken.Reveal(),
		"PDD_TOKEN": cfg.PDDToken.Reveal(), "MAILBOT_DATABASE_URL": cfg.DatabaseURL.Reveal(),
	} {
		want := map[string]string{"SLACK_APP_TOKEN": secretAppToken, "SLACK_BOT_TOKEN": secretBotToken,
			"PDD_TOKEN": "pdd-SECRETPDD", "MAILBOT_DATABASE_URL": "postgres://u:" + secretDBPass + "@db/x"}[name]
		if got != want {
			t.Errorf("%s from its file = %q, want %q", name, got, want)
		}
	}
	y360 := map[string]string{"MAILBOT_PROVIDER": "yandex360", "Y360_TOKEN_FILE": writeSecretFile(t, "y0-SECRETPDD\n")}
	if cfg, err := loadConfig(envFrom(y360), "shell"); err != nil || cfg.Y360Token.Reveal() != "y0-SECRETPDD" || !cfg.ProviderCredentialsSet() {
		t.Errorf("Y360_TOKEN_FILE: loadConfig = %v; token from the file: %v", err, err == nil && cfg.Y360Token.Reveal() == "y0-SECRETPDD")
	}
	mailcow := map[string]string{"MAILBOT_PROVIDER": "mailcow", "MAILCOW_URL": "https://mail.example.com",
		"MAILCOW_API_KEY_FILE": writeSecretFile(t, "SECRETPDD\n")}
	if cfg, err := loadConfig(envFrom(mailcow), "shell"); err != nil || cfg.MailcowAPIKey.Reveal() != "SECRETPDD" {
		t.Errorf("MAILCOW_API_KEY_FILE: loadConfig = %v", err)
	}
}

// TestSecretFileErrors: both set, or a file that cannot be read, is an
// error naming the variable, never the secret; every one at once.
func TestSecretFileErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no-such-file")
	env := map[string]string{
		"SLACK_APP_TOKEN": secretAppToken, "SLACK_APP_TOKEN_FILE": writeSecretFile(t, secretAppToken),
		"SLACK_BOT_TOKEN_FILE": missing,
		"PDD_TOKEN":            "pdd-SECRETPDD", "PDD_TOKEN_FILE": writeSecretFile(t, "pdd-SECRETPDD"),
		"MAILBOT_ADMINS": "UADMIN1",
	}
	_, err := loadConfig(envFrom(env), "serve")
	want := []string{
		"configuration: SLACK_APP_TOKEN_FILE: set only one of SLACK_APP_TOKEN and SLACK_APP_TOKEN_FILE",
		"configuration: SLACK_BOT_TOKEN_FILE: cannot read the file: " + missing + ": no such file or directory",
		"configuration: PDD_TOKEN_FILE: set only one of PDD_TOKEN and PDD_TOKEN_FILE",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("loadConfig = %v, want:\n%s", err, strings.Join(want, "\n"))
	}
	assertNoSecret(t, "the error", err.Error())
	// A file of a variable the subcommand does not read is not its concern.
	if _, err := loadConfig(envFrom(map[string]string{"SLACK_BOT_TOKEN_FILE": missing}), "shell"); err != nil {
		t.Errorf("shell with a missing SLACK_BOT_TOKEN_FILE: loadConfig = %v, want nil", err)
	}
}

// TestSecretFileContent: a secret's file loses its trailing white space
// (spaces, tabs, CR, LF), however much, and keeps its leading content. An
// empty file, or an error about the file's value, names the _FILE variable
// and the file, never the secret, and is the one error about the variable.
func TestSecretFileContent(t *testing.T) {
	t.Parallel()
	const dbURL = "postgres://u:" + secretDBPass + "@db/x"
	for _, tc := range []struct {
		name, sub, variable, content string
		env                          map[string]string // besides variable_FILE
		want                         string            // the value read, or with wantErr the error, PATH standing for the file's path
		wantErr                      bool
	}{
		{"one trailing newline", "serve", "SLACK_APP_TOKEN", secretAppToken + "\n", nil, secretAppToken, false},
		{"two trailing newlines", "serve", "SLACK_APP_TOKEN", secretAppToken + "\n\n", nil, secretAppToken, false},
		{"trailing CR LF", "serve", "SLACK_BOT_TOKEN", secretBotToken + "\r\n", nil, secretBotToken, false},
		{"trailing space", "serve", "SLACK_APP_TOKEN", secretAppToken + " ", nil, secretAppToken, false},
		{"trailing tabs, spaces and blank lines", "shell", "PDD_TOKEN", "pdd-SECRETPDD\t \r\n\n \n", nil, "pdd-SECRETPDD", false},
		{"database URL with CR LF twice", "audit", "MAILBOT_DATABASE_URL", dbURL + "\r\n\r\n", nil, dbURL, false},
		{"mailcow key with a trailing space", "shell", "MAILCOW_API_KEY", "SECRETPDD \n", map[string]string{"MAILBOT_PROVIDER": "mailcow",
			"MAILCOW_URL": "https://mail.example.com"}, "SECRETPDD", false},

		{"empty file", "serve", "SLACK_APP_TOKEN", "", nil,
			"configuration: SLACK_APP_TOKEN_FILE: the file PATH is empty", true},
		{"empty file of a variable serve needs", "serve", "PDD_TOKEN", "", nil,
			"configuration: PDD_TOKEN_FILE: the file PATH is empty", true},
		{"empty file of an optional variable", "shell", "MAILBOT_DATABASE_URL", "", nil,
			"configuration: MAILBOT_DATABASE_URL_FILE: the file PATH is empty", true},
		{"white space only", "shell", "Y360_TOKEN", " \r\n\n", map[string]string{"MAILBOT_PROVIDER": "yandex360"},
			"configuration: Y360_TOKEN_FILE: the file PATH holds only white space", true},
		{"leading space kept", "serve", "SLACK_APP_TOKEN", " " + secretAppToken + "\n", nil,
			"configuration: SLACK_APP_TOKEN_FILE: the file PATH: must be an app-level token (xapp-...); the value given is not (not shown)", true},
		{"bot token in the app token's file", "serve", "SLACK_APP_TOKEN", secretBotToken + "\n\n", nil,
			"configuration: SLACK_APP_TOKEN_FILE: the file PATH: must be an app-level token (xapp-...); the value given is not (not shown)", true},
		{"two lines", "serve", "SLACK_BOT_TOKEN", secretBotToken + "\n" + secretBotToken + "\n", nil,
			"configuration: SLACK_BOT_TOKEN_FILE: the file PATH: must be a bot token (xoxb-...); the value given is not (not shown)", true},
		{"mailcow key of two words", "shell", "MAILCOW_API_KEY", "SECRETPDD SECRETPDD\n", map[string]string{"MAILBOT_PROVIDER": "mailcow",
			"MAILCOW_URL": "https://mail.example.com"},
			"configuration: MAILCOW_API_KEY_FILE: the file PATH: must be one word; the value given holds white space (not shown)", true},
		{"mailcow key without the URL", "shell", "MAILCOW_API_KEY", "SECRETPDD\n", map[string]string{"MAILBOT_PROVIDER": "mailcow"},
			"configuration: MAILCOW_URL: not set, but MAILCOW_API_KEY_FILE is: set both, or neither for the shell's sandbox", true},
		{"database URL with a bad port", "audit", "MAILBOT_DATABASE_URL", "postgres://u:" + secretDBPass + "@db:port/x\r\n", nil,
			"configuration: MAILBOT_DATABASE_URL_FILE: the file PATH: does not parse as a URL: invalid port after host (the value is not shown)", true},
		{"both set", "serve", "SLACK_APP_TOKEN", secretAppToken + "\n", map[string]string{"SLACK_APP_TOKEN": secretAppToken},
			"configuration: SLACK_APP_TOKEN_FILE: set only one of SLACK_APP_TOKEN and SLACK_APP_TOKEN_FILE", true},
		{"both set, the variable's own value malformed", "serve", "SLACK_BOT_TOKEN", secretBotToken, map[string]string{"SLACK_BOT_TOKEN": secretAppToken},
			"configuration: SLACK_BOT_TOKEN_FILE: set only one of SLACK_BOT_TOKEN and SLACK_BOT_TOKEN_FILE", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			if tc.sub == "serve" {
				env = serveBase()
			}
			delete(env, tc.variable)
			for k, v := range tc.env {
				env[k] = v
			}
			path := writeSecretFile(t, tc.content)
			env[tc.variable+"_FILE"] = path
			cfg, err := loadConfig(envFrom(env), tc.sub)
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("loadConfig = %v", err)
				}
				if got := revealed(cfg, tc.variable); got != tc.want {
					t.Errorf("%s from %q = %q, want %q", tc.variable, tc.content, got, tc.want)
				}
				return
			}
			if want := strings.ReplaceAll(tc.want, "PATH", path); err == nil || err.Error() != want {
				t.Fatalf("loadConfig = %v, want the one line\n%s", err, want)
			}
			assertNoSecret(t, "the error", err.Error())
		})
	}
}

// revealed is the value of the secret variable name in cfg.
func revealed(cfg *Config, name string) string {
	for _, v := range envVars() {
		if v.name == name {
			return reflect.ValueOf(cfg).Elem().FieldByIndex(v.index).Interface().(revealer).Reveal()
		}
	}
	return "no such variable " + name
}

// TestSecretFileTooLarge: a secret's file is read only up to a bound, so
// that a device such as /dev/zero cannot hang the start.
func TestSecretFileTooLarge(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(envFrom(map[string]string{"PDD_TOKEN_FILE": "/dev/zero"}), "shell")
	if err == nil || !strings.Contains(err.Error(), "PDD_TOKEN_FILE: cannot read the file: larger than 64 KiB") {
		t.Errorf("loadConfig with PDD_TOKEN_FILE=/dev/zero = %v, want it refused as too large", err)
	}
}

// FuzzLoadConfig: any value of any variable, under any provider, gives a
// configuration or an error, never both, and an error never shows a
// secret variable's value. For a secret's _FILE variant the value is the
// file's content.
func FuzzLoadConfig(f *testing.F) {
	f.Add("MAILBOT_PASSWORD_LENGTH", "30", "pdd")
	f.Add("Y360_ORG_ID", "-1", "yandex360")
	f.Add("MAILCOW_URL", "https://[::1]:8443", "mailcow")
	f.Add("MAILBOT_DATABASE_URL", "postgres://u:SECRETDBPASS@db:port/x", "pdd")
	f.Add("SLACK_APP_TOKEN", "xoxb-SECRETBOT", "pdd")
	f.Add("MAILBOT_FORCE_PASSWORD_CHANGE", "maybe", "MAILCOW")
	f.Add("SLACK_APP_TOKEN_FILE", "xapp-1-A0-SECRETAPP\r\n\n", "pdd")
	f.Add("MAILCOW_API_KEY_FILE", " SECRETKEY \t\n", "mailcow")
	secrets := map[string]bool{}
	for _, v := range envVars() {
		secrets[v.name] = v.secret
	}
	f.Fuzz(func(t *testing.T, name, value, provider string) {
		env := with(serveBase(), "MAILBOT_PROVIDER", provider)
		path := ""
		if secret, ok := strings.CutSuffix(name, "_FILE"); ok && secrets[secret] {
			path = writeSecretFile(t, value)
			delete(env, secret)
			env[name] = path
			name = secret
		} else {
			env[name] = value
		}
		for _, sub := range []string{"serve", "shell", "sim", "audit"} {
			cfg, err := loadConfig(envFrom(env), sub)
			if (cfg == nil) == (err == nil) {
				t.Fatalf("%s=%q for %s: loadConfig = %v, %v: want exactly one", name, value, sub, cfg, err)
			}
			if v := strings.TrimSpace(value); err != nil && secrets[name] && len(v) >= 8 && !strings.Contains(path, v) && strings.Contains(err.Error(), v) {
				t.Fatalf("%s for %s: the error shows the value: %v", name, sub, err)
			}
		}
	})
}

// BenchmarkLoadConfig decodes and checks a serve configuration through a
// map lookup, as run() does once at start.
func BenchmarkLoadConfig(b *testing.B) {
	env := with(serveBase(), "MAILBOT_DOMAINS", "example.com,*.example.org", "MAILBOT_APPROVALS", "requests",
		"MAILBOT_OPS_CHANNEL", "COPS", "MAILBOT_DATABASE_URL", "postgres://u:pw@db/x?sslmode=require")
	lookup := envFrom(env)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadConfig(lookup, "serve"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCredentialsVariable: the core's replies to refused credentials name
// the variable the operator set for the selected provider: its secret, or
// the secret's _FILE variant when it came from a file.
func TestCredentialsVariable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "credential")
	if err := os.WriteFile(path, []byte("SECRETPDD\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{serveBase(), "PDD_TOKEN"},
		{with(serveBase(), "PDD_TOKEN", "", "PDD_TOKEN_FILE", path), "PDD_TOKEN_FILE"},
		{with(serveBase(), "MAILBOT_PROVIDER", "yandex360", "Y360_TOKEN", "y0-SECRETPDD"), "Y360_TOKEN"},
		{with(serveBase(), "MAILBOT_PROVIDER", "mailcow", "MAILCOW_URL", "https://mail.example.com", "MAILCOW_API_KEY_FILE", path), "MAILCOW_API_KEY_FILE"},
	} {
		cfg, err := loadConfig(envFrom(tc.env), "serve")
		if err != nil {
			t.Errorf("loadConfig(%v): %v", tc.env, err)
			continue
		}
		if got := cfg.CoreConfig().CredentialsVariable; got != tc.want {
			t.Errorf("MAILBOT_PROVIDER=%q: CredentialsVariable = %q, want %q", tc.env["MAILBOT_PROVIDER"], got, tc.want)
		}
	}
}

// TestConfigOtherProviderVars: variables of a provider other than the one
// selected, set and not empty, give one warning for serve and shell that
// names them and the provider in use.
func TestConfigOtherProviderVars(t *testing.T) {
	t.Parallel()
	env := with(serveBase(), "MAILBOT_PROVIDER", "mailcow", "MAILCOW_URL", "https://mail.example.com", "MAILCOW_API_KEY", "k",
		"GOOGLE_ADMIN", "admin@example.com", "Y360_TOKEN_FILE", "/nonexistent", "PDD_BASE_URL", "", "GOOGLE_ORG_UNIT", "/")
	for _, sub := range []string{"serve", "shell"} {
		cfg, err := loadConfig(envFrom(env), sub)
		if err != nil {
			t.Fatal(err)
		}
		w := cfg.UnusedVars()
		if !strings.HasSuffix(w, "MAILBOT_PROVIDER=mailcow") || !strings.HasPrefix(w, "PDD_TOKEN, Y360_TOKEN_FILE, GOOGLE_ADMIN set") {
			t.Errorf("%s: warnings %q, want one naming PDD_TOKEN, Y360_TOKEN_FILE, GOOGLE_ADMIN and mailcow", sub, w)
		}
	}
	cfg, err := loadConfig(envFrom(with(serveBase(), "MAILBOT_PROVIDER", "pdd")), "serve")
	if err != nil || cfg.UnusedVars() != "" {
		t.Errorf("only the selected provider's variables: %q, %v; want no warning", cfg.UnusedVars(), err)
	}
}

// TestConfigGoogleOrgUnit: GOOGLE_ORG_UNIT is a path from the root; "/"
// by default; anything else stops start-up, naming it.
func TestConfigGoogleOrgUnit(t *testing.T) {
	t.Parallel()
	for value, good := range map[string]bool{"/": true, "/Staff/New": true, "Staff": false, "/Staff/": false, "//x": false} {
		cfg, err := loadConfig(envFrom(map[string]string{"MAILBOT_PROVIDER": "google", "GOOGLE_ORG_UNIT": value}), "shell")
		switch {
		case good && (err != nil || cfg.GoogleOrgUnit != value):
			t.Errorf("GOOGLE_ORG_UNIT=%s: %v; want it accepted", value, err)
		case !good && (err == nil || !strings.Contains(err.Error(), "GOOGLE_ORG_UNIT:")):
			t.Errorf("GOOGLE_ORG_UNIT=%s: %v; want start-up stopped, naming it", value, err)
		}
	}
}
