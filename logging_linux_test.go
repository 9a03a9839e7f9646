package main

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/internal/testkit"
)

// TestShellLogOnTerminal: the shell on a terminal logs warnings only, in
// console format, unless MAILBOT_LOG_LEVEL says otherwise.
func TestShellLogOnTerminal(t *testing.T) {
	_, tty := testkit.OpenPty(t)
	for _, tc := range []struct {
		env      map[string]string
		wantInfo bool
	}{
		{nil, false},
		{map[string]string{"MAILBOT_LOG_LEVEL": "INFO"}, true},
	} {
		cfg, err := loadConfig(envFrom(tc.env), "shell")
		if err != nil {
			t.Fatal(err)
		}
		var log testkit.Buffer
		logger, err := subcommandLogger(cfg, "shell", envFrom(tc.env), tty, tty, &log)
		if err != nil {
			t.Fatal(err)
		}
		logger.Info("an operation")
		logger.Warn("a warning")
		logger.Error("an error")
		got := log.String()
		if strings.Contains(got, "an operation") != tc.wantInfo || strings.Contains(got, "a warning") != tc.wantInfo ||
			!strings.Contains(got, "ERROR\tan error") {
			t.Errorf("env %v: log %q; want info and warning lines: %v, and the error in console format", tc.env, got, tc.wantInfo)
		}
	}
}
