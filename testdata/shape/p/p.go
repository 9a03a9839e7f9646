// Package p is TestShapeCounts' tree: Outer embeds *Inner and a type of
// another package.
package p

import "strings"

type Inner struct{}

func (*Inner) String() string { return "inner" }
func (*Inner) Len() int       { return 0 }

type Outer struct {
	*Inner
	strings.Builder // another package's: not followed
}

func (Outer) String() string { return "outer" }
func (Outer) Name() string   { return "outer" }
