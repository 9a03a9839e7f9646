package pgstore_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// TestWithoutPostgreSQL runs this package's database tests as a
// contributor's machine without PostgreSQL would: the test binary, built
// here, with no PostgreSQL to be found (pgtest looks only in an empty
// directory) and a pseudo-terminal as its terminal. Without
// MAILBOT_TEST_POSTGRES the tests skip with a reason and the run passes,
// with one line on the terminal; with MAILBOT_TEST_POSTGRES=required the
// run fails.
func TestWithoutPostgreSQL(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pgstore.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, pgtest.EnvBinDir + "=" + t.TempDir()}
	args := []string{"-test.v", "-test.count=1", "-test.run", "^(TestConformance|TestDurable|TestOutage)$"}

	master, tty := testkit.OpenPty(t)
	var screen testkit.Buffer
	go func() { _, _ = io.Copy(&screen, master) }() // ends when the pty closes
	out, err := runTests(bin, args, env, tty)
	if err != nil {
		t.Fatalf("without PostgreSQL and without %s: %v\n%s", pgtest.EnvRequired, err, out)
	}
	for _, want := range []string{"--- SKIP: TestConformance", "--- SKIP: TestDurable", "--- SKIP: TestOutage",
		"PostgreSQL is not installed", "PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "FAIL") || strings.Contains(out, "panic") {
		t.Errorf("the run without PostgreSQL failed a test:\n%s", out)
	}
	line := strings.TrimSpace(waitFor(t, &screen, "SKIPPED"))
	if strings.Count(line, "\n") != 0 || !strings.Contains(line, pgtest.EnvRequired+"=required go test ./...") {
		t.Errorf("the terminal shows %q; want one line that says how to run the skipped tests", line)
	}

	out, err = runTests(bin, args, append(env, pgtest.EnvRequired+"=required"), nil)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(out, "--- FAIL: TestConformance") ||
		!strings.Contains(out, pgtest.EnvRequired+"=required, but") {
		t.Errorf("with %s=required and no PostgreSQL: %v; want the tests failed\n%s", pgtest.EnvRequired, err, out)
	}
}

// runTests runs the test binary with args and env alone, with tty (when
// not nil) as its controlling terminal, and returns its output.
func runTests(bin string, args, env []string, tty *os.File) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if tty != nil {
		cmd.Stdin = tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	err := cmd.Run()
	return out.String(), err
}

// waitFor polls the screen until it holds want, for up to 10 s, and
// returns it.
func waitFor(t *testing.T, screen *testkit.Buffer, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(screen.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows %q", want, screen.String())
		}
		time.Sleep(5 * time.Millisecond) // polling the terminal, with a deadline
	}
	return screen.String()
}
