package manifests_test

// compose.yaml, loaded offline by the Compose specification's own loader
// (schema validation, interpolation, merging) as docker compose loads it,
// and checked against the image, the sandbox and the configuration.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/providers"
)

const composeFile = "compose.yaml"

// composeSecrets are the variables compose.yaml reads from the environment
// that hold a secret, each with a stand-in value for the tests.
var composeSecrets = map[string]string{
	"SLACK_APP_TOKEN":   "xapp-1-A0-compose-test",
	"SLACK_BOT_TOKEN":   "xoxb-compose-test",
	"POSTGRES_PASSWORD": "pw0compose0test",
}

// composeEnv is the project's environment: the secrets and the admins.
func composeEnv(extra ...string) types.Mapping {
	env := types.Mapping{"MAILBOT_ADMINS": "U012AB3CD"}
	for k, v := range composeSecrets {
		env[k] = v
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return env
}

// loadCompose loads compose.yaml with env, validating it against the
// Compose specification's schema.
func loadCompose(t *testing.T, env types.Mapping) (*types.Project, error) {
	t.Helper()
	wd, err := filepath.Abs(root) // where compose.yaml is, as docker compose runs it
	if err != nil {
		t.Fatal(err)
	}
	return loader.LoadWithContext(t.Context(), types.ConfigDetails{
		WorkingDir:  wd,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(wd, composeFile)}},
		Environment: env,
	})
}

func mustLoadCompose(t *testing.T, env types.Mapping) *types.Project {
	t.Helper()
	p, err := loadCompose(t, env)
	if err != nil {
		t.Fatalf("load %s: %v", composeFile, err)
	}
	return p
}

// TestComposeServices checks the stack's shape: the bot on the sandbox
// image, started after a healthy PostgreSQL and sandbox, sharing the
// sandbox's network so that its URL is loopback, and every published port
// on loopback.
func TestComposeServices(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t, composeEnv())
	if diff := cmp.Diff([]string{"mailbot", "postgres", "sandbox"}, slices.Sorted(slices.Values(p.ServiceNames()))); diff != "" {
		t.Fatalf("services (-want +got):\n%s", diff)
	}
	bot, sandbox, pg := p.Services["mailbot"], p.Services["sandbox"], p.Services["postgres"]
	for _, s := range []types.ServiceConfig{bot, sandbox} {
		if s.Build == nil || s.Build.Target != "sandbox" || s.Image != "mailbot:sandbox" {
			t.Errorf("%s: build %+v, image %q: want the Dockerfile's sandbox target as mailbot:sandbox", s.Name, s.Build, s.Image)
		}
	}
	if !slices.ContainsFunc(dockerStages(t), func(st []string) bool { return strings.HasSuffix(st[0], " AS sandbox") }) {
		t.Errorf("%s has no stage named sandbox", dockerfile)
	}
	if bot.NetworkMode != "service:sandbox" {
		t.Errorf("mailbot network_mode %q, want service:sandbox (the sandbox's URL is loopback only there)", bot.NetworkMode)
	}
	for name, restart := range map[string]bool{"sandbox": true, "postgres": false} {
		d, ok := bot.DependsOn[name]
		if !ok || d.Condition != types.ServiceConditionHealthy || d.Restart != restart {
			t.Errorf("mailbot depends_on %s: %+v, want condition service_healthy, restart %v", name, d, restart)
		}
	}
	for _, s := range []types.ServiceConfig{bot, sandbox, pg} {
		if s.HealthCheck == nil || len(s.HealthCheck.Test) < 2 || s.HealthCheck.Test[0] != "CMD" {
			t.Errorf("%s: healthcheck %+v, want a CMD test", s.Name, s.HealthCheck)
		}
		for _, port := range s.Ports {
			if port.HostIP != "127.0.0.1" {
				t.Errorf("%s publishes %s:%d on %q, want 127.0.0.1 only", s.Name, port.Published, port.Target, port.HostIP)
			}
		}
	}
	if len(pg.Ports) > 0 {
		t.Errorf("postgres publishes %v: only the stack reaches it", pg.Ports)
	}
	if !slices.ContainsFunc(pg.Volumes, func(v types.ServiceVolumeConfig) bool { return v.Type == types.VolumeTypeVolume }) {
		t.Errorf("postgres has no named volume %v: the state would not outlive the container", pg.Volumes)
	}
	checkComposeHTTPPort(t, sandbox)
}

// checkComposeHTTPPort checks that the bot's listener is published, on the
// sandbox whose network it shares.
func checkComposeHTTPPort(t *testing.T, sandbox types.ServiceConfig) {
	t.Helper()
	port := uint32(defaultHTTPPort(t))
	if !slices.ContainsFunc(sandbox.Ports, func(p types.ServicePortConfig) bool { return p.Target == port }) {
		t.Errorf("sandbox publishes %v, not mailbot's port %d", sandbox.Ports, port)
	}
}

// TestComposeCommands checks what each container runs: the selected
// provider's sandbox writing its variables where the bot reads them before
// it execs mailbot serve.
func TestComposeCommands(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"", "pdd", "mailcow", "yandex360"} {
		p := mustLoadCompose(t, composeEnv("MAILBOT_PROVIDER", provider))
		want := provider
		if want == "" {
			want = "pdd"
		}
		bot, sandbox := p.Services["mailbot"], p.Services["sandbox"]
		for _, s := range []types.ServiceConfig{bot, sandbox} {
			if got := s.Environment["MAILBOT_PROVIDER"]; got == nil || *got != want {
				t.Errorf("MAILBOT_PROVIDER=%q: %s gets MAILBOT_PROVIDER %v, want %q", provider, s.Name, got, want)
			}
		}
		sim := shellScript(t, sandbox)
		if !strings.Contains(sim, `exec /mailbot sim --provider "$MAILBOT_PROVIDER" --addr 0.0.0.0:8081 >/run/sandbox/provider.env`) {
			t.Errorf("sandbox runs %q, want mailbot sim for $MAILBOT_PROVIDER writing /run/sandbox/provider.env", sim)
		}
		serve := shellScript(t, bot)
		if !strings.Contains(serve, ". /run/sandbox/provider.env") || !strings.HasSuffix(serve, "exec /mailbot serve") {
			t.Errorf("mailbot runs %q, want it to read /run/sandbox/provider.env, then exec /mailbot serve", serve)
		}
	}
}

// TestComposeMailcowMX runs the bot's script with a POSIX shell, the
// sandbox's real variables in place of /run/sandbox/provider.env and env
// in place of mailbot, and loads serve's configuration from what it
// exports: a MAILCOW_MX of the user's applies when set, the sandbox's
// when not, and the sandbox's other variables reach the bot.
func TestComposeMailcowMX(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no POSIX shell on CI's machine: %v", err)
		}
		t.Skip("no POSIX shell:", err)
	}
	for _, tc := range []struct {
		provider, userMX, want string
	}{
		{"mailcow", "", mailcowsim.DefaultHostname},
		{"mailcow", "MX.Example.com", "mx.example.com"},
		{"pdd", "", ""},
		{"pdd", "mx.example.com", "mx.example.com"},
	} {
		bot := mustLoadCompose(t, composeEnv("MAILBOT_PROVIDER", tc.provider, "MAILCOW_MX", tc.userMX)).Services["mailbot"]
		sb, err := providers.NewSandbox(tc.provider)
		if err != nil {
			t.Fatal(err)
		}
		var lines strings.Builder
		for _, kv := range sb.Vars("http://127.0.0.1:8081") {
			lines.WriteString(kv[0] + "=" + kv[1] + "\n")
		}
		providerEnv := filepath.Join(t.TempDir(), "provider.env")
		if err := os.WriteFile(providerEnv, []byte(lines.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		script, ok := strings.CutSuffix(shellScript(t, bot), "exec /mailbot serve")
		if !ok {
			t.Fatalf("the bot's script does not end with exec /mailbot serve: %q", shellScript(t, bot))
		}
		cmd := exec.CommandContext(t.Context(), sh, "-c", strings.ReplaceAll(script, "/run/sandbox/provider.env", providerEnv)+"exec env")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range bot.Environment {
			if v != nil {
				cmd.Env = append(cmd.Env, k+"="+*v)
			}
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: the bot's script: %v", tc.provider, err)
		}
		env := map[string]string{}
		for line := range strings.SplitSeq(string(out), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				env[k] = v
			}
		}
		cfg, err := loadConfig(envFrom(env), "serve")
		if err != nil {
			t.Fatalf("provider %s, MAILCOW_MX %q: the bot's configuration: %v", tc.provider, tc.userMX, err)
		}
		name := map[string]string{"mailcow": "MAILCOW_URL", "pdd": "PDD_BASE_URL"}[tc.provider]
		if cfg.MailcowMX != tc.want || env[name] != "http://127.0.0.1:8081" || !cfg.ProviderCredentialsSet() {
			t.Errorf("provider %s, MAILCOW_MX %q: the bot gets MAILCOW_MX %q (want %q), %s %q, credentials %v",
				tc.provider, tc.userMX, cfg.MailcowMX, tc.want, name, env[name], cfg.ProviderCredentialsSet())
		}
	}
}

// shellScript is the script a service hands to the image's busybox shell.
func shellScript(t *testing.T, s types.ServiceConfig) string {
	t.Helper()
	if !slices.Equal(s.Entrypoint, types.ShellCommand{"/busybox/sh", "-c"}) || len(s.Command) != 1 {
		t.Fatalf("%s: entrypoint %q, command %q: want /busybox/sh -c and one script", s.Name, s.Entrypoint, s.Command)
	}
	return s.Command[0]
}

// TestComposeSecretsFromEnvironment checks that no secret is written in
// compose.yaml: each reaches the bot from the environment, and the stack
// refuses to load without it.
func TestComposeSecretsFromEnvironment(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(fromRoot(composeFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"xapp-1-", "xoxb-1", "xoxp-", "postgres://mailbot:mailbot"} {
		if strings.Contains(string(raw), prefix) {
			t.Errorf("%s holds %q: a secret written in the file", composeFile, prefix)
		}
	}
	bot := mustLoadCompose(t, composeEnv()).Services["mailbot"]
	for name, value := range composeSecrets {
		if !envCarries(bot.Environment, value) {
			t.Errorf("the bot's environment does not carry %s from the project's environment", name)
		}
		env := composeEnv()
		delete(env, name)
		if _, err := loadCompose(t, env); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("without %s: load error %v, want one naming it", name, err)
		}
	}
	checkComposeVars(t, bot)
}

// checkComposeVars checks that the bot's variables are mailbot's own.
func checkComposeVars(t *testing.T, bot types.ServiceConfig) {
	t.Helper()
	vars := configVars(t)
	// This release's provider variables, until the configuration has them.
	pending := map[string]bool{}
	for name := range bot.Environment {
		if _, ok := vars[name]; !ok && !pending[name] {
			t.Errorf("the bot's environment sets %s, which mailbot does not read", name)
		}
	}
}

// envCarries reports whether a variable of env holds value.
func envCarries(env types.MappingWithEquals, value string) bool {
	for _, v := range env {
		if v != nil && strings.Contains(*v, value) {
			return true
		}
	}
	return false
}

// TestComposeSandboxHealthyForEveryProvider checks that the sandbox's
// healthcheck finds, for every provider mailbot sim serves, a line of the
// variables it prints (a credential), so that the bot starts once they
// are written.
func TestComposeSandboxHealthyForEveryProvider(t *testing.T) {
	t.Parallel()
	sb := mustLoadCompose(t, composeEnv()).Services["sandbox"]
	test := sb.HealthCheck.Test
	var patterns []string
	for i := 0; i+1 < len(test); i++ {
		if test[i] == "-e" {
			patterns = append(patterns, test[i+1])
		}
	}
	for _, name := range providers.Names() {
		s, err := providers.NewSandbox(name)
		if err != nil {
			t.Fatal(err)
		}
		var lines strings.Builder
		for _, kv := range s.Vars("http://127.0.0.1:8081") {
			if s.FileVars[kv[0]] {
				kv[0] += "_FILE"
			}
			lines.WriteString(kv[0] + "=" + kv[1] + "\n")
		}
		if !slices.ContainsFunc(patterns, func(p string) bool { return strings.Contains(lines.String(), p) }) {
			t.Errorf("%s: the sandbox's healthcheck %q matches none of its lines:\n%s", name, patterns, lines.String())
		}
	}
}
