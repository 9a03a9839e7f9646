package commands

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneRunSequence: every write goes through the one run sequence and
// every audit entry is made by the one constructor. In the production
// files of this package, only sequence.go begins or completes an audit
// entry in the store, and only audit.go writes an AuditEntry literal.
func TestOneRunSequence(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(gotoken.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		read++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if inner, ok := n.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "store" &&
					(n.Sel.Name == "Begin" || n.Sel.Name == "Complete") && path != "sequence.go" {
					t.Errorf("%s calls store.%s: only the run sequence (sequence.go) may", path, n.Sel.Name)
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "AuditEntry" && path != "audit.go" {
					t.Errorf("%s writes an AuditEntry literal: only the one constructor (entry, audit.go) may", path)
				}
			}
			return true
		})
	}
	if read < 50 {
		t.Fatalf("read %d production files: the test reads too little", read)
	}
}
