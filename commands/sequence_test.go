package commands

import (
	"go/ast"
	"testing"
)

// TestOneRunSequence: every write goes through the one run sequence and
// every audit entry is made by the one constructor. In the production
// files of this package, only sequence.go begins or completes an audit
// entry in the store, and only audit.go writes an AuditEntry literal.
func TestOneRunSequence(t *testing.T) {
	t.Parallel()
	files := productionFiles(t)
	for _, sf := range files {
		path := sf.path
		ast.Inspect(sf.file, func(n ast.Node) bool {
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
	if len(files) < 50 {
		t.Fatalf("read %d production files: the test reads too little", len(files))
	}
}
