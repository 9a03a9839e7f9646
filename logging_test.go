package main

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/config"
)

// TestShellLogSettings: on a terminal the shell logs errors only, in
// console format, unless the variables were set.
func TestShellLogSettings(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{LogLevel: "debug", LogFormat: "json"}
	for _, tc := range []struct {
		interactive         bool
		set                 []string
		wantLevel, wantForm string
	}{
		{false, nil, "debug", "json"},
		{true, nil, "error", "console"},
		{true, []string{"MAILBOT_LOG_LEVEL"}, "debug", "console"},
		{true, []string{"MAILBOT_LOG_FORMAT"}, "error", "json"},
		{true, []string{"MAILBOT_LOG_LEVEL", "MAILBOT_LOG_FORMAT"}, "debug", "json"},
	} {
		isSet := func(name string) bool { return strings.Contains(strings.Join(tc.set, " "), name) }
		level, format := shellLogSettings(cfg, tc.interactive, isSet)
		if level != tc.wantLevel || format != tc.wantForm {
			t.Errorf("interactive %v, set %q: %s %s, want %s %s", tc.interactive, tc.set, level, format, tc.wantLevel, tc.wantForm)
		}
	}
}
