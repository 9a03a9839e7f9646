package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// module is this module's path: imports under it are its packages.
const module = "github.com/mailbot/mailbot"

// layers ranks the module's packages, lowest first: a package may import
// its own layer and those below it, never one above (ARCHITECTURE.md).
// A package takes the rank of the longest prefix listed.
var layers = []struct {
	prefix string
	rank   int
}{
	{"internal", 0}, // leaves only: an internal package imports none of the module's packages outside internal/
	{"apiclient", 1},
	{"commands", 2},
	{"bot", 3}, {"console", 3},
	{"config", 4}, {"providers", 4},
	{"", 5}, // main
}

// rankOf is the layer of the module's package rel (its path inside the
// module, "" for main).
func rankOf(rel string) int {
	best, rank := -1, -1
	for _, l := range layers {
		if (rel == l.prefix || l.prefix == "" || strings.HasPrefix(rel, l.prefix+"/")) && len(l.prefix) > best {
			best, rank = len(l.prefix), l.rank
		}
	}
	return rank
}

// TestImportGraph reads the import graph of every non-test package (go
// list) and fails on an import that points up a layer, on an import of
// bot or console by anything but main, on slack-go outside bot, and on a
// sandbox that imports its own provider's adapter (a sandbox stands on the
// provider's public record, so that the conformance suite can catch the
// adapter's mistakes).
func TestImportGraph(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	packages := 0
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.Contains(fields[0], "/testdata/") {
			continue
		}
		packages++
		from := rel(fields[0])
		for _, imp := range fields[1:] {
			checkImport(t, from, imp)
		}
	}
	if packages < 20 {
		t.Errorf("go list named %d packages: the test reads too little of the module", packages)
	}
}

// rel is the path of the module's package path inside the module, ""
// for main.
func rel(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

// checkImport checks one import of the package from (a path inside the
// module).
func checkImport(t *testing.T, from, imp string) {
	t.Helper()
	if strings.HasPrefix(imp, "github.com/slack-go/") && from != "bot" && !strings.HasPrefix(from, "bot/") {
		t.Errorf("%s imports %s: only bot may know slack-go", pkgName(from), imp)
	}
	if imp != module && !strings.HasPrefix(imp, module+"/") {
		return
	}
	to := rel(imp)
	if (to == "bot" || strings.HasPrefix(to, "bot/")) && from != "" && from != "bot" && !strings.HasPrefix(from, "bot/") {
		t.Errorf("%s imports %s: nothing but main imports bot", pkgName(from), to)
	}
	if to == "console" && from != "" {
		t.Errorf("%s imports console: nothing but main imports the shell", pkgName(from))
	}
	if rankOf(to) > rankOf(from) {
		t.Errorf("%s imports %s: an arrow pointing up (ARCHITECTURE.md)", pkgName(from), to)
	}
	if parts := strings.Split(from, "/"); len(parts) == 3 && parts[0] == "apiclient" && strings.HasSuffix(parts[2], "sim") &&
		(to == parts[0]+"/"+parts[1] || strings.HasPrefix(to, parts[0]+"/"+parts[1]+"/") && to != from && !strings.HasPrefix(to, from+"/")) {
		t.Errorf("%s imports %s: a sandbox stands on the provider's public record, not on its adapter", from, to)
	}
}

// pkgName names the package rel in a message.
func pkgName(rel string) string {
	if rel == "" {
		return "main"
	}
	return rel
}

// TestRankOf pins the layers the import graph test enforces.
func TestRankOf(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]int{
		"": 5, "providers": 4, "config": 4, "bot": 3, "bot/slackfake": 3, "console": 3,
		"commands": 2, "commands/pgstore": 2, "commands/providertest": 2, "apiclient": 1, "apiclient/pdd/pddsim": 1,
		"internal/textcut": 0, "internal/testkit": 0, "internal/metrics/metricstest": 0, "internal/anything": 0,
	} {
		if got := rankOf(rel); got != want {
			t.Errorf("rankOf(%q) = %d, want %d", rel, got, want)
		}
	}
}
