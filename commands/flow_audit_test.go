package commands_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mailbot/mailbot/commands"
)

// timeout is a network error that timed out.
type timeout struct{}

func (timeout) Error() string { return "i/o timeout" }
func (timeout) Timeout() bool { return true }

// TestAuditTrail runs direct operations with every outcome and takes
// requests through every decision, then compares the whole trail: runs
// with their outcome, status, uid or code; approvals, the approval that
// runs, denials, cancellations and expiries; and no secret anywhere.
func TestAuditTrail(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{add: func(_ context.Context, domain, login, _ string) (*apiclient.Mailbox, error) {
		switch login {
		case "taken":
			return nil, &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpAdd, Class: apiclient.ClassRefused, Reason: apiclient.ReasonExists, Code: "occupied", Message: "the mailbox already exists", Attempts: 1}
		case "lost":
			return nil, &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpAdd, Class: apiclient.ClassUncertain, Sent: true, Attempts: 1, Err: timeout{}}
		}
		return &apiclient.Mailbox{Address: login + "@" + domain, UID: "42"}, nil
	}}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalsRequired: 2, ApprovalTTL: time.Hour, Source: commands.SourceShell}, nil)
	at := func(minutes int) time.Time { return start.Add(time.Duration(minutes) * time.Minute) }
	step := func() { e.clk.Advance(time.Minute) }
	step()
	e.typed(admin1, "/maildomain register example.com launch") // 1
	step()
	e.typed(admin1, "/mailbox add taken@example.com") // 2
	step()
	e.typed(admin1, "/mailbox add lost@example.com") // 3
	step()
	p, pref := e.request(user1, "/mailbox add mia@example.com new hire") // 4
	step()
	e.click(commands.ButtonApprove, p, admin2, pref) // 5
	step()
	e.click(commands.ButtonApprove, p, admin3, pref) // 6
	step()
	q, qref := e.request(user1, "/mailbox add ned@example.com") // 7
	step()
	e.click(commands.ButtonDeny, q, admin1, qref) // 8
	step()
	r, _ := e.request(user2, "/maildomain register example.org") // 9
	step()
	e.click(commands.ButtonCancel, r, user2, commands.MessageRef{}) // 10
	step()
	s, _ := e.request(user2, "/maildomain register example.net") // 11
	e.clk.Advance(time.Hour)
	e.core.Sweep(t.Context()) // 71

	want := []commands.AuditEntry{
		{Time: at(1), Event: commands.EventRun, Actor: admin1, Action: commands.ActionRegisterDomain, Provider: "pdd", Domain: "example.com", Reason: "launch",
			Outcome: commands.OutcomeOK, Status: "domain-activate", Stage: "owner-check"},
		{Time: at(2), Event: commands.EventRun, Actor: admin1, Action: commands.ActionAddMailbox, Provider: "pdd", Domain: "example.com", Login: "taken",
			Outcome: commands.OutcomeError, Code: "occupied"},
		{Time: at(3), Event: commands.EventRun, Actor: admin1, Action: commands.ActionAddMailbox, Provider: "pdd", Domain: "example.com", Login: "lost",
			Outcome: commands.OutcomeUnknown, Code: commands.CodeTransport},
		{Time: at(5), RequestID: p.ID, Event: commands.EventApproval, Actor: user1, Deciders: []string{admin2},
			Action: commands.ActionAddMailbox, Domain: "example.com", Login: "mia", Reason: "new hire"},
		{Time: at(6), RequestID: p.ID, Event: commands.EventApproved, Actor: user1, Deciders: []string{admin2, admin3},
			Action: commands.ActionAddMailbox, Domain: "example.com", Login: "mia", Reason: "new hire"},
		{Time: at(6), RequestID: p.ID, Event: commands.EventRun, Actor: user1, Deciders: []string{admin2, admin3},
			Action: commands.ActionAddMailbox, Provider: "pdd", Domain: "example.com", Login: "mia", Reason: "new hire", Outcome: commands.OutcomeOK, UID: "42"},
		{Time: at(8), RequestID: q.ID, Event: commands.EventDenied, Actor: user1, Deciders: []string{admin1},
			Action: commands.ActionAddMailbox, Domain: "example.com", Login: "ned"},
		{Time: at(10), RequestID: r.ID, Event: commands.EventCancelled, Actor: user2, Deciders: []string{user2},
			Action: commands.ActionRegisterDomain, Domain: "example.org"},
		{Time: at(71), RequestID: s.ID, Event: commands.EventExpired, Actor: user2,
			Action: commands.ActionRegisterDomain, Domain: "example.net"},
	}
	for i := range want { // every entry, decisions too, names its provider and source
		want[i].Provider, want[i].Source = "pdd", commands.SourceShell
	}
	if diff := cmp.Diff(want, e.audit(), cmpopts.IgnoreFields(commands.AuditEntry{}, "ID"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("audit trail mismatch (-want +got):\n%s", diff)
	}
	e.noSecretsFor([]string{admin1, user1, user2}, append(api.passwords(), secretContent, secretName)...)
}

// TestAuditNotRecordedNotRun checks that with a database an operation
// whose audit entry cannot be written is not run, while the completion of
// an entry failing after the run does not hide the result.
func TestAuditNotRecordedNotRun(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e, ds := newDownEnv(t, api, commands.Config{}, true)
	ds.set(true, "Complete")
	if _, label := e.typed(admin1, "/mailbox add olga@example.com"); label != commands.LabelOK || api.calls.Load() != 1 {
		t.Errorf("add with Complete failing = %q, %d calls; want ok, 1", label, api.calls.Load())
	}
	if r := e.msgr.lastTo(admin1); field(t, r, "Password") != api.passwords()[0] {
		t.Errorf("the result was not delivered with its password: %+v", r)
	}
	entries := e.audit()
	if len(entries) != 1 || entries[0].Outcome != "" {
		t.Errorf("audit = %+v, want the begun entry, not completed", entries)
	}
	if !errors.Is(errDown, commands.ErrStoreUnavailable) {
		t.Fatal("errDown does not wrap ErrStoreUnavailable")
	}
}
