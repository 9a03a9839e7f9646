package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxMainLines bounds package main's production code: it wires the
// packages together (the subcommands, logging, the health and metrics
// listener), and a job of its own belongs in a package of its own (the
// shell in console, sim beside the provider table, the metered wrappers
// beside what they measure).
const maxMainLines = 1200

// TestMainIsWiring: package main's production files (the module root's
// .go files, not _test.go) hold at most maxMainLines lines, counted as
// wc -l counts them.
func TestMainIsWiring(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files, lines := 0, 0
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files++
		lines += bytes.Count(b, []byte("\n"))
	}
	if files < 5 {
		t.Fatalf("read %d production files of package main: the test reads too little", files)
	}
	t.Logf("package main: %d production lines in %d files", lines, files)
	if lines > maxMainLines {
		t.Errorf("package main has %d production lines in %d files, want at most %d: move a job out of the wiring", lines, files, maxMainLines)
	}
}
