package commands

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestPasswordProperties generates 10,000 passwords over every allowed
// length and checks each against the rules of the API and mailbot's own.
func TestPasswordProperties(t *testing.T) {
	t.Parallel()
	const n = 10000
	seen := make(map[string]bool, n)
	cores := map[int]*Core{}
	for length := apiclient.MinPasswordLen; length <= apiclient.MaxPasswordLen; length++ {
		cores[length] = newCore(t, &fakeAPI{}, Config{PasswordLength: length})
	}
	logins := []string{"alice", "a", "x1.y-2", strings.Repeat("z", 30)}
	for i := range n {
		length := apiclient.MinPasswordLen + i%(apiclient.MaxPasswordLen-apiclient.MinPasswordLen+1)
		login := logins[i%len(logins)]
		pw, err := cores[length].newPassword(login, "example.com")
		if err != nil {
			t.Fatalf("newPassword(length %d) error: %v", length, err)
		}
		if len(pw) != length {
			t.Fatalf("password %d has length %d, want %d", i, len(pw), length)
		}
		if err := apiclient.ValidatePassword(login, pw); err != nil {
			t.Fatalf("password %d (length %d) fails ValidatePassword: %v", i, length, err)
		}
		if !hasClasses(pw) {
			t.Fatalf("password %d (length %d) misses a class of characters", i, length)
		}
		digits, symbols := 0, 0
		for _, r := range pw {
			switch {
			case r >= '0' && r <= '9':
				digits++
			case strings.ContainsRune(apiclient.PasswordSymbols, r):
				symbols++
			}
		}
		wantD, wantS := passwordMix(length)
		if digits < wantD || symbols < wantS {
			t.Fatalf("password %d (length %d) has %d digits and %d symbols, want at least %d and %d", i, length, digits, symbols, wantD, wantS)
		}
		if seen[pw] {
			t.Fatalf("password %d repeats an earlier one: not random", i)
		}
		seen[pw] = true
	}
}

func TestHasClasses(t *testing.T) {
	t.Parallel()
	for pw, want := range map[string]bool{
		"aB3!xx": true, "ab3!xx": false, "AB3!XX": false, "aBc!xx": false, "aB3xxx": false, "aB3 xx": false,
	} {
		if got := hasClasses(pw); got != want {
			t.Errorf("hasClasses(%q) = %v, want %v", pw, got, want)
		}
	}
}

func TestPasswordMix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, want int }{{6, 1}, {12, 1}, {13, 2}, {16, 2}, {19, 2}, {20, 3}} {
		if d, s := passwordMix(tc.n); d != tc.want || s != tc.want {
			t.Errorf("passwordMix(%d) = %d, %d; want %d, %d", tc.n, d, s, tc.want, tc.want)
		}
		if d, s := passwordMix(tc.n); tc.n-d-s < 2 {
			t.Errorf("passwordMix(%d) leaves fewer than 2 letters", tc.n)
		}
	}
}

func BenchmarkGeneratePassword(b *testing.B) {
	c := newCore(b, &fakeAPI{}, Config{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.newPassword("alice", "example.com"); err != nil {
			b.Fatal(err)
		}
	}
}
