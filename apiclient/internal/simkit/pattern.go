package simkit

import (
	"regexp"
	"sync"
)

// Pattern is a regular expression compiled on first use. A package-level
// Pattern needs no initialiser: the sandboxes are linked into every mailbot
// binary, and `serve` never runs one, so their code stays unmapped in the
// idle process only while their package initialisation does nothing (a
// package initialiser that runs maps the 64 KiB of code around it).
type Pattern struct {
	Expr string // the expression, valid: Re panics on an invalid one

	once sync.Once
	re   *regexp.Regexp
}

// Re is the compiled expression.
func (p *Pattern) Re() *regexp.Regexp {
	p.once.Do(func() { p.re = regexp.MustCompile(p.Expr) })
	return p.re
}
