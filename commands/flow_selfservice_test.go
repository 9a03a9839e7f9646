package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

func selfServiceEnv(t *testing.T) (*env, *resetAPI) {
	t.Helper()
	return handoverEnv(t, commands.Config{SelfService: commands.SelfServiceReset, Domains: []string{"example.com"}})
}

func TestSelfServiceResetOwnMailbox(t *testing.T) {
	t.Parallel()
	e, api := selfServiceEnv(t)
	d, label := e.typed(newHire, "/mailbox reset")
	if d.Step != commands.StepSelfService || label != commands.LabelOK || len(api.sets()) != 1 {
		t.Fatalf("self-service reset: verdict %v, label %q, %d resets", d.Step, label, len(api.sets()))
	}
	offer := offered(t, e)
	if offer.View.Handover.Owner != newHire || offer.View.Handover.Target() != "ada@example.com" || !offer.View.Handover.SelfService {
		t.Fatalf("offer %+v: want UADA's own ada@example.com, self-service", offer.View.Handover)
	}
	if n, ok := e.msgr.last("notify"); !ok || !strings.Contains(n.Text, "Self-service") {
		t.Errorf("ops notice %q: want it marked self-service", n.Text)
	}
	if got := e.show(offer, newHire); got != commands.LabelShown {
		t.Fatalf("click: %q", got)
	}
	entries := e.audit()
	if len(entries) != 2 || entries[0].Event != commands.EventSelfService || entries[0].Actor != newHire {
		t.Errorf("audit %+v: want a self-service entry by UADA, then the shown hand-over", entries)
	}
	e.noSecretsFor([]string{newHire}, api.sets()...)
	// Typed with their own address, in another letter case: the same.
	e.clk.Advance(commands.SelfServiceEvery)
	if d, label := e.typed(newHire, "/mailbox reset ADA@example.com"); d.Step != commands.StepSelfService || label != commands.LabelOK {
		t.Errorf("reset of their own typed address: %v, %q", d.Step, label)
	}
}

func TestSelfServiceOncePerTenMinutes(t *testing.T) {
	t.Parallel()
	e, api := selfServiceEnv(t)
	e.typed(newHire, "/mailbox reset")
	e.clk.Advance(commands.SelfServiceEvery - time.Second)
	if _, label := e.typed(newHire, "/mailbox reset"); label != commands.LabelRefused || len(api.sets()) != 1 {
		t.Fatalf("second reset within 10 minutes: %q, %d resets; want refused, 1", label, len(api.sets()))
	}
	if r := e.msgr.lastTo(newHire); !strings.Contains(r.Text, "12:10") {
		t.Errorf("refusal %q: want when the next may run", r.Text)
	}
	e.clk.Advance(time.Second)
	if _, label := e.typed(newHire, "/mailbox reset"); label != commands.LabelOK || len(api.sets()) != 2 {
		t.Fatalf("reset after 10 minutes: %q, %d resets", label, len(api.sets()))
	}
}

func TestSelfServiceRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		user, line, want string
	}{
		{user1, "/mailbox reset", "not confirmed"},      // e-mail not confirmed
		{user2, "/mailbox reset", "Guests"},             // a guest
		{visitor, "/mailbox reset", "full members"},     // another workspace
		{ghost, "/mailbox reset", "not confirmed"},      // no e-mail
		{newHire, "/mailbox reset bob@example.com", ""}, // someone else's: not allowed, as before
		{user1, "/mailbox reset user1@example.com", ""}, // own but unconfirmed: what it was
	}
	for _, tc := range tests {
		e, api := selfServiceEnv(t)
		_, label := e.typed(tc.user, tc.line)
		r := e.msgr.lastTo(tc.user)
		if label != commands.LabelRefused || api.calls.Load()+int64(len(api.sets())) != 0 || !r.Error {
			t.Errorf("%s typed %q: label %q, reply %q; want a refusal, no provider call", tc.user, tc.line, label, r.Title)
		}
		if tc.want != "" && !strings.Contains(r.Text, tc.want) {
			t.Errorf("%s typed %q: %q; want it to say %q", tc.user, tc.line, r.Text, tc.want)
		}
	}
}

func TestSelfServiceDomainNotAllowed(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{SelfService: commands.SelfServiceReset, Domains: []string{"example.org"}})
	if _, label := e.typed(newHire, "/mailbox reset"); label != commands.LabelRefused || len(api.sets()) != 0 {
		t.Errorf("self-service outside the allow-list: %q, %d resets", label, len(api.sets()))
	}
}

func TestSelfServiceSomeoneElsesMailboxIsARequest(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{SelfService: commands.SelfServiceReset, Approvals: commands.ApprovalsRequests})
	if _, label := e.typed(newHire, "/mailbox reset bob@example.com lost it"); label != commands.LabelRequested || len(api.sets()) != 0 {
		t.Errorf("reset of someone else's mailbox with self-service on: %q; want an approval request", label)
	}
	if d, label := e.typed(admin1, "/mailbox reset ada@example.com"); d.Step != commands.StepRun || label != commands.LabelOK {
		t.Errorf("an admin's reset: %v, %q; want what it was, a run", d.Step, label)
	}
}

func TestSelfServiceOffOpensTheForm(t *testing.T) {
	t.Parallel()
	e, _ := handoverEnv(t, commands.Config{Approvals: commands.ApprovalsRequests})
	if d, _ := e.typed(newHire, "/mailbox reset"); d.Step != commands.StepForm {
		t.Errorf("/mailbox reset with self-service off: %v, want the form", d.Step)
	}
}
