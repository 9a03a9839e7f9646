package testkit_test

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
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

// TestBufferWritten: the channel is closed by the next write, not before.
func TestBufferWritten(t *testing.T) {
	t.Parallel()
	var b testkit.Buffer
	ch := b.Written()
	select {
	case <-ch:
		t.Fatal("Written is closed before any write")
	default:
	}
	if _, err := b.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	default:
		t.Fatal("Written is still open after a write")
	}
	if next := b.Written(); next == ch {
		t.Error("Written after a write returns the closed channel again")
	}
}

// TestBufferWaitMatch: the match written by another goroutine is found,
// with its groups and the offset after it, and a later wait starts there.
func TestBufferWaitMatch(t *testing.T) {
	t.Parallel()
	var b testkit.Buffer
	re := regexp.MustCompile(`id=(\w+)\n`)
	go func() {
		for _, s := range []string{"start\n", "id=", "first\n", "noise\n", "id=second\n"} {
			_, _ = b.Write([]byte(s))
		}
	}()
	m, off := b.WaitMatch(t, 10*time.Second, re, 0)
	if m[1] != "first" || off != len("start\nid=first\n") {
		t.Fatalf("WaitMatch = %q, %d; want first, %d", m, off, len("start\nid=first\n"))
	}
	if m, _ := b.WaitMatch(t, 10*time.Second, re, off); m[1] != "second" {
		t.Errorf("WaitMatch after %d = %q, want second", off, m)
	}
}

// TestUntil: true once the condition holds (signalled or not), false when
// the time is up while it does not.
func TestUntil(t *testing.T) {
	t.Parallel()
	var b testkit.Buffer
	go func() { _, _ = b.Write([]byte("done")) }()
	if !testkit.Until(10*time.Second, b.Written, func() bool { return b.String() == "done" }) {
		t.Error("Until = false; the write happened")
	}
	var flag atomic.Bool
	go flag.Store(true)
	if !testkit.Until(10*time.Second, nil, flag.Load) {
		t.Error("Until(nil) = false; the flag was set")
	}
	if testkit.Until(30*time.Millisecond, nil, func() bool { return false }) {
		t.Error("Until = true for a condition that never holds")
	}
}
