package commands_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// TestRequestNotPosted checks a request whose message cannot be posted
// for the admins: the requester is told, nothing runs, and the request
// does not stay pending where nobody can see it.
func TestRequestNotPosted(t *testing.T) {
	t.Parallel()
	api := &fakePDD{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	e.msgr.failPost = true
	d, label := e.typed(user1, "/mailbox add rita@example.com")
	if label != commands.LabelError {
		t.Errorf("label = %q, want error", label)
	}
	if r := e.msgr.lastTo(user1); !r.Error || !strings.Contains(r.Title, "could not be sent") || len(r.Buttons) != 0 {
		t.Errorf("the requester was told %+v, want that the request could not be sent, without a Cancel", r)
	}
	if rec := e.record(d.Pending.ID); rec.State == commands.StatePending {
		t.Errorf("record = %+v, want it ended", rec)
	}
	if h := e.core.Home(t.Context(), admin1); len(h.Pending) != 0 {
		t.Errorf("admin Home lists %d pending, want none", len(h.Pending))
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
}

// TestConcurrentLastApprovals has one approval of two, then 20 admins
// approve at once: the operation runs once.
func TestConcurrentLastApprovals(t *testing.T) {
	t.Parallel()
	admins := make([]string, 21)
	for i := range admins {
		admins[i] = fmt.Sprintf("UADMIN%02d", i)
	}
	api := &fakePDD{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalsRequired: 2, Admins: admins}, nil)
	p, ref := e.request(user1, "/maildomain register example.com")
	if label := e.click(commands.ButtonApprove, p, admins[0], ref); label != commands.LabelCounted {
		t.Fatalf("first approval = %q, want counted", label)
	}
	labels := make(chan string, len(admins)-1)
	for _, a := range admins[1:] {
		go func() { labels <- e.click(commands.ButtonApprove, p, a, ref) }()
	}
	got := map[string]int{}
	for range len(admins) - 1 {
		got[<-labels]++
	}
	if diff := cmp.Diff(map[string]int{commands.LabelOK: 1, commands.LabelDecided: len(admins) - 2}, got); diff != "" {
		t.Errorf("labels mismatch (-want +got):\n%s", diff)
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
	if rec := e.record(p.ID); rec.State != commands.StateDone || len(rec.Approvers) != 2 || rec.Approvers[0] != admins[0] {
		t.Errorf("record = %+v, want done with the first approver and one other", rec)
	}
}

// TestUndeliveredUncertain checks the ops notice of an uncertain add
// whose result cannot be delivered: the mailbox may exist, so the notice
// must not say that the operation did not succeed.
//
// BUG (flow.go undeliveredAdvice): it has no case for Notice.Uncertain
// and says "the operation did not succeed (transport)" although the
// mailbox may exist.
func TestUndeliveredUncertain(t *testing.T) {
	t.Parallel()
	api := &fakePDD{add: func(context.Context, string, string, string) (*apiclient.Mailbox, error) {
		return nil, &apiclient.TransportError{Op: apiclient.OpAddMailbox, Sent: true, Err: timeout{}}
	}}
	e := newEnv(t, api, commands.Config{}, nil)
	e.msgr.failDeliver = map[string]bool{admin1: true}
	e.typed(admin1, "/mailbox add sam@example.com")
	var undelivered string
	for _, n := range e.msgr.of("notify") {
		if strings.Contains(n.Text, "could not be delivered") {
			undelivered = n.Text
		}
	}
	if !strings.Contains(undelivered, "sam@example.com") || !strings.Contains(undelivered, "may exist") || strings.Contains(undelivered, "did not succeed") {
		t.Errorf("undelivered notice = %q, want the target and that the mailbox may exist", undelivered)
	}
}

// TestForgedClick checks that a button value this mailbot did not sign,
// or signed for something else, decides nothing, and that an unknown
// button or a click without a user is refused.
func TestForgedClick(t *testing.T) {
	t.Parallel()
	api := &fakePDD{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox add tom@example.com")
	value := e.core.EncodePending(p)
	stranger := newEnv(t, &fakePDD{}, commands.Config{SigningKey: []byte("another key")}, nil)
	e.typed(admin1, "/maildomain register example.org")
	check := e.msgr.lastTo(admin1).Buttons[0].Value
	for name, v := range map[string]string{
		"flipped signature": value[:len(value)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(value, "AA")],
		"another key":       stranger.core.EncodePending(p),
		"check value":       check,
		"empty":             "",
	} {
		if label := e.clickValue(commands.ButtonApprove, v, admin1, ref); label != commands.LabelInvalid {
			t.Errorf("approve with %s = %q, want invalid", name, label)
		}
	}
	if label := e.clickValue("approve_all", value, admin1, ref); label != commands.LabelRefused {
		t.Errorf("an unknown button = %q, want refused", label)
	}
	if label := e.click(commands.ButtonApprove, p, "", ref); label != commands.LabelRefused {
		t.Errorf("a click without a user = %q, want refused", label)
	}
	if n := api.calls.Load(); n != 1 { // the register above
		t.Errorf("API calls = %d, want only the direct register", n)
	}
	if rec := e.record(p.ID); rec.State != commands.StatePending || len(rec.Approvers) != 0 {
		t.Errorf("record = %+v, want still pending without approvals", rec)
	}
}
