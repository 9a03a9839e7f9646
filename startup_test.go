package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProvidersNeedNoInitialisation: no package under apiclient/ (the
// adapters, their sandboxes, what they share) runs an initialiser
// (GODEBUG=inittrace=1 lists every package whose initialisation runs).
// serve never runs a sandbox and drives only the providers it is
// configured for, and an initialiser that runs maps the 64 KiB blocks of
// code around it into the idle process (docs/performance.md):
// package-level regular expressions are simkit.Patterns, tables are
// switches, errors values of their own types.
func TestProvidersNeedNoInitialisation(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "mailbot")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = []string{"GODEBUG=inittrace=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mailbot version: %v\n%s", err, out)
	}
	traced := 0
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		traced++
		if pkg := f[1]; strings.HasPrefix(pkg, "github.com/mailbot/mailbot/apiclient/") {
			t.Errorf("%s runs an initialiser in every process, whichever provider it drives: %s", pkg, line)
		}
		if pkg := f[1]; strings.HasPrefix(pkg, "golang.org/x/oauth2/google") {
			t.Errorf("%s runs an initialiser in every process, though Google's adapter needs only the JWT flow (golang.org/x/oauth2/jwt): %s", pkg, line)
		}
	}
	if traced == 0 {
		t.Fatalf("no package initialisation traced:\n%s", out)
	}
}
