package main

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/internal/testkit"
)

// shellOutput is a buffer that the shell writes to while the test reads.
type shellOutput struct{ testkit.Buffer }

// waitFor waits until re matches the output after from, and returns the
// match and the offset after it.
func (b *shellOutput) waitFor(t *testing.T, re *regexp.Regexp, from int) ([]string, int) {
	t.Helper()
	return b.WaitMatch(t, 10*time.Second, re, from)
}

// runShellCmd runs `mailbot shell args...` through run() with env and stdin,
// and returns what it printed on stdout and stderr (the log).
func runShellCmd(t *testing.T, env map[string]string, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, log shellOutput
	err = run(t.Context(), append([]string{"mailbot", "shell"}, args...), envFrom(env), stdin, &out, &log)
	return out.String(), log.String(), err
}

// startSim serves a PDD sandbox on loopback and returns it, its URL and a
// token of a new account.
func startSim(t *testing.T) (*pddsim.Server, string, string) {
	t.Helper()
	sim := pddsim.New()
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	return sim, ts.URL, sim.NewAccount()
}

var (
	reSecretName    = regexp.MustCompile(`(?m)^  Secret name: (\S+)$`)
	reSecretContent = regexp.MustCompile(`(?m)^  Secret content: (\S+)$`)
	rePassword      = regexp.MustCompile(`(?m)^  Password: (\S+)$`)
	reUID           = regexp.MustCompile(`(?m)^  UID: ([1-9][0-9]*)$`)
	rePendingID     = regexp.MustCompile(`approve ([a-z2-7]{10})`)
)

// match returns the first group of re in s, failing the test without one.
func match(t *testing.T, re *regexp.Regexp, s string) string {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("output has no match for %s:\n%s", re, s)
	}
	return m[1]
}

// assertNotIn fails when any secret appears in s.
func assertNotIn(t *testing.T, where, s string, secrets ...string) {
	t.Helper()
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			t.Errorf("%s holds the secret %q:\n%s", where, sec, s)
		}
	}
}

// opsLines returns the lines the shell prints for the ops channel.
func opsLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[ops] ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestShellEmbeddedSandbox is the quick start: without PDD_TOKEN the shell
// registers a domain and adds a mailbox against its embedded sandbox, and
// no secret reaches the log, even at debug level.
func TestShellEmbeddedSandbox(t *testing.T) {
	t.Parallel()
	in := strings.NewReader("/maildomain register example.com\n/mailbox add alice@example.com\n")
	out, log, err := runShellCmd(t, map[string]string{"MAILBOT_LOG_LEVEL": "debug", "MAILBOT_LOG_FORMAT": "json"}, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; output:\n%s", err, out)
	}
	if !strings.Contains(out, "embedded sandbox of the PDD API at http://127.0.0.1:") {
		t.Errorf("output does not say it uses the embedded sandbox:\n%s", out)
	}
	name, content := match(t, reSecretName, out), match(t, reSecretContent, out)
	if !strings.Contains(out, "http://example.com/"+name+".html whose whole content is "+content) ||
		!strings.Contains(out, "CNAME yamail-"+name+".example.com pointing to mail.yandex.ru") {
		t.Errorf("output does not say how to publish the secrets:\n%s", out)
	}
	pw := match(t, rePassword, out)
	// The password rules, written out: the default length of 16, Latin
	// letters, digits and !@#$%^&*()_-+:;,. only, not the user name.
	if !regexp.MustCompile(`^[A-Za-z0-9!@#$%^&*()_\-+:;,.]{16}$`).MatchString(pw) || strings.EqualFold(pw, "alice") {
		t.Errorf("printed password %q breaks the password rules", pw)
	}
	match(t, reUID, out) // only an accepted mailbox has a uid
	if !strings.Contains(out, "Mailbox alice@example.com created") {
		t.Errorf("output does not name the mailbox:\n%s", out)
	}
	if !strings.Contains(log, `"target":"alice@example.com"`) {
		t.Errorf("the log has no line for the add operation:\n%s", log)
	}
	assertNotIn(t, "the log", log, pw, content, name)
	assertNotIn(t, "the ops lines", opsLines(out), pw, content, name)
}

// TestShellExternalAPI drives an API given by PDD_TOKEN and PDD_BASE_URL,
// and checks that the printed credential is the one the API holds.
func TestShellExternalAPI(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url, "MAILBOT_LOG_LEVEL": "debug"}
	in := strings.NewReader("/maildomain register Example.COM.\n/mailbox add alice example.com\nexit\n/mailbox add bob@example.com\n")
	out, log, err := runShellCmd(t, env, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; output:\n%s", err, out)
	}
	if strings.Contains(out, "sandbox") {
		t.Errorf("with PDD_TOKEN the shell still mentions a sandbox:\n%s", out)
	}
	pw := match(t, rePassword, out)
	if got, ok := sim.Mailbox("alice@example.com"); !ok || got != pw {
		t.Errorf("the API holds alice@example.com: %v with the printed password: %v", ok, got == pw)
	}
	if _, ok := sim.Mailbox("bob@example.com"); ok {
		t.Error("a line after exit was run")
	}
	if n := sim.Requests(""); n != 3 {
		t.Errorf("the API got %d requests, want 3 (a status read, the register, the add)", n)
	}
	assertNotIn(t, "the log", log, pw, token)
	assertNotIn(t, "the output", out, token)
}

// TestShellRefusesWithoutCallingTheAPI acts as a non-admin and types bad
// input: each is explained and the API sees nothing.
func TestShellRefusesWithoutCallingTheAPI(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url}
	in := strings.NewReader("/maildomain register example.com\nas USHELL\n/mailbox add <@U1|bob>\n/maildomain register exa_mple.com\n/mailbox\nhello\n")
	out, _, err := runShellCmd(t, env, in, "--as", "UBOB")
	if err != nil {
		t.Fatalf("run(shell --as UBOB) = %v", err)
	}
	for _, want := range []string{
		"Only mailbot admins",                               // UBOB in mode off
		"Acting as USHELL (the shell's own user, an admin)", // as
		"is a mention of a person",                          // stray mention
		"is not a valid domain name",                        // bad domain
		"/mailbox add <user>@<domain> [reason…]",            // usage
		`Unknown input "hello"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := sim.Requests(""); n != 0 {
		t.Errorf("the API got %d requests, want none", n)
	}
}

func TestShellBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--as", "bob"}, {"extra"}, {"--nope"}} {
		if _, _, err := runShellCmd(t, nil, strings.NewReader(""), args...); err == nil {
			t.Errorf("run(shell %q) = nil, want an error", args)
		}
	}
}

// TestShellApprovals walks one session through a request, a refused click,
// an approval and a repeated click, and a denial: the API sees exactly one
// add, and the requester alone gets the password.
func TestShellApprovals(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url, "MAILBOT_ADMINS": "UADMIN2",
		"MAILBOT_APPROVALS": "requests"}
	inR, inW := io.Pipe()
	var out, log shellOutput
	done := make(chan error, 1)
	go func() {
		done <- run(t.Context(), []string{"mailbot", "shell", "--as", "UADMIN2"}, envFrom(env), inR, &out, &log)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
	}
	send("as UADMIN2")
	send("/maildomain register example.com")
	_, off := out.waitFor(t, regexp.MustCompile(`\[ops\] UADMIN2 registered domain example.com`), 0)
	send("as UBOB")
	send("/mailbox add bob@example.com onboarding")
	m, off := out.waitFor(t, rePendingID, off)
	id := m[1]
	send("approve " + id)
	_, off = out.waitFor(t, regexp.MustCompile(`Only mailbot admins may approve`), off)
	if n := sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Fatalf("the API got %d add requests before the approval", n)
	}
	send("as UADMIN2")
	send("approve " + id)
	_, off = out.waitFor(t, regexp.MustCompile(`(?s)\[ops\] Request \w+ \(done\): Approved by UADMIN2.*\[to UBOB, only them\].*UID: \d+\n.*Request approved`), off)
	send("approve " + id)
	_, off = out.waitFor(t, regexp.MustCompile(`Already decided\n.*was approved by UADMIN2`), off)
	send("as UCAROL")
	send("/mailbox add carol@example.com")
	m, off = out.waitFor(t, rePendingID, off)
	send("as UADMIN2")
	send("deny " + m[1])
	_, off = out.waitFor(t, regexp.MustCompile(`(?s)\[ops\] Request \w+ \(denied\): Denied by UADMIN2.*\[to UCAROL, only them\]\nRequest denied\nUADMIN2 denied your request.*You denied`), off)
	// The ops channel's request for a reset says where the password goes.
	send("as UBOB")
	send("/mailbox reset bob@example.com forgot it")
	m, off = out.waitFor(t, regexp.MustCompile(`\[ops\] Approval request (\w+): UBOB asks to reset the password of mailbox bob@example\.com[^\n]*If approved, the new password goes to UBOB alone\.`), off)
	send("as UADMIN2")
	send("deny " + m[1])
	_, _ = out.waitFor(t, regexp.MustCompile(`\[ops\] Request \w+ \(denied\)`), off)
	_ = inW.Close() // an io.Pipe writer's Close always returns nil
	if err := <-done; err != nil {
		t.Fatalf("run(shell) = %v", err)
	}
	pw := match(t, rePassword, out.String())
	if got, ok := sim.Mailbox("bob@example.com"); !ok || got != pw {
		t.Errorf("bob@example.com exists: %v, with the printed password: %v", ok, got == pw)
	}
	if _, ok := sim.Mailbox("carol@example.com"); ok {
		t.Error("a denied request ran")
	}
	if n := sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("the API got %d add requests, want exactly 1", n)
	}
	assertNotIn(t, "the ops lines", opsLines(out.String()), pw)
	assertNotIn(t, "the log", log.String(), pw, token)
}

// TestShellWarnsOtherProviderVars: a Google variable set while PDD is in
// use gives one warning at start, naming it and the provider in use.
func TestShellWarnsOtherProviderVars(t *testing.T) {
	t.Parallel()
	out, _, err := runShellCmd(t, map[string]string{"GOOGLE_ADMIN": "admin@example.com", "GOOGLE_CUSTOMER": "C01abc2de"}, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "Warning: GOOGLE_ADMIN, GOOGLE_CUSTOMER set but not read: another provider's variables, and the one in use is MAILBOT_PROVIDER=pdd."); n != 1 {
		t.Errorf("the shell printed %d warnings naming GOOGLE_ADMIN, GOOGLE_CUSTOMER and pdd, want 1:\n%s", n, out)
	}
}

// TestShellPDDRegisterAgain: registering a PDD domain that is verified
// already says it was registered already, with its status.
func TestShellPDDRegisterAgain(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	out, _, err := runShellCmd(t, map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url}, strings.NewReader("/maildomain register example.com\n"))
	if err != nil || !strings.Contains(out, "Domain example.com registered") {
		t.Fatalf("first register: %v\n%s", err, out)
	}
	if err := sim.SetStatus("example.com", pddsim.StatusAdded); err != nil {
		t.Fatal(err)
	}
	out, _, err = runShellCmd(t, map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url}, strings.NewReader("/maildomain register example.com\n"))
	if err != nil || !strings.Contains(out, "Domain example.com was registered already") || !strings.Contains(out, "added") {
		t.Errorf("register again: %v\n%s", err, out)
	}
}
