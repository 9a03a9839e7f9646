package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goFileRef is a Go file a document names in backquotes: a name, a
// pattern (handover*.go) or a path (bot/forms.go).
var goFileRef = regexp.MustCompile("`([A-Za-z0-9_./*-]+\\.go)`")

// TestArchitectureNamesFilesThatExist: every Go file ARCHITECTURE.md
// names (by name, pattern or path; a placeholder such as <name> is not a
// file) is one the module has, so that a renamed or removed file cannot
// leave the map pointing at nothing.
func TestArchitectureNamesFilesThatExist(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			paths = append(paths, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	refs := goFileRef.FindAllStringSubmatch(string(doc), -1)
	if len(refs) < 50 {
		t.Fatalf("ARCHITECTURE.md names %d Go files: the test reads too little", len(refs))
	}
	for _, ref := range refs {
		if !namesAFile(ref[1], paths) {
			t.Errorf("ARCHITECTURE.md names %s, which no file of the module is", ref[1])
		}
	}
}

// namesAFile reports whether ref (a base name or pattern, or a path
// ending in one) is a file of paths.
func namesAFile(ref string, paths []string) bool {
	for _, p := range paths {
		if ok, _ := filepath.Match(ref, p); ok {
			return true
		}
		if !strings.Contains(ref, "/") {
			if ok, _ := filepath.Match(ref, filepath.Base(p)); ok {
				return true
			}
		} else if ok, _ := filepath.Match("*/"+ref, p); ok {
			return true
		}
	}
	return false
}
