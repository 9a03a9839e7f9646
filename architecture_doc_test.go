package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/providers"
)

// TestArchitectureArrows checks ARCHITECTURE.md's import arrows against
// the import graph (go list): every arrow exists, and every import
// between the module's packages is drawn. Each provider's adapter is
// drawn once, as apiclient/<provider>, and its sandbox as
// apiclient/<provider>/sim.
func TestArchitectureArrows(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	drawn := docArrows(string(doc))
	if len(drawn) < 10 {
		t.Fatalf("ARCHITECTURE.md draws %d arrows in its imports block: the test reads too little", len(drawn))
	}
	got := importArrows(t)
	if diff := cmp.Diff(got, drawn); diff != "" {
		t.Errorf("ARCHITECTURE.md's imports block against go list (-go list +drawn):\n%s\nthe block as go list has it:\n%s",
			diff, strings.Join(got, "\n"))
	}
}

// docArrows reads the lines of the ```imports block: "from → to, to".
func docArrows(doc string) []string {
	_, block, _ := strings.Cut(doc, "```imports\n")
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// importArrows is the module's import graph between its rooms, a line per
// importing room, sorted: "from → to, to".
func importArrows(t *testing.T) []string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	arrows := map[string][]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.Contains(fields[0], "/testdata/") {
			continue
		}
		from := room(fields[0])
		for _, imp := range fields[1:] {
			if to := room(imp); strings.HasPrefix(imp, module) && to != from && !slices.Contains(arrows[from], to) {
				arrows[from] = append(arrows[from], to)
			}
		}
	}
	var lines []string
	for from, tos := range arrows {
		slices.Sort(tos)
		lines = append(lines, from+" → "+strings.Join(tos, ", "))
	}
	slices.Sort(lines)
	return lines
}

// room is the name a package goes by in the drawing: main, its path
// inside the module, or apiclient/<provider>(/sim) for every provider's.
func room(path string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	if rel == "" {
		return "main"
	}
	for _, p := range providers.Names() {
		switch {
		case rel == "apiclient/"+p:
			return "apiclient/<provider>"
		case strings.HasPrefix(rel, "apiclient/"+p+"/"):
			return "apiclient/<provider>/sim"
		}
	}
	return rel
}
