package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseApprovalMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]ApprovalMode{"": ApprovalsOff, "off": ApprovalsOff, "Requests": ApprovalsRequests, " ALL ": ApprovalsAll} {
		if got, err := ParseApprovalMode(in); err != nil || got != want {
			t.Errorf("ParseApprovalMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"on", "none", "admins"} {
		if got, err := ParseApprovalMode(in); err == nil {
			t.Errorf("ParseApprovalMode(%q) = %q, nil; want an error", in, got)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]Config{
		"mode":           {Approvals: "sometimes"},
		"short password": {PasswordLength: 5},
		"long password":  {PasswordLength: 21},
		"default domain": {DefaultDomain: "not a domain"},
		"domains":        {Domains: []string{"*"}},
	} {
		if _, err := New(&fakeAPI{}, cfg, nil); err == nil {
			t.Errorf("New(%s) = nil error, want one", name)
		}
	}
	if _, err := New(nil, Config{}, nil); err == nil {
		t.Error("New(nil API) = nil error, want one")
	}
}

// TestDecidePolicy checks who may do what in every approval mode.
func TestDecidePolicy(t *testing.T) {
	t.Parallel()
	const admin, user = "UADMIN1", "UUSER1"
	tests := []struct {
		mode ApprovalMode
		user string
		want Outcome
	}{
		{ApprovalsOff, admin, OutcomeRun},
		{ApprovalsOff, user, OutcomeReply},
		{ApprovalsOff, "", OutcomeReply},
		{ApprovalsRequests, admin, OutcomeRun},
		{ApprovalsRequests, user, OutcomeApproval},
		{ApprovalsAll, admin, OutcomeApproval},
		{ApprovalsAll, user, OutcomeApproval},
		{"", user, OutcomeReply}, // zero value is off
	}
	for _, tc := range tests {
		for _, cmd := range []Request{
			{Command: "/maildomain", Text: "register example.com"},
			{Command: "/mailbox", Text: "add alice@example.com"},
		} {
			api := &fakeAPI{}
			clk := newClock()
			c := newCore(t, api, Config{Approvals: tc.mode, Now: clk.Now})
			cmd.UserID, cmd.ChannelID = tc.user, "C1"
			d := c.Decide(cmd)
			if d.Outcome != tc.want {
				t.Errorf("mode %q, user %q, %s %s: outcome %v, want %v (reply %q)", tc.mode, tc.user, cmd.Command, cmd.Text, d.Outcome, tc.want, d.Reply.Text)
			}
			switch d.Outcome {
			case OutcomeReply:
				if !d.Reply.Error || !strings.Contains(d.Reply.Text, "Only mailbot admins") {
					t.Errorf("refusal reply = %+v, want an error explaining who may", d.Reply)
				}
			case OutcomeApproval:
				p := d.Pending
				if p == nil || len(p.ID) != 10 || p.Requester != tc.user || p.Channel != "C1" || p.Op != d.Op || !p.Created.Equal(clk.Now()) {
					t.Errorf("pending = %+v, want ID, requester %s, channel C1, op %+v, created %v", p, tc.user, d.Op, clk.Now())
				}
				if d.Reply.Error || !strings.Contains(d.Reply.Text, "needs") || !strings.Contains(d.Reply.PlainText(), p.ID) {
					t.Errorf("pending reply = %+v, want it to say it waits, with the id", d.Reply)
				}
			}
			if n := api.calls.Load(); n != 0 {
				t.Errorf("Decide called the API %d times", n)
			}
		}
	}
}

// TestDecide checks the operation decided and the answers that are not.
func TestDecide(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{
		Domains:       []string{"example.com", "*.example.org"},
		DefaultDomain: "Example.COM.",
	})
	tests := []struct {
		name    string
		req     Request
		outcome Outcome
		op      Operation
		text    string // a part of the reply's text, for OutcomeReply
		err     bool
	}{
		{name: "register", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.com why"},
			outcome: OutcomeRun, op: Operation{Action: ActionRegisterDomain, Domain: "example.com", Reason: "why"}},
		{name: "wildcard", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register a.example.org"},
			outcome: OutcomeRun, op: Operation{Action: ActionRegisterDomain, Domain: "a.example.org"}},
		{name: "default domain", req: Request{UserID: "UADMIN1", Command: "/mailbox", Text: "add Bob for sales"},
			outcome: OutcomeRun, op: Operation{Action: ActionAddMailbox, Domain: "example.com", Login: "bob", Reason: "for sales"}},
		{name: "not in allow-list", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.net"},
			outcome: OutcomeReply, text: "mailbot may not touch example.net", err: true},
		{name: "wildcard is not apex", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.org"},
			outcome: OutcomeReply, text: "example.com, *.example.org", err: true},
		{name: "mailbox not in allow-list", req: Request{UserID: "UADMIN1", Command: "/mailbox", Text: "add a@example.net"},
			outcome: OutcomeReply, text: "may not touch", err: true},
		{name: "validation before authorisation", req: Request{UserID: "UNOBODY", Command: "/maildomain", Text: "register bad_name.com"},
			outcome: OutcomeReply, text: "is not a valid domain name", err: true},
		{name: "help", req: Request{UserID: "UNOBODY", Command: "/mailbox", Text: "help"},
			outcome: OutcomeReply, text: "The default domain is example.com."},
		{name: "empty", req: Request{UserID: "UNOBODY", Command: "/maildomain"},
			outcome: OutcomeReply},
		{name: "unknown", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "remove example.com"},
			outcome: OutcomeReply, text: "no sub-command", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := c.Decide(tc.req)
			if d.Outcome != tc.outcome {
				t.Fatalf("Decide(%+v) outcome = %v, want %v; reply %+v", tc.req, d.Outcome, tc.outcome, d.Reply)
			}
			if tc.outcome == OutcomeRun {
				if diff := cmp.Diff(tc.op, d.Op); diff != "" {
					t.Errorf("Decide(%+v) op mismatch (-want +got):\n%s", tc.req, diff)
				}
				return
			}
			if !strings.Contains(d.Reply.Text, tc.text) || d.Reply.Error != tc.err {
				t.Errorf("Decide(%+v) reply = %+v, want text with %q and error %v", tc.req, d.Reply, tc.text, tc.err)
			}
			if d.Reply.Note == "" && d.Reply.Error {
				t.Errorf("Decide(%+v) refusal has no advice on what to type", tc.req)
			}
		})
	}
}

func TestDecideNoDefaultDomain(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{})
	d := c.Decide(Request{UserID: "UADMIN1", Command: "/mailbox", Text: "add bob"})
	if d.Outcome != OutcomeReply || !d.Reply.Error || !strings.Contains(d.Reply.Note, "/mailbox add bob@example.com") {
		t.Errorf("Decide(add bob) without a default domain = %+v, want a refusal showing the full form", d)
	}
}

func TestPendingReplyAllMode(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsAll, ApprovalTTL: 90 * time.Minute})
	d := c.Decide(Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.com"})
	if !strings.Contains(d.Reply.Text, "another admin") || !strings.Contains(d.Reply.Text, "90m") {
		t.Errorf("pending reply for an admin in mode all = %q, want it to ask another admin and give the TTL", d.Reply.Text)
	}
}
