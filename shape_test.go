package main

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The shape of the production code, read from its files: no named type
// with more than maxMethods methods (its own and those promoted to it by
// embedding), no file over maxFileLines lines, and functions whose 99th
// percentile length is at most maxFuncP99 lines.
const (
	maxMethods   = 60
	maxFileLines = 400
	maxFuncP99   = 40
)

// shape is what the production files hold: each named type's declared
// methods and embedded types (by package directory and name), each file's
// lines, and each function's lines.
type shape struct {
	methods map[string][]string // "dir.Type" → method names
	embeds  map[string][]string // "dir.Type" → embedded "dir.Type"s
	files   map[string]int
	funcs   map[string]int // "path:Name" → lines
}

// readShape parses every production .go file under root (not _test.go,
// not testdata/ or hidden directories).
func readShape(t *testing.T, root string) shape {
	t.Helper()
	s := shape{methods: map[string][]string{}, embeds: map[string][]string{}, files: map[string]int{}, funcs: map[string]int{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		s.add(fset, path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// add records one parsed file.
func (s shape) add(fset *token.FileSet, path string, f *ast.File) {
	dir := filepath.Dir(path)
	s.files[path] = fset.Position(f.End()).Line
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			s.funcs[path+":"+d.Name.Name] = fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
			if d.Recv != nil && len(d.Recv.List) == 1 {
				if name := typeName(d.Recv.List[0].Type); name != "" {
					s.methods[dir+"."+name] = append(s.methods[dir+"."+name], d.Name.Name)
				}
			}
		case *ast.GenDecl:
			s.addTypes(dir, d)
		}
	}
}

// addTypes records the embedded fields of d's struct types.
func (s shape) addTypes(dir string, d *ast.GenDecl) {
	for _, spec := range d.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 {
				if name := typeName(f.Type); name != "" { // a type of another package counts as its own: none is embedded
					s.embeds[dir+"."+ts.Name.Name] = append(s.embeds[dir+"."+ts.Name.Name], dir+"."+name)
				}
			}
		}
	}
}

// typeName is the name of a receiver or embedded type of this package
// (T, *T, T[P]), or "".
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// methodSet is the methods a reader counts on typ: its own and, through
// embedding, those of the types it embeds (each name once).
func (s shape) methodSet(typ string, seen map[string]bool) map[string]bool {
	set := map[string]bool{}
	if seen[typ] {
		return set
	}
	seen[typ] = true
	for _, m := range s.methods[typ] {
		set[m] = true
	}
	for _, e := range s.embeds[typ] {
		for m := range s.methodSet(e, seen) {
			set[m] = true
		}
	}
	return set
}

// tooMany are the types that have more than maxMethods methods, each
// with its count when it was listed: it may shrink, never grow. Remove a
// type from the list once it has maxMethods or fewer.
var tooMany = map[string]int{}

// TestNoTypeHasTooManyMethods: no production type has more than
// maxMethods methods, counting those promoted by embedding, so that a
// type's job stays one a reader can hold.
func TestNoTypeHasTooManyMethods(t *testing.T) {
	t.Parallel()
	s := readShape(t, ".")
	if len(s.methods) < 100 {
		t.Fatalf("read the methods of %d types: the test reads too little", len(s.methods))
	}
	sizes := make(map[string]int, len(s.methods))
	for typ := range s.methods {
		sizes[typ] = len(s.methodSet(typ, map[string]bool{}))
	}
	largest := slices.SortedFunc(maps.Keys(sizes), func(a, b string) int { return cmp.Or(sizes[b]-sizes[a], strings.Compare(a, b)) })
	for _, typ := range largest[:5] {
		t.Logf("%s: %d methods", typ, sizes[typ])
	}
	for typ, n := range sizes {
		most := maxMethods
		if known, ok := tooMany[typ]; ok {
			most = known
		}
		if n > most {
			t.Errorf("%s has %d methods, want at most %d: split it into types of their own jobs", typ, n, most)
		}
	}
	for typ, known := range tooMany {
		if n := len(s.methodSet(typ, map[string]bool{})); n <= maxMethods || n < known {
			t.Errorf("%s has %d methods, listed in tooMany with %d: list it with %[2]d, or (at %d or fewer) not at all", typ, n, known, maxMethods)
		}
	}
}

// TestNoFileIsTooLong: no production file has more than maxFileLines lines.
func TestNoFileIsTooLong(t *testing.T) {
	t.Parallel()
	s := readShape(t, ".")
	if len(s.files) < 100 {
		t.Fatalf("read %d files: the test reads too little", len(s.files))
	}
	for path, n := range s.files {
		if n > maxFileLines {
			t.Errorf("%s has %d lines, want at most %d", path, n, maxFileLines)
		}
	}
}

// TestFunctionsAreShort: the 99th percentile of the production
// functions' lengths (from func to its closing brace) is at most
// maxFuncP99 lines.
func TestFunctionsAreShort(t *testing.T) {
	t.Parallel()
	s := readShape(t, ".")
	lens := make([]int, 0, len(s.funcs))
	for _, n := range s.funcs {
		lens = append(lens, n)
	}
	if len(lens) < 1000 {
		t.Fatalf("read %d functions: the test reads too little", len(lens))
	}
	slices.Sort(lens)
	t.Logf("%d functions: p99 %d lines, longest %d", len(lens), lens[len(lens)*99/100], lens[len(lens)-1])
	if p99 := lens[len(lens)*99/100]; p99 > maxFuncP99 {
		t.Errorf("functions' p99 is %d lines (of %d functions, longest %d), want at most %d", p99, len(lens), lens[len(lens)-1], maxFuncP99)
	}
}

// TestShapeCounts: the counting itself, on a tree of its own: embedding
// promotes methods (through a pointer too, each name once), a type of
// another package is not followed, and test files and testdata are not
// read.
func TestShapeCounts(t *testing.T) {
	t.Parallel()
	s := readShape(t, filepath.Join("testdata", "shape"))
	dir := filepath.Join("testdata", "shape", "p")
	if got := len(s.methodSet(dir+".Outer", map[string]bool{})); got != 3 {
		t.Errorf("Outer has %d methods, want 3 (String and Name its own, Len promoted from *Inner: String counts once)", got)
	}
	if got := s.files[filepath.Join(dir, "p.go")]; got == 0 {
		t.Errorf("p.go not read: %v", s.files)
	}
	if len(s.files) != 1 {
		t.Errorf("read %v, want only p.go", s.files)
	}
}
