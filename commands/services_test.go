package commands

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestServicesSayWhatTheyUse: the services reach each other through
// fields of their own, never through Core, and every such field is used,
// so that a service's fields say which others it needs. A service's
// methods count, and those of the types that hold it (an import's run
// holds the import service).
func TestServicesSayWhatTheyUse(t *testing.T) {
	t.Parallel()
	structs, methods := readPackage(t)
	holders := map[string][]string{} // service -> the types holding it in a field
	for typ, st := range structs {
		for _, f := range st.Fields.List {
			held := starName(f.Type)
			if held == "Core" && typ != "Core" {
				t.Errorf("%s holds *Core: a service reaches another through a field of its own", typ)
			}
			if strings.HasSuffix(held, "Service") && len(f.Names) == 0 {
				t.Errorf("%s embeds *%s: its methods would be %s's", typ, held, typ)
			}
			if strings.HasSuffix(held, "Service") && !strings.HasSuffix(typ, "Service") && typ != "Core" {
				holders[held] = append(holders[held], typ)
			}
		}
	}
	services := 0
	for typ, st := range structs {
		if !strings.HasSuffix(typ, "Service") {
			continue
		}
		services++
		var bodies []*ast.FuncDecl
		for _, owner := range append([]string{typ}, holders[typ]...) {
			bodies = append(bodies, methods[owner]...)
		}
		for _, f := range st.Fields.List {
			if strings.HasSuffix(starName(f.Type), "Service") && !usesField(bodies, f.Names[0].Name) {
				t.Errorf("%s.%s (*%s) is never used: drop the field", typ, f.Names[0].Name, starName(f.Type))
			}
		}
	}
	if services < 8 {
		t.Fatalf("read %d services: the test reads too little", services)
	}
}

// sourceFile is one of this package's production files, parsed.
type sourceFile struct {
	path string
	file *ast.File
}

// productionFiles parses this package's production (not _test.go) files.
func productionFiles(t *testing.T) []sourceFile {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []sourceFile
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(gotoken.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, sourceFile{path, f})
	}
	return files
}

// readPackage parses this package's production files: its struct types
// and each type's methods.
func readPackage(t *testing.T) (map[string]*ast.StructType, map[string][]*ast.FuncDecl) {
	t.Helper()
	structs, methods := map[string]*ast.StructType{}, map[string][]*ast.FuncDecl{}
	for _, sf := range productionFiles(t) {
		ast.Inspect(sf.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if st, ok := n.Type.(*ast.StructType); ok {
					structs[n.Name.Name] = st
				}
			case *ast.FuncDecl:
				if n.Recv != nil {
					recv := starName(n.Recv.List[0].Type)
					methods[recv] = append(methods[recv], n)
				}
			}
			return true
		})
	}
	return structs, methods
}

// starName is the name of *T or T, or "".
func starName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// usesField reports whether a body selects field (x.field).
func usesField(bodies []*ast.FuncDecl, field string) bool {
	used := false
	for _, fd := range bodies {
		ast.Inspect(fd, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok && se.Sel.Name == field {
				used = true
			}
			return !used
		})
	}
	return used
}
