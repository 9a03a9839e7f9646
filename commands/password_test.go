package commands

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// seedSymbols are the symbols PDD's password rules allow besides Latin letters and
// digits, copied from PDD's documentation: ! @ # $ % ^ & * ( ) _ - + : ; , .
const seedSymbols = "!@#$%^&*()_-+:;,."

// breaksSeedRules returns PDD's password rule that pw breaks for the
// mailbox user@domain, or "". It is written here from PDD's documentation, apart from
// the code under test and from apiclient.CheckPassword.
func breaksSeedRules(user, domain, pw string) string {
	if n := utf8.RuneCountInString(pw); n < 6 || n > 20 {
		return fmt.Sprintf("%d characters, not 6 to 20", n)
	}
	for _, r := range pw {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		case strings.ContainsRune(seedSymbols, r):
		default:
			return fmt.Sprintf("the character %q is no Latin letter, digit or symbol of the password rules", r)
		}
	}
	if strings.EqualFold(pw, user) || strings.EqualFold(pw, user+"@"+domain) {
		return "it equals the user name"
	}
	return ""
}

func TestBreaksSeedRules(t *testing.T) {
	t.Parallel()
	for pw, broken := range map[string]bool{
		"aB3!xy": false, "!@#$%^&*()_-+:;,.": false, "abcdefghij0123456789": false,
		"aB3!x": true, "abcdefghij0123456789A": true, "aB3 xyz": true, "aB3=xyz": true, "aB3/xyz": true,
		"пароль1": true, "ALICE": true, "alice@EXAMPLE.com": true,
	} {
		if got := breaksSeedRules("alice", "example.com", pw) != ""; got != broken {
			t.Errorf("breaksSeedRules(%q) broken = %t, want %t", pw, got, broken)
		}
	}
}

// TestPasswordProperties generates 10,000 passwords over every length PDD
// allows and checks each against PDD's rules (as this test reads them) and against
// mailbot's own rules: every class of character, and one digit and one
// symbol up to 12 characters, two up to 19, three at 20.
func TestPasswordProperties(t *testing.T) {
	t.Parallel()
	const n = 10000
	seen := make(map[string]bool, n)
	cores := map[int]*Core{}
	for length := 6; length <= 20; length++ {
		cores[length] = newCore(t, &fakeAPI{}, Config{PasswordLength: length})
	}
	logins := []string{"alice", "a", "x1.y-2", strings.Repeat("z", 30)}
	for i := range n {
		length := 6 + i%15
		login := logins[i%len(logins)]
		pw, err := cores[length].newPassword(login, "example.com")
		if err != nil {
			t.Fatalf("newPassword(length %d) error: %v", length, err)
		}
		if len(pw) != length {
			t.Fatalf("password %d has length %d, want %d", i, len(pw), length)
		}
		if rule := breaksSeedRules(login, "example.com", pw); rule != "" {
			t.Fatalf("password %d (length %d) breaks the password rules: %s", i, length, rule)
		}
		var lower, upper, digits, symbols int
		for _, r := range pw {
			switch {
			case 'a' <= r && r <= 'z':
				lower++
			case 'A' <= r && r <= 'Z':
				upper++
			case '0' <= r && r <= '9':
				digits++
			default:
				symbols++
			}
		}
		want := 1
		switch {
		case length == 20:
			want = 3
		case length >= 13:
			want = 2
		}
		if lower == 0 || upper == 0 || digits < want || symbols < want {
			t.Fatalf("password %d (length %d) has %d lower, %d upper, %d digits, %d symbols; want letters of both cases and at least %d digits and %d symbols",
				i, length, lower, upper, digits, symbols, want, want)
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
