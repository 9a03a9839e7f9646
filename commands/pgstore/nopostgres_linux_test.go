package pgstore_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// dbTests are the tests of this package that need PostgreSQL.
const dbTests = "^(TestConformance|TestDurable|TestOutage)$"

// withoutPostgreSQL is the environment of a contributor's machine without
// PostgreSQL: pgtest looks only in an empty directory, and nothing
// requires it. Markers of earlier notices stay in a directory of the
// test's own.
func withoutPostgreSQL(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, pgtest.EnvRequired+"=") && !strings.HasPrefix(kv, pgtest.EnvBinDir+"=") &&
			!strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "TMPDIR="+t.TempDir(), pgtest.EnvBinDir+"="+t.TempDir())
}

// TestGoTestWithoutPostgreSQL runs `go test` on this package's database
// tests as a contributor without PostgreSQL would, its output read
// through a pipe as a script or CI reads it: the run passes, the tests
// say why they skip, and the last line of the output says what was not
// tested and how to test it. With MAILBOT_TEST_POSTGRES=required the run
// fails instead.
func TestGoTestWithoutPostgreSQL(t *testing.T) {
	env := withoutPostgreSQL(t)
	out, err := goTest(env, "-count=1", "-v", "-run", dbTests, ".")
	if err != nil {
		t.Fatalf("go test without PostgreSQL: %v\n%s", err, out)
	}
	for _, want := range []string{"--- SKIP: TestConformance", "--- SKIP: TestDurable", "--- SKIP: TestOutage",
		"PostgreSQL is not installed", "\nok  \t"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "SKIPPED") || !strings.HasSuffix(last, pgtest.EnvRequired+"=required go test ./...") {
		t.Errorf("the output's last line is %q; want the line that says what was skipped and how to run it:\n%s", last, out)
	}
	if n := strings.Count(out, "SKIPPED"); n != 1 {
		t.Errorf("the notice is printed %d times; want once:\n%s", n, out)
	}
	if !strings.Contains(last, pgtest.EnvBinDir+"=") {
		t.Errorf("the notice %q does not say why: PostgreSQL is not in %s", last, pgtest.EnvBinDir)
	}

	// Into a file, the line follows go test's output, a moment after go
	// test returned.
	file, err := os.Create(filepath.Join(t.TempDir(), "go-test.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	cmd := exec.Command("go", "test", "-count=1", "-run", dbTests, ".")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, file, file
	if err := cmd.Run(); err != nil {
		t.Fatalf("go test > file: %v", err)
	}
	read := func() string { b, _ := os.ReadFile(file.Name()); return string(b) }
	testkit.Until(5*time.Second, nil, func() bool { return strings.Contains(read(), "SKIPPED") })
	if lines := strings.Split(strings.TrimRight(read(), "\n"), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "ok  \t") || !strings.HasPrefix(lines[1], "pgtest: tests that need PostgreSQL were SKIPPED") {
		t.Errorf("go test's output file holds:\n%s\nwant the ok line, then the notice", read())
	}

	out, err = goTest(append(env, pgtest.EnvRequired+"=required"), "-count=1", "-run", dbTests, ".")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(out, "--- FAIL: TestConformance") ||
		!strings.Contains(out, pgtest.EnvRequired+"=required, but") {
		t.Errorf("with %s=required and no PostgreSQL: %v; want the tests failed\n%s", pgtest.EnvRequired, err, out)
	}
}

// goTest runs the go command's test in this package with env alone and
// returns its output, both streams through one pipe, read to its end.
func goTest(env []string, args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // read until every writer, the notice's too, has closed
	err := cmd.Run()
	return out.String(), err
}

// TestBinaryWithoutPostgreSQL runs this package's test binary itself, not
// through go test, on a pseudo-terminal: the tests skip and the notice
// goes to the terminal.
func TestBinaryWithoutPostgreSQL(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pgstore.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	master, tty := testkit.OpenPty(t)
	var screen testkit.Buffer
	go func() { _, _ = io.Copy(&screen, master) }() // ends when the pty closes
	cmd := exec.Command(bin, "-test.v", "-test.count=1", "-test.run", dbTests)
	cmd.Env = withoutPostgreSQL(t)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &out, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "--- SKIP: TestConformance") {
		t.Fatalf("the test binary without PostgreSQL: %v\n%s", err, out.String())
	}
	got, _ := screen.WaitMatch(t, 10*time.Second, regexp.MustCompile(`SKIPPED[^\n]*`), 0)
	if !strings.HasSuffix(strings.TrimSpace(got[0]), pgtest.EnvRequired+"=required go test ./...") {
		t.Errorf("the terminal shows %q; want one line that says how to run the skipped tests", got[0])
	}
}
