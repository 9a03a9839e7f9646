package simkit

import "testing"

// TestPattern: a Pattern compiles its expression once, on first use.
func TestPattern(t *testing.T) {
	t.Parallel()
	p := &Pattern{Expr: `^a+$`}
	if p.re != nil {
		t.Fatal("compiled before its first use")
	}
	if !p.Re().MatchString("aaa") || p.Re().MatchString("ab") {
		t.Error(`Re() does not match as ^a+$`)
	}
	if first := p.Re(); first != p.Re() {
		t.Error("compiled twice")
	}
}
