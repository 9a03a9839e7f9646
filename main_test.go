package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/internal/testkit"
	"github.com/mailbot/mailbot/providers"
)

// envFrom is an environment for run(): a lookup over env.
func envFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// Values that must never appear in an error: tokens and passwords.
const (
	secretBotToken = "xoxb-1-SECRETBOT"
	secretDBPass   = "SECRETDBPASS"
)

// assertNoSecret fails when s holds a token or a password of the tests.
func assertNoSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, sec := range []string{"SECRETAPP", "SECRETBOT", "SECRETPDD", secretDBPass} {
		if strings.Contains(s, sec) {
			t.Errorf("%s shows a secret (%s): %q", where, sec, s)
		}
	}
}

// badEnv holds a bad value for every subcommand that reads configuration.
var badEnv = map[string]string{
	"MAILBOT_PASSWORD_LENGTH": "30",
	"SLACK_APP_TOKEN":         secretBotToken,
	"MAILBOT_DATABASE_URL":    "mysql://u:" + secretDBPass + "@db/x",
	"MAILBOT_LOG_LEVEL":       "loud",
}

// TestSubcommandHelp: SUBCOMMAND --help prints that subcommand's usage on
// stdout and succeeds, whatever the environment holds.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	for _, sc := range subcommands {
		for _, flag := range []string{"--help", "-h", "-help"} {
			var stdout, stderr testkit.Buffer
			err := run(t.Context(), []string{"mailbot", sc.name, flag}, envFrom(badEnv), strings.NewReader(""), &stdout, &stderr)
			if err != nil {
				t.Errorf("run(%s %s) = %v, want nil", sc.name, flag, err)
			}
			if out := stdout.String(); !strings.HasPrefix(out, "usage: mailbot "+sc.synopsis+"\n") {
				t.Errorf("run(%s %s) stdout = %q, want its usage", sc.name, flag, out)
			}
			if stderr.String() != "" {
				t.Errorf("run(%s %s) stderr = %q, want nothing", sc.name, flag, stderr.String())
			}
		}
	}
	var stdout testkit.Buffer
	if err := run(t.Context(), []string{"mailbot", "version", "--help"}, envFrom(nil), strings.NewReader(""), &stdout, &stdout); err != nil ||
		strings.Contains(stdout.String(), "go1.") {
		t.Errorf("version --help = %v, %q: want the usage, not the version", err, stdout.String())
	}
	stdout = testkit.Buffer{}
	if err := run(t.Context(), []string{"mailbot", "help", "audit"}, envFrom(badEnv), strings.NewReader(""), &stdout, &stdout); err != nil ||
		!strings.Contains(stdout.String(), "-since DURATION") || !strings.Contains(stdout.String(), `(default 168h0m0s)`) {
		t.Errorf("help audit = %v, %q: want audit's usage with its flags", err, stdout.String())
	}
}

// TestUsageErrors: a command line mailbot does not understand is a
// *usageError (exit status 2, usage on stderr), checked before the
// environment.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args      []string
		msg       string // the first line on stderr
		wantUsage string
	}{
		{[]string{"bogus"}, `mailbot: unknown subcommand "bogus"`, "usage: mailbot [SUBCOMMAND]"},
		{[]string{"--bogus"}, `mailbot: unknown flag "--bogus"`, "usage: mailbot [SUBCOMMAND]"},
		{[]string{"serve", "now"}, `mailbot: serve: unexpected argument "now"`, "usage: mailbot [serve]"},
		{[]string{"shell", "--nope"}, "mailbot: shell: flag provided but not defined: -nope", "usage: mailbot shell"},
		{[]string{"shell", "--as"}, "mailbot: shell: flag needs an argument: -as", "usage: mailbot shell"},
		{[]string{"shell", "--as", "bob"}, `mailbot: shell: --as "bob" is not a Slack user ID such as U012AB3CD`, "usage: mailbot shell"},
		{[]string{"shell", "extra"}, `mailbot: shell: unexpected argument "extra"`, "usage: mailbot shell"},
		{[]string{"sim", "--addr"}, "mailbot: sim: flag needs an argument: -addr", "usage: mailbot sim"},
		{[]string{"audit", "--since", "0s"}, "mailbot: audit: --since must be a positive duration such as 30d, 12h or 90m, got 0s", "usage: mailbot audit"},
		{[]string{"audit", "--since", "weekly"}, `mailbot: audit: invalid value "weekly" for flag -since: "weekly" is not a duration: write days, hours or minutes, such as 30d, 12h or 90m`, "usage: mailbot audit"},
		{[]string{"audit", "--json=maybe"}, `mailbot: audit: invalid boolean value "maybe" for -json: parse error`, "usage: mailbot audit"},
		{[]string{"version", "now"}, `mailbot: version: unexpected argument "now"`, "usage: mailbot version"},
		{[]string{"help", "bogus"}, `mailbot: help: unknown subcommand "bogus"`, "usage: mailbot help"},
		{[]string{"help", "shell", "sim"}, `mailbot: help: unexpected argument "sim"`, "usage: mailbot help"},
	} {
		var stdout, stderr testkit.Buffer
		err := run(t.Context(), append([]string{"mailbot"}, tc.args...), envFrom(badEnv), strings.NewReader(""), &stdout, &stderr)
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("run(%q) = %v, want a *usageError", tc.args, err)
			continue
		}
		if code := report(err, &stderr); code != 2 {
			t.Errorf("run(%q): exit status %d, want 2", tc.args, code)
		}
		first, rest, _ := strings.Cut(stderr.String(), "\n")
		if first != tc.msg || !strings.HasPrefix(strings.TrimLeft(rest, "\n"), tc.wantUsage) {
			t.Errorf("run(%q) stderr:\n%s\nwant %q, then the usage %q", tc.args, stderr.String(), tc.msg, tc.wantUsage)
		}
		if stdout.String() != "" {
			t.Errorf("run(%q) stdout = %q, want nothing", tc.args, stdout.String())
		}
	}
}

// TestReport: the exit status comes from the error's type.
func TestReport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err        error
		code       int
		wantStderr string
	}{
		{nil, 0, ""},
		{errors.New("slack: invalid_auth"), 1, "mailbot: slack: invalid_auth\n"},
		{config.Errors{{Var: "A", Reason: "bad"}, {Var: "B", Reason: "worse"}}, 1,
			"mailbot: configuration: A: bad\nmailbot: configuration: B: worse\n"},
		{&usageError{msg: "unknown subcommand", usage: "usage: mailbot\n"}, 2, "mailbot: unknown subcommand\n\nusage: mailbot\n"},
	} {
		var stderr bytes.Buffer
		if code := report(tc.err, &stderr); code != tc.code || stderr.String() != tc.wantStderr {
			t.Errorf("report(%v) = %d, %q; want %d, %q", tc.err, code, stderr.String(), tc.code, tc.wantStderr)
		}
	}
}

// TestBadConfigurationThroughRun: run() returns every bad variable, and
// the subcommand decides which are read.
func TestBadConfigurationThroughRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sub  string
		want []string
	}{
		{"serve", []string{"SLACK_APP_TOKEN", "SLACK_BOT_TOKEN", "PDD_TOKEN", "MAILBOT_ADMINS", "MAILBOT_PASSWORD_LENGTH", "MAILBOT_DATABASE_URL", "MAILBOT_LOG_LEVEL"}},
		{"shell", []string{"MAILBOT_PASSWORD_LENGTH", "MAILBOT_DATABASE_URL", "MAILBOT_LOG_LEVEL"}},
		{"sim", []string{"MAILBOT_LOG_LEVEL"}},
		{"audit", []string{"MAILBOT_DATABASE_URL", "MAILBOT_LOG_LEVEL"}},
	} {
		var stdout, stderr testkit.Buffer
		err := run(t.Context(), []string{"mailbot", tc.sub}, envFrom(badEnv), strings.NewReader(""), &stdout, &stderr)
		if code := report(err, &stderr); code != 1 {
			t.Errorf("%s: exit status %d, want 1", tc.sub, code)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != len(tc.want) {
			t.Errorf("%s: stderr:\n%s\nwant %d lines, naming %q", tc.sub, stderr.String(), len(tc.want), tc.want)
			continue
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, "mailbot: configuration: "+tc.want[i]+": ") {
				t.Errorf("%s: line %q, want it to name %s", tc.sub, l, tc.want[i])
			}
		}
		assertNoSecret(t, "stderr", stderr.String())
		if stdout.String() != "" {
			t.Errorf("%s: stdout = %q, want nothing", tc.sub, stdout.String())
		}
	}
}

// TestBinary builds mailbot with the Dockerfile's flags and drives it as
// an operator does: the exit status of each kind of failure, and what the
// linker kept.
//
// The linker check: text/template's execution looks methods up by names
// known only at run time (reflect.Value.MethodByName), and a reachable
// call of that kind makes the linker keep every exported method of every
// reachable type (measured: 14.5 MB against 11.4 MB stripped). The
// linker's -dumpdep prints the reachability graph and marks such callers
// <ReflectMethod>, so the test fails on any mark, and on text/template's
// Execute. (text/template's package initialisation stays, since envconfig
// imports it; that is harmless. go version -m lists modules, not standard
// packages, so it cannot see text/template; go tool nm needs an unstripped
// binary, and shows symbols, not why they were kept.)
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "mailbot")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -dumpdep", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	deps, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%.2000s", err, deps)
	}
	var kept []string
	for line := range strings.SplitSeq(string(deps), "\n") {
		if strings.Contains(line, "<ReflectMethod>") || strings.HasSuffix(line, "-> text/template.(*Template).Execute") {
			kept = append(kept, line)
		}
	}
	if len(kept) > 0 {
		t.Errorf("the linker keeps every exported method, for %d edges such as:\n%s", len(kept), strings.Join(kept[:min(len(kept), 5)], "\n"))
	}
	if st, err := os.Stat(bin); err == nil {
		t.Logf("release binary: %d bytes", st.Size())
	}

	for _, tc := range []struct {
		args       []string
		env        map[string]string
		code       int
		stdout     string // a prefix
		stderrHas  string
		stderrRows int // lines on stderr, when not 0
	}{
		{[]string{"shell", "--help"}, badEnv, 0, "usage: mailbot shell", "", 0},
		{[]string{"audit", "--help"}, badEnv, 0, "usage: mailbot audit", "", 0},
		{[]string{"version"}, badEnv, 0, "mailbot ", "", 0},
		{[]string{"help"}, badEnv, 0, "mailbot: administer", "", 0},
		{[]string{"bogus"}, badEnv, 2, "", "usage: mailbot [SUBCOMMAND]", 0},
		{[]string{"sim", "--port", "1"}, badEnv, 2, "", "usage: mailbot sim", 0},
		{[]string{"serve"}, badEnv, 1, "", "MAILBOT_DATABASE_URL", 7},
		{[]string{"audit"}, map[string]string{}, 1, "", "configuration: MAILBOT_DATABASE_URL: required by audit", 1},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = []string{}
		for k, v := range tc.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		rows := strings.Count(stderr.String(), "\n")
		if code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderrHas) ||
			tc.stderrRows != 0 && rows != tc.stderrRows {
			t.Errorf("mailbot %q: exit %d, stdout %q, stderr (%d lines):\n%s\nwant exit %d, stdout %q…, stderr with %q",
				tc.args, code, stdout.String(), rows, stderr.String(), tc.code, tc.stdout, tc.stderrHas)
		}
		assertNoSecret(t, "stderr", stderr.String())
	}
}

// FuzzParseArgs: any command line is parsed, a usage error, or a
// subcommand's usage printed; never a panic.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"", "shell --as UBOB", "audit --since 1h --json", "sim --addr", "help audit", "version --help", "--bogus"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var stdout bytes.Buffer
		o, err := parseArgs(strings.Fields(line), &stdout)
		var ue *usageError
		switch {
		case err != nil && !errors.As(err, &ue):
			t.Fatalf("parseArgs(%q) = %v, want a *usageError", line, err)
		case err != nil && (strings.Contains(ue.msg, "\n") || !strings.HasPrefix(ue.usage, "usage: mailbot ")):
			t.Errorf("parseArgs(%q): message %q, usage %q", line, ue.msg, ue.usage)
		case err == nil && o.helped && !strings.HasPrefix(stdout.String(), "usage: mailbot "):
			t.Errorf("parseArgs(%q) printed %q for --help", line, stdout.String())
		case err == nil && !o.helped && !slices.ContainsFunc(subcommands, func(sc subcommand) bool { return sc.name == o.sub }):
			t.Errorf("parseArgs(%q) = subcommand %q", line, o.sub)
		case err == nil && !o.helped && stdout.Len() > 0:
			t.Errorf("parseArgs(%q) printed %q", line, stdout.String())
		}
	})
}

func TestHelpListsSubcommandsAndVariables(t *testing.T) {
	t.Parallel()
	var out, errOut testkit.Buffer
	if err := run(t.Context(), []string{"mailbot", "help"}, envFrom(nil), strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, sc := range subcommands {
		if !strings.Contains(out.String(), "mailbot "+sc.synopsis) {
			t.Errorf("help does not list %q", "mailbot "+sc.synopsis)
		}
	}
	var vars strings.Builder
	config.WriteVars(&vars, providers.Rules())
	if !strings.Contains(out.String(), vars.String()) {
		t.Errorf("help does not list the variables:\n%s", out.String())
	}
}

func TestVersionLine(t *testing.T) {
	t.Parallel()
	var out testkit.Buffer
	if err := run(t.Context(), []string{"mailbot", "version"}, envFrom(nil), strings.NewReader(""), &out, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "mailbot ") || !strings.Contains(got, "go1.") || strings.Count(got, "\n") != 1 {
		t.Errorf("version = %q, want one line \"mailbot <version> (<commit>, <go version>)\"", got)
	}
}
