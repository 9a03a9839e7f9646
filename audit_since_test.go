package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestAuditSinceTakesDays: --since takes days (30d, 1d12h) besides Go
// durations, and a bad value is refused with a hint of what to write.
func TestAuditSinceTakesDays(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"30d": 720 * time.Hour, "1d12h": 36 * time.Hour, "90m": 90 * time.Minute, "168h": 168 * time.Hour} {
		o, err := parseArgs([]string{"audit", "--since", in}, io.Discard)
		if err != nil || o.since != want {
			t.Errorf("audit --since %s = %s, %v; want %s", in, o.since, err, want)
		}
	}
	for _, in := range []string{"30x", "d", "-3d", "0d", "1e400d"} {
		_, err := parseArgs([]string{"audit", "--since", in}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "30d") {
			t.Errorf("audit --since %s = %v, want a refusal with a hint such as 30d", in, err)
		}
	}
}
