package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/providers"
)

// TestOnlyItsPackageAndRowNameAProvider: a provider is one package and
// one row. Production code names a provider (imports its package, uses
// its name as a string or its name constant, or writes a variable of its
// prefix, PDD_…) only in apiclient/<name>/, in its row
// (providers/<name>.go) and in its variables' file
// (config/<name>.go). apiclient/provider.go declares the name
// constants (apiclient.ProviderPDD, …), which only those places use.
func TestOnlyItsPackageAndRowNameAProvider(t *testing.T) {
	t.Parallel()
	words := providerWords()
	if len(words) < 3*len(providers.Names()) {
		t.Fatalf("provider words %v: the test reads too little", words)
	}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		files++
		for _, w := range namesIn(t, path) {
			if owner := words[w]; owner != "" && !ownedBy(path, owner) && path != filepath.Join("apiclient", "provider.go") {
				t.Errorf("%s names provider %s (%s): only apiclient/%s/, providers/%s.go and config/%s.go may",
					path, owner, w, owner, owner, owner)
			}
		}
		return nil
	})
	if err != nil || files < 100 {
		t.Fatalf("walked %d production files: %v", files, err)
	}
}

// providerWords maps each word that names a provider to the provider: its
// name, its package's import path, its name constant, and the prefix of
// its variables (from config's provider tags).
func providerWords() map[string]string {
	words := map[string]string{}
	for _, n := range providers.Names() {
		words[strconv.Quote(n)] = n
		words[module+"/apiclient/"+n] = n
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[config.Config]()) {
		if p := f.Tag.Get("provider"); p != "" {
			prefix, _, _ := strings.Cut(f.Tag.Get("envconfig"), "_")
			words[prefix+"_"] = p
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "apiclient/provider.go", nil, 0)
	if err != nil {
		return words
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == len(vs.Names) {
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && words[lit.Value] != "" {
					words["apiclient."+vs.Names[i].Name] = words[lit.Value]
				}
			}
		}
		return true
	})
	return words
}

// namesIn lists what in the Go file at path may name a provider: its
// imports, its string literals (every prefix of a variable's name in
// them, up to an underscore), and apiclient's exported names it uses.
func namesIn(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			p, _ := strconv.Unquote(n.Path.Value)
			out = append(out, importWords(p)...)
			return false
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				out = append(out, stringWords(n.Value)...)
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "apiclient" && path != filepath.Join("apiclient", "provider.go") {
				out = append(out, "apiclient."+n.Sel.Name)
			}
		}
		return true
	})
	return out
}

// importWords is an import path and its parents inside apiclient.
func importWords(p string) []string {
	var out []string
	for q := p; strings.HasPrefix(q, module+"/apiclient/"); q = filepath.Dir(q) {
		out = append(out, q)
	}
	return out
}

// stringWords is a string literal as it is, and each prefix of an
// upper-case word in it up to and with an underscore ("PDD_").
func stringWords(lit string) []string {
	out := []string{lit}
	s, err := strconv.Unquote(lit)
	if err != nil {
		return out
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') }) {
		if i := strings.IndexByte(w, '_'); i > 0 {
			out = append(out, w[:i+1])
		}
	}
	return out
}

// ownedBy reports whether path belongs to provider's package, row or
// variables' file.
func ownedBy(path, provider string) bool {
	path = filepath.ToSlash(path)
	return strings.HasPrefix(path, "apiclient/"+provider+"/") ||
		slices.Contains([]string{"providers/" + provider + ".go", "config/" + provider + ".go"}, path)
}
