// Package testkit holds small helpers that mailbot's tests share: a buffer
// that a program under test writes to while the test reads it, a fake
// clock the test sets, and the one way tests wait for a condition. It is
// for tests only; no product code imports it.
package testkit

import (
	"bytes"
	"regexp"
	"sync"
	"testing"
	"time"
)

// Buffer is an io.Writer whose contents can be read while others still
// write to it. It is safe for concurrent use; the zero value is an empty
// buffer ready to use.
type Buffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed by the next write; nil until asked for
}

// Write appends p to the buffer and wakes those waiting on Written. It
// never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// Written returns a channel that is closed by the next write.
func (b *Buffer) Written() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written = make(chan struct{})
	}
	return b.written
}

// WaitMatch waits until re matches the buffer's text after offset from,
// waking on every write, and returns the match's groups and the offset
// after it. It fails t after timeout.
func (b *Buffer) WaitMatch(t testing.TB, timeout time.Duration, re *regexp.Regexp, from int) ([]string, int) {
	t.Helper()
	var groups []string
	end := 0
	found := Until(timeout, b.Written, func() bool {
		groups, end = MatchAfter(b.String(), re, from)
		return groups != nil
	})
	if !found {
		t.Fatalf("the output never matched %s; after offset %d:\n%s", re, from, b.String()[min(from, len(b.String())):])
	}
	return groups, end
}

// MatchAfter matches re against s[from:], returning the groups and the
// offset in s after the match, or nil.
func MatchAfter(s string, re *regexp.Regexp, from int) ([]string, int) {
	if from > len(s) {
		return nil, 0
	}
	loc := re.FindStringSubmatchIndex(s[from:])
	if loc == nil {
		return nil, 0
	}
	groups := make([]string, len(loc)/2)
	for i := range groups {
		if loc[2*i] >= 0 {
			groups[i] = s[from+loc[2*i] : from+loc[2*i+1]]
		}
	}
	return groups, from + loc[1]
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Clock is a fake clock that moves only when the test moves it. It is safe
// for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads start until it is moved.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time. Its method value fits a func() time.Time
// option.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (backward when d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// PollEvery is how often [Until] checks a condition that nothing wakes it
// for.
const PollEvery = 10 * time.Millisecond

// Until waits until cond holds or timeout passes, and reports whether cond
// held. It checks cond at once, then whenever the channel that changed
// returns is closed (changed may be nil: nothing signals), and every
// PollEvery for conditions that nothing signals. changed is called before
// each check, so that a change between the check and the wait is never
// missed.
func Until(timeout time.Duration, changed func() <-chan struct{}, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(PollEvery)
	defer tick.Stop()
	for {
		var wake <-chan struct{}
		if changed != nil {
			wake = changed()
		}
		if cond() {
			return true
		}
		select {
		case <-wake:
		case <-tick.C:
		case <-deadline.C:
			return cond()
		}
	}
}

// Eventually waits until cond holds, as [Until] does with nothing to
// signal a change, and fails t, naming what it waited for, after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(timeout, nil, cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}
