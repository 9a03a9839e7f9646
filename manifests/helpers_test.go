package manifests_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
	"github.com/mailbot/mailbot/providers"
)

// What these tests take from the code, as package main takes it.

// metricsDoc documents every metric mailbot exports, in a table.
const metricsDoc = "docs/metrics.md"

// docFamily is one row of the metrics table of metricsDoc.
type docFamily = metricstest.DocFamily

// documentedMetrics reads the metrics table of metricsDoc, every row.
func documentedMetrics(t *testing.T) map[string]docFamily {
	t.Helper()
	return metricstest.ReadDoc(t, fromRoot(metricsDoc))
}

// loadConfig loads the configuration as mailbot's subcommand sub does:
// the provider table's names and config.Load.
func loadConfig(lookup func(string) (string, bool), sub string) (*config.Config, error) {
	return config.Load(lookup, sub, providers.Rules())
}

// envFrom is an environment for loadConfig: a lookup over env.
func envFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// mainStringVars are the package-level variables of package main (the
// repository's root, tests left out) declared as strings: those that the
// linker's -X can stamp.
func mainStringVars(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	vars := make(map[string]bool)
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "main" {
			t.Fatalf("%s: package %s, want main", path, f.Name.Name)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				addStringVars(vars, g)
			}
		}
	}
	return vars
}

// addStringVars adds the names of g's specs that are strings: typed string,
// or untyped with string literals for values.
func addStringVars(vars map[string]bool, g *ast.GenDecl) {
	for _, spec := range g.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, name := range vs.Names {
			typed := vs.Type != nil && isIdent(vs.Type, "string")
			literal := vs.Type == nil && i < len(vs.Values) && isStringLit(vs.Values[i])
			if typed || literal {
				vars[name.Name] = true
			}
		}
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isStringLit(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}
