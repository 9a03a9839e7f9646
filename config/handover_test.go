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

// TestConfigDurationsZeroOrNegative: every duration variable where zero or
// a negative value makes no sense stops start-up, naming it; zero where it
// means something (no reminders, audit kept for ever) is accepted.
func TestConfigDurationsZeroOrNegative(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"MAILBOT_HANDOVER_TTL", "MAILBOT_APPROVAL_TTL", "MAILBOT_PROVIDER_TIMEOUT", "PDD_TIMEOUT", "MAILBOT_SHUTDOWN_TIMEOUT", "MAILBOT_AUDIT_RETENTION", "MAILBOT_APPROVAL_REMIND"} {
		for _, value := range []string{"0", "0s", "-1s"} {
			if value != "-1s" && (name == "MAILBOT_AUDIT_RETENTION" || name == "MAILBOT_APPROVAL_REMIND") {
				if _, err := loadConfig(envFrom(with(serveBase(), name, value)), "serve"); err != nil {
					t.Errorf("%s=%s: %v; want accepted", name, value, err)
				}
				continue
			}
			_, err := loadConfig(envFrom(with(serveBase(), name, value)), "serve")
			if err == nil || !strings.Contains(err.Error(), name+":") {
				t.Errorf("%s=%s: %v; want start-up stopped, naming %s", name, value, err, name)
			}
		}
	}
}
