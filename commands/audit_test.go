package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// The Home tab and the shell's audit line describe an entry as mailbot
// audit does: its mailbox, an alias's target, an import's row counts, the
// provider's whole ID, the provider and the source.
func TestAuditLineDescribesEveryDetail(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	plain := func(id string) string { return id }
	for _, tc := range []struct {
		e    commands.AuditEntry
		want string
	}{
		{commands.AuditEntry{Time: at, Event: commands.EventRun, Actor: "UADMIN1", Action: commands.ActionAliasAdd, Provider: "google",
			Domain: "example.com", Login: "sales", To: "ada@example.com", Outcome: commands.OutcomeOK, Source: commands.SourceSlack},
			"2026-03-01 12:00:00  run  alias_add sales@example.com by UADMIN1: ok to=ada@example.com provider=google source=slack"},
		{commands.AuditEntry{Time: at, RequestID: "r1", Event: commands.EventRun, Actor: "UADMIN1", Deciders: []string{"UADMIN2"}, Action: commands.ActionImport,
			Provider: "pdd", Domain: "example.com, example.org", Outcome: commands.OutcomeError, Code: "created=3 existing=1 failed=2", Source: commands.SourceShell},
			"2026-03-01 12:00:00  run  import example.com, example.org by UADMIN1, decided by UADMIN2: error created=3 existing=1 failed=2 provider=pdd source=shell request=r1"},
		{commands.AuditEntry{Time: at, Event: commands.EventHandoverShown, Actor: "UADA", Action: commands.ActionAddMailbox, Provider: "google",
			Domain: "example.com", Login: "ada", HandedTo: "UADA", UID: "103456789012345678901", Outcome: commands.OutcomeOK, Source: commands.SourceSlack},
			"2026-03-01 12:00:00  handover_shown  add ada@example.com by UADA: ok provider=google handed_to=UADA uid=103456789012345678901 source=slack"},
	} {
		if got := tc.e.Line(plain); got != tc.want {
			t.Errorf("Line:\n got %s\nwant %s", got, tc.want)
		}
	}
	if got := strings.Join((commands.AuditEntry{Action: commands.ActionImport, Code: "created=1 existing=0 failed=0"}).Details(plain), " "); got != "created=1 existing=0 failed=0" {
		t.Errorf("an import's details = %q, want its row counts", got)
	}
}
