package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/internal/testkit"
)

// lockedBuffer is the old name of testkit.Buffer, kept while e2e_test.go
// still uses it; new code names testkit.Buffer.
type lockedBuffer = testkit.Buffer

// serveEnv is a complete serve configuration against a fake Slack and a
// sandbox.
func serveEnv(t testing.TB) (map[string]string, *slackfake.Server, *pddsim.Server) {
	t.Helper()
	fake := slackfake.New()
	t.Cleanup(fake.Close)
	sim := pddsim.New()
	simSrv := httptest.NewServer(sim)
	t.Cleanup(simSrv.Close)
	env := map[string]string{
		"SLACK_APP_TOKEN":     slackfake.AppToken,
		"SLACK_BOT_TOKEN":     slackfake.BotToken,
		"SLACK_API_URL":       strings.TrimSuffix(fake.URL, "/"), // mailbot adds the slash
		"PDD_TOKEN":           sim.NewAccount(),
		"PDD_BASE_URL":        simSrv.URL,
		"MAILBOT_ADMINS":      "UADMIN1",
		"MAILBOT_OPS_CHANNEL": "COPS",
		"MAILBOT_HTTP_ADDR":   freeAddr(t),
	}
	return env, fake, sim
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().String()
}

func httpStatus(url string) int {
	res, err := http.Get(url)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

func TestServeEndToEnd(t *testing.T) {
	env, fake, sim := serveEnv(t)
	var stdout, stderr testkit.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"mailbot", "serve"}, envFrom(env), strings.NewReader(""), &stdout, &stderr)
	}()

	if err := fake.Socket.WaitConnected(1, 10*time.Second); err != nil {
		t.Fatalf("%v; logs:\n%s", err, stderr.String())
	}
	base := "http://" + env["MAILBOT_HTTP_ADDR"]
	if err := fake.Wait(5*time.Second, "readyz 200", func() bool { return httpStatus(base+"/readyz") == 200 }); err != nil {
		t.Fatal(err)
	}
	// The register's result arrives before the add is typed, so the add
	// has one honest answer: the credential.
	regID, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", "register example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fake.WaitPosts(regID, 1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/mailbox", "add <mailto:alice@example.com|alice@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	posts, err := fake.WaitPosts(id, 1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var msg any
	if err := json.Unmarshal([]byte(posts[0].Raw), &msg); err != nil {
		t.Fatal(err)
	}
	shown := jsonStrings(msg)
	pw, ok := sim.Mailbox("alice@example.com")
	if !ok {
		t.Fatalf("the sandbox has no alice@example.com; the reply says:\n%s", shown)
	}
	slackEscaped := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(pw)
	if !strings.Contains(shown, "alice@example.com") || !strings.Contains(shown, slackEscaped) {
		t.Errorf("reply lacks the address or the password the sandbox holds:\n%s", shown)
	}
	if _, err := fake.WaitCalls("chat.postMessage", 2, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := httpStatus(base + "/metrics"); got != 200 {
		t.Errorf("/metrics = %d, want 200", got)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run = %v, want nil after the stop", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	logs := stderr.String()
	for _, secret := range []string{slackfake.AppToken, slackfake.BotToken, env["PDD_TOKEN"]} {
		if strings.Contains(logs, secret) {
			t.Errorf("a token is in the logs")
		}
	}
	if strings.Contains(logs, pw) {
		t.Errorf("the password is in the logs")
	}
}

// jsonStrings joins every string of a decoded JSON value, one a line.
func jsonStrings(v any) string {
	switch v := v.(type) {
	case string:
		return v + "\n"
	case []any:
		var b strings.Builder
		for _, e := range v {
			b.WriteString(jsonStrings(e))
		}
		return b.String()
	case map[string]any:
		var b strings.Builder
		for _, e := range v {
			b.WriteString(jsonStrings(e))
		}
		return b.String()
	}
	return ""
}

// TestServeRejectedTokens: a token Slack rejects ends serve with an
// error naming the variable the operator set: the token's own, or its
// _FILE variant when the token came from a file.
func TestServeRejectedTokens(t *testing.T) {
	for _, tc := range []struct {
		kind, variable string
		fromFile       bool
	}{
		{"bot", "SLACK_BOT_TOKEN", false},
		{"app", "SLACK_APP_TOKEN", false},
		{"bot", "SLACK_BOT_TOKEN", true},
		{"app", "SLACK_APP_TOKEN", true},
	} {
		wantVar := tc.variable
		if tc.fromFile {
			wantVar += "_FILE"
		}
		t.Run(wantVar, func(t *testing.T) {
			env, fake, _ := serveEnv(t)
			if tc.fromFile {
				path := filepath.Join(t.TempDir(), "token")
				if err := os.WriteFile(path, []byte(env[tc.variable]+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				delete(env, tc.variable)
				env[wantVar] = path
			}
			fake.Faults.RejectToken(tc.kind, "invalid_auth")
			var out testkit.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := run(ctx, []string{"mailbot"}, envFrom(env), strings.NewReader(""), &out, &out)
			if err == nil {
				t.Fatal("run = nil, want an error for a rejected token")
			}
			if ctx.Err() != nil {
				t.Fatalf("run took until the deadline: a rejected token must end it at once")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, wantVar+": ") || !strings.Contains(msg, "invalid_auth") {
				t.Errorf("error %q does not begin with %s and name invalid_auth", msg, wantVar)
			}
			for _, tok := range []string{slackfake.AppToken, slackfake.BotToken} {
				if strings.Contains(msg, tok) || strings.Contains(out.String(), tok) {
					t.Errorf("a token is in the error or the logs")
				}
			}
		})
	}
}

// TestBinarySignals builds mailbot and drives the binary as an operator
// does: a bad configuration fails with one line per bad variable, and
// SIGTERM with work in flight finishes the work and exits 0.
func TestBinarySignals(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mailbot")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	bad := exec.Command(bin, "serve")
	bad.Env = []string{"MAILBOT_PASSWORD_LENGTH=30", "SLACK_APP_TOKEN=xoxb-wrong-kind-secret"}
	var badErr bytes.Buffer
	bad.Stderr = &badErr
	if err := bad.Run(); err == nil {
		t.Error("bad configuration: exit 0, want non-zero")
	}
	// Every bad variable, one line each: the two bad values and the three
	// variables serve needs that are not set.
	if lines := strings.Split(strings.TrimSpace(badErr.String()), "\n"); len(lines) != 5 ||
		!strings.Contains(lines[0], "SLACK_APP_TOKEN") || !strings.Contains(badErr.String(), "MAILBOT_PASSWORD_LENGTH") {
		t.Errorf("bad configuration: stderr %q, want five lines naming SLACK_APP_TOKEN, MAILBOT_PASSWORD_LENGTH and the unset ones", badErr.String())
	}
	if strings.Contains(badErr.String(), "wrong-kind-secret") {
		t.Errorf("the token is in the error: %q", badErr.String())
	}

	env, fake, sim := serveEnv(t)
	cmd := exec.Command(bin)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr testkit.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := fake.Socket.WaitConnected(1, 10*time.Second); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("%v; logs:\n%s", err, stderr.String())
	}
	sim.SetLatency(time.Second)
	id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", "register inflight.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Socket.WaitAck(id, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want status 0; logs:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("mailbot did not exit after SIGTERM")
	}
	if posts := fake.Posts(id); len(posts) == 0 || !strings.Contains(posts[0].Raw, "inflight.com") {
		t.Errorf("the command in flight at SIGTERM got no result: %v", posts)
	}
	_ = os.Remove(bin)
}

// TestUnreachableDatabaseNamesFileVariable: a database that cannot be
// reached, its URL read from a file, is reported under
// MAILBOT_DATABASE_URL_FILE, the variable the operator set, without the
// URL's password; set directly, under MAILBOT_DATABASE_URL.
func TestUnreachableDatabaseNamesFileVariable(t *testing.T) {
	url := "postgres://mailbot:" + secretDBPass + "@" + freeAddr(t) + "/mailbot?connect_timeout=5"
	path := filepath.Join(t.TempDir(), "database-url")
	if err := os.WriteFile(path, []byte(url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, env := range []map[string]string{
		{"MAILBOT_DATABASE_URL_FILE": path},
		{"MAILBOT_DATABASE_URL": url},
	} {
		var want string
		for name := range env {
			want = name + ": "
		}
		var out testkit.Buffer
		err := run(t.Context(), []string{"mailbot", "audit"}, envFrom(env), strings.NewReader(""), &out, &out)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("audit with an unreachable database = %v, want an error beginning %q", err, want)
			continue
		}
		if strings.Contains(err.Error(), secretDBPass) || strings.Contains(out.String(), secretDBPass) {
			t.Errorf("the database password is in the error or the output: %v", err)
		}
	}
}

// TestServeWarnsOtherProviderVars: serve with PDD in use and a Yandex 360
// variable set logs one warning at start naming it and the provider.
func TestServeWarnsOtherProviderVars(t *testing.T) {
	env, fake, _ := serveEnv(t)
	env["Y360_ORG_ID"] = "12345"
	var stdout, stderr testkit.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"mailbot", "serve"}, envFrom(env), strings.NewReader(""), &stdout, &stderr)
	}()
	if err := fake.Socket.WaitConnected(1, 10*time.Second); err != nil {
		t.Fatalf("%v; logs:\n%s", err, stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr.String(), "Y360_ORG_ID set but not read: another provider's variables, and the one in use is MAILBOT_PROVIDER=pdd"); n != 1 {
		t.Errorf("%d warnings naming Y360_ORG_ID and pdd, want 1; logs:\n%s", n, stderr.String())
	}
}
