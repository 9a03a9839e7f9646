package textcut_test

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/internal/textcut"
)

// BenchmarkRunes cuts a 2000-character reason with emoji and combining
// marks to 500 characters, as CleanReason does.
func BenchmarkRunes(b *testing.B) {
	s := strings.Repeat("Onboarding 👩\u200d💻 for e\u0301quipe 🇫🇷, ", 70)
	b.ReportAllocs()
	for b.Loop() {
		_ = textcut.Runes(s, 500)
	}
}

// BenchmarkRunesShort is the usual case: a short value echoed in an error.
func BenchmarkRunesShort(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = textcut.Runes("exa_mple.com", 40)
	}
}
