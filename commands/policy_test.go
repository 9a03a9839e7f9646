package commands

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/internal/testkit"
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
		"mode":               {Approvals: "sometimes"},
		"short password":     {PasswordLength: 5},
		"long password":      {PasswordLength: 21},
		"default domain":     {DefaultDomain: "not a domain"},
		"domains":            {Domains: []string{"*"}},
		"negative approvals": {ApprovalsRequired: -1},
		"too many approvals": {ApprovalsRequired: MaxApprovalsRequired + 1},
	} {
		if _, err := New(&fakeAPI{}, noStore{}, noMessenger{}, cfg, nil); err == nil {
			t.Errorf("New(%s) = nil error, want one", name)
		}
	}
	if _, err := New(&fakeAPI{}, noStore{}, noMessenger{}, Config{ApprovalsRequired: MaxApprovalsRequired}, nil); err != nil {
		t.Errorf("New(%d approvals required) = %v, want no error", MaxApprovalsRequired, err)
	}
	if _, err := New(nil, noStore{}, noMessenger{}, Config{}, nil); err == nil {
		t.Error("New(nil API) = nil error, want one")
	}
	if _, err := New(&fakeAPI{}, nil, noMessenger{}, Config{}, nil); err == nil {
		t.Error("New(nil store) = nil error, want one")
	}
	if _, err := New(&fakeAPI{}, noStore{}, nil, Config{}, nil); err == nil {
		t.Error("New(nil messenger) = nil error, want one")
	}
}

// TestDecidePolicy checks who may do what in every approval mode. The
// core's store and messenger panic if used: Decide is pure.
func TestDecidePolicy(t *testing.T) {
	t.Parallel()
	const admin, user = "UADMIN1", "UUSER1"
	tests := []struct {
		mode ApprovalMode
		user string
		want Step
	}{
		{ApprovalsOff, admin, StepRun},
		{ApprovalsOff, user, StepReply},
		{ApprovalsOff, "", StepReply},
		{ApprovalsRequests, admin, StepRun},
		{ApprovalsRequests, user, StepApproval},
		{ApprovalsAll, admin, StepApproval},
		{ApprovalsAll, user, StepApproval},
		{"", user, StepReply}, // zero value is off
	}
	for _, tc := range tests {
		for _, cmd := range []Request{
			{Command: "/maildomain", Text: "register example.com"},
			{Command: "/mailbox", Text: "add alice@example.com"},
		} {
			api := &fakeAPI{}
			clk := testkit.NewClock(clockStart)
			c := newCore(t, api, Config{Approvals: tc.mode, Now: clk.Now})
			cmd.UserID, cmd.ChannelID = tc.user, "C1"
			d := c.Decide(cmd)
			if d.Step != tc.want {
				t.Errorf("mode %q, user %q, %s %s: outcome %v, want %v (reply %q)", tc.mode, tc.user, cmd.Command, cmd.Text, d.Step, tc.want, d.Reply.Text)
			}
			switch d.Step {
			case StepReply:
				if !d.Reply.Error || !strings.Contains(d.Reply.Text, "Only mailbot admins") {
					t.Errorf("refusal reply = %+v, want an error explaining who may", d.Reply)
				}
			case StepApproval:
				p := d.Pending
				if p == nil || len(p.ID) != 10 || p.Requester != tc.user || p.Channel != "C1" || p.Op != d.Op ||
					!p.Created.Equal(clk.Now()) || !p.Expires.Equal(clk.Now().Add(DefaultApprovalTTL)) {
					t.Errorf("pending = %+v, want ID, requester %s, channel C1, op %+v, created %v, expiring a TTL later", p, tc.user, d.Op, clk.Now())
				}
				r := c.requests.pendingReply(*p)
				if r.Error || !strings.Contains(r.Text, "needs") || !strings.Contains(r.PlainText(), p.ID) ||
					len(r.Buttons) != 1 || r.Buttons[0].Kind != ButtonCancel {
					t.Errorf("pending reply = %+v, want it to say it waits, with the id and a Cancel button", r)
				}
				if got, err := c.DecodePending(r.Buttons[0].Value); err != nil || got != *p {
					t.Errorf("Cancel button value decodes to %+v, %v; want the request %+v", got, err, *p)
				}
			case StepRun:
				if d.Pending != nil || d.Form != nil {
					t.Errorf("run decision = %+v, want no pending request and no form", d)
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
		outcome Step
		op      Operation
		text    string // a part of the reply's text, for StepReply
		err     bool
	}{
		{name: "register", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.com why"},
			outcome: StepRun, op: Operation{Action: ActionRegisterDomain, Domain: "example.com", Reason: "why"}},
		{name: "wildcard", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register a.example.org"},
			outcome: StepRun, op: Operation{Action: ActionRegisterDomain, Domain: "a.example.org"}},
		{name: "default domain", req: Request{UserID: "UADMIN1", Command: "/mailbox", Text: "add Bob for sales"},
			outcome: StepRun, op: Operation{Action: ActionAddMailbox, Domain: "example.com", Login: "bob", Reason: "for sales"}},
		{name: "not in allow-list", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.net"},
			outcome: StepReply, text: "mailbot may not touch example.net", err: true},
		{name: "wildcard is not apex", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.org"},
			outcome: StepReply, text: "example.com, *.example.org", err: true},
		{name: "mailbox not in allow-list", req: Request{UserID: "UADMIN1", Command: "/mailbox", Text: "add a@example.net"},
			outcome: StepReply, text: "may not touch", err: true},
		{name: "validation before authorisation", req: Request{UserID: "UNOBODY", Command: "/maildomain", Text: "register bad_name.com"},
			outcome: StepReply, text: "is not a valid domain name", err: true},
		{name: "help", req: Request{UserID: "UNOBODY", Command: "/mailbox", Text: "help"},
			outcome: StepReply, text: "The default domain is example.com."},
		{name: "empty by a non-admin in mode off", req: Request{UserID: "UNOBODY", Command: "/maildomain"},
			outcome: StepReply, text: "Only mailbot admins", err: true},
		{name: "check needs no admin", req: Request{UserID: "UNOBODY", Command: "/maildomain", Text: "check Example.NET."},
			outcome: StepCheck, op: Operation{Domain: "example.net"}},
		{name: "check one domain", req: Request{UserID: "UNOBODY", Command: "/maildomain", Text: "check a.com b.com"},
			outcome: StepReply, text: "exactly one domain", err: true},
		{name: "unknown", req: Request{UserID: "UADMIN1", Command: "/maildomain", Text: "remove example.com"},
			outcome: StepReply, text: "no sub-command", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := c.Decide(tc.req)
			if d.Step != tc.outcome {
				t.Fatalf("Decide(%+v) outcome = %v, want %v; reply %+v", tc.req, d.Step, tc.outcome, d.Reply)
			}
			if tc.outcome == StepRun || tc.outcome == StepCheck {
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
	if d.Step != StepReply || !d.Reply.Error || !strings.Contains(d.Reply.Note, "/mailbox add bob@example.com") {
		t.Errorf("Decide(add bob) without a default domain = %+v, want a refusal showing the full form", d)
	}
}

func TestPendingReplyAllMode(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(clockStart)
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsAll, ApprovalTTL: 90 * time.Minute, Now: clk.Now})
	d := c.Decide(Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register example.com"})
	r := c.requests.pendingReply(*d.Pending)
	if !strings.Contains(r.Text, "another admin") || !strings.Contains(r.Text, "2026-03-01 13:30 UTC") {
		t.Errorf("pending reply for an admin in mode all = %q, want it to ask another admin and give the expiry", r.Text)
	}
	two := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsAll, ApprovalsRequired: 2, Now: clk.Now})
	r = two.requests.pendingReply(*two.Decide(Request{UserID: "UUSER1", Command: "/maildomain", Text: "register example.com"}).Pending)
	if !strings.Contains(r.Text, "the approval of 2 admins") {
		t.Errorf("pending reply with 2 approvals required = %q, want it to say 2 admins must approve", r.Text)
	}
}

// TestIsAdminGroups checks admins listed by ID and by user group: a
// member of a listed group is an admin by the transport's last reading of
// it, and IsAdmin never answers for the empty user.
func TestIsAdminGroups(t *testing.T) {
	t.Parallel()
	members := map[string]bool{"UMEMBER": true}
	var asked []string
	c := newCore(t, &fakeAPI{}, Config{Admins: []string{"UADMIN1", "SADMINS"}, InGroup: func(g, u string) bool {
		asked = append(asked, g)
		return g == "SADMINS" && members[u]
	}})
	for user, want := range map[string]bool{"UADMIN1": true, "UMEMBER": true, "UOTHER": false, "": false} {
		if got := c.IsAdmin(user); got != want {
			t.Errorf("IsAdmin(%q) = %v, want %v", user, got, want)
		}
	}
	for _, g := range asked {
		if g != "SADMINS" {
			t.Errorf("InGroup asked about %q, which is not a group of the admins", g)
		}
	}
	if diff := cmp.Diff([]string{"SADMINS"}, c.AdminGroups()); diff != "" {
		t.Errorf("AdminGroups mismatch (-want +got):\n%s", diff)
	}
}

// TestConfigCheck: every refused setting at once, named, and the accepted
// ones normalised.
func TestConfigCheck(t *testing.T) {
	t.Parallel()
	bad := Config{Approvals: "sometimes", ApprovalTTL: -time.Hour, ApprovalsRequired: MaxApprovalsRequired + 1,
		PasswordLength: 5, Domains: []string{"exa mple.com"}, DefaultDomain: "-bad-.com"}
	_, errs := bad.Check()
	var got []Setting
	for _, e := range errs {
		got = append(got, e.Setting)
	}
	want := []Setting{SettingApprovals, SettingApprovalTTL, SettingApprovalsRequired, SettingPasswordLength, SettingDomains, SettingHandoverTTL, SettingDefaultDomain}
	if !slices.Equal(got, want) {
		t.Errorf("Check() refuses %v, want %v", got, want)
	}
	good := Config{Approvals: "Requests", ApprovalTTL: time.Hour, HandoverTTL: time.Hour, ApprovalsRequired: 2, PasswordLength: 12, DefaultDomain: "Пример.РФ."}
	cfg, errs := good.Check()
	if len(errs) != 0 || cfg.Approvals != ApprovalsRequests || cfg.DefaultDomain != "xn--e1afmkfd.xn--p1ai" {
		t.Errorf("Check() = %q, %q, %v; want requests, xn--e1afmkfd.xn--p1ai, no errors", cfg.Approvals, cfg.DefaultDomain, errs)
	}
	if _, errs := (Config{}).Check(); len(errs) == 0 {
		t.Error("Check() of the zero Config refuses nothing; its zero TTL, approvals and length have no value yet")
	}
}

func TestIsGroupID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{"S012AB3CD": true, "SADMINS": true, "U012AB3CD": false, "S": false, "Sx1": false, "s012AB3CD": false, "": false} {
		if got := IsGroupID(id); got != want {
			t.Errorf("IsGroupID(%q) = %v, want %v", id, got, want)
		}
	}
}
