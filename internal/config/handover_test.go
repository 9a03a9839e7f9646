package config

import (
	"strings"
	"testing"
)

// TestConfigHandoverVariables: a bad hand-over setting stops start-up
// with the variable named; good ones reach the core.
func TestConfigHandoverVariables(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(envFrom(map[string]string{"MAILBOT_SELF_SERVICE": "sometimes", "MAILBOT_HANDOVER_TTL": "-1h"}), "shell")
	if err == nil || !strings.Contains(err.Error(), "MAILBOT_SELF_SERVICE") || !strings.Contains(err.Error(), "MAILBOT_HANDOVER_TTL") {
		t.Errorf("bad hand-over settings: %v; want both variables named", err)
	}
	cfg, err := loadConfig(envFrom(map[string]string{"MAILBOT_SELF_SERVICE": "Reset", "MAILBOT_HANDOVER_TTL": "2h"}), "shell")
	if err != nil {
		t.Fatal(err)
	}
	if cc := cfg.CoreConfig(); cc.HandoverTTL.Hours() != 2 {
		t.Errorf("core's hand-over TTL = %s, want 2h", cc.HandoverTTL)
	}
	if cc, errs := cfg.CoreConfig().Check(); len(errs) != 0 || cc.SelfService != "reset" {
		t.Errorf("core's self-service = %q, %v; want reset", cc.SelfService, errs)
	}
}
