package y360sim

import (
	"strings"
	"testing"
)

// FuzzCanonicalDomain checks that an accepted name is an ASCII host name
// in canonical form, and that canonical form is stable.
func FuzzCanonicalDomain(f *testing.F) {
	for _, s := range []string{"example.org", "Example.ORG.", "xn--e1afmkfd.xn--p1ai", "пример.рф", "192.0.2.1", "a..b", "-a.example", "\u212Aey.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, ok := canonicalDomain(raw)
		if !ok {
			return
		}
		if len(name) > 253 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" || strings.HasSuffix(name, ".") {
			t.Errorf("canonicalDomain(%q) accepted %q", raw, name)
		}
		if again, ok := canonicalDomain(name); !ok || again != name {
			t.Errorf("canonicalDomain(%q) = %q, %v; want it unchanged", name, again, ok)
		}
	})
}
