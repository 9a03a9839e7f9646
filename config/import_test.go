package config

import (
	"strings"
	"testing"
)

func TestImportMaxRows(t *testing.T) {
	for _, tc := range []struct {
		value string
		bad   bool
	}{{"1", false}, {"10000", false}, {"0", true}, {"10001", true}, {"many", true}} {
		cfg, err := loadConfig(envFrom(map[string]string{"MAILBOT_IMPORT_MAX_ROWS": tc.value}), "shell")
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "MAILBOT_IMPORT_MAX_ROWS")):
			t.Errorf("%s: error %v, want one naming MAILBOT_IMPORT_MAX_ROWS", tc.value, err)
		case !tc.bad && err != nil:
			t.Errorf("%s: %v", tc.value, err)
		case !tc.bad && cfg.CoreConfig().ImportMaxRows != cfg.ImportMaxRows:
			t.Errorf("%s: the core gets %d", tc.value, cfg.CoreConfig().ImportMaxRows)
		}
	}
}
