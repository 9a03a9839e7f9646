package commands_test

import (
	"slices"
	"testing"

	"github.com/mailbot/mailbot/commands"
)

// On Yandex 360 an alias is a name at every domain of the organisation,
// so an admin of one of its domains only is a member for alias changes:
// the alias sales@example.com also takes sales@example.org's mail, a
// domain they are no admin of. Their alias add is a request, and nothing
// reaches the provider until an admin approves it; so is an offboarding
// that moves aliases to a successor.
func TestDomainAdminOrgWideAliasIsARequest(t *testing.T) {
	sim, api := y360World(t)
	const comAdmin = "UDOMCOM"
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests,
		DomainAdmins: []commands.DomainAdmins{{Pattern: "example.com", IDs: []string{comAdmin}}}}, nil)
	d, label := e.typed(comAdmin, "/mailbox alias add sales@example.com bob@example.com new team")
	if d.Step != commands.StepApproval || label != commands.LabelRequested {
		t.Errorf("an organisation-wide alias by an admin of example.com only: step %v, label %q; want an approval request", d.Step, label)
	}
	if got := sim.Aliases("bob@example.com"); len(got) != 0 {
		t.Errorf("bob's aliases %q before any admin approved", got)
	}
	if d, label := e.typed(comAdmin, "/mailbox alias remove sales@example.com"); d.Step != commands.StepApproval {
		t.Errorf("an organisation-wide alias removal by an admin of example.com only: step %v, label %q; want an approval request", d.Step, label)
	}
	if d, label := e.typed(comAdmin, "/mailbox offboard alice@example.com to bob@example.com left"); d.Step != commands.StepApproval {
		t.Errorf("an offboarding that moves organisation-wide aliases, by an admin of example.com only: step %v, label %q; want an approval request", d.Step, label)
	}
	if d, label := e.typed(comAdmin, "/mailbox offboard alice@example.com left"); d.Step != commands.StepRun {
		t.Errorf("an offboarding without a successor (no alias moves), by an admin of example.com: step %v, label %q; want it run", d.Step, label)
	}
	// An admin of every domain still adds it at once.
	if d, label := e.typed(admin1, "/mailbox alias add sales@example.com bob@example.com new team"); d.Step != commands.StepRun || label != commands.LabelOK {
		t.Errorf("an admin's alias add: step %v, label %q", d.Step, label)
	}
	if got := sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales"}) {
		t.Errorf("bob's aliases %q after the admin's add", got)
	}
}
