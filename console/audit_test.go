package console

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseSince: parseSince never panics, and what it takes is what
// time.ParseDuration takes, or days before it.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"30d", "1d12h", "90m", "0d", "65535d", "d", "1dd", "-1d", "1.5d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseSince(s)
		if err != nil {
			return
		}
		days, rest, hasDays := strings.Cut(s, "d")
		if !hasDays {
			if want, err := time.ParseDuration(s); err != nil || want != d {
				t.Fatalf("parseSince(%q) = %s, time.ParseDuration = %s, %v", s, d, want, err)
			}
			return
		}
		if strings.Trim(days, "0123456789") != "" || days == "" || strings.Contains(rest, "d") {
			t.Fatalf("parseSince(%q) = %s, want a refusal", s, d)
		}
	})
}
