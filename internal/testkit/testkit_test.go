package testkit_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/internal/testkit"
)

var _ io.Writer = (*testkit.Buffer)(nil)

// TestBufferConcurrentWrites: every write from many goroutines lands whole,
// and String can be read meanwhile (the race detector checks the rest).
func TestBufferConcurrentWrites(t *testing.T) {
	var b testkit.Buffer
	const writers, lines = 8, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				if n, err := fmt.Fprintf(&b, "w%d-%03d\n", w, i); err != nil || n != 7 {
					t.Errorf("Write = %d, %v; want 7, nil", n, err)
				}
				_ = b.String()
			}
		})
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	seen := make(map[string]bool)
	for _, l := range got {
		seen[l] = true
	}
	for w := range writers {
		for i := range lines {
			if l := fmt.Sprintf("w%d-%03d", w, i); !seen[l] {
				t.Errorf("line %q is missing or torn", l)
			}
		}
	}
}

func TestBufferZeroValue(t *testing.T) {
	var b testkit.Buffer
	if got := b.String(); got != "" {
		t.Errorf("empty buffer String() = %q, want \"\"", got)
	}
}

// TestClock: the clock stands still until advanced or set, also while
// goroutines advance it together.
func TestClock(t *testing.T) {
	start := time.Date(2030, time.January, 2, 3, 4, 5, 0, time.UTC)
	c := testkit.NewClock(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now() = %v, want %v", got, start)
	}
	c.Advance(90 * time.Minute)
	if got, want := c.Now(), start.Add(90*time.Minute); !got.Equal(want) {
		t.Errorf("after Advance(90m) Now() = %v, want %v", got, want)
	}
	c.Advance(-30 * time.Minute)
	if got, want := c.Now(), start.Add(time.Hour); !got.Equal(want) {
		t.Errorf("after Advance(-30m) Now() = %v, want %v", got, want)
	}
	later := time.Date(2031, time.May, 6, 7, 8, 9, 0, time.UTC)
	c.Set(later)
	if got := c.Now(); !got.Equal(later) {
		t.Errorf("after Set Now() = %v, want %v", got, later)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Second)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got, want := c.Now(), later.Add(1000*time.Second); !got.Equal(want) {
		t.Errorf("after 1000 concurrent Advance(1s) Now() = %v, want %v", got, want)
	}
}
