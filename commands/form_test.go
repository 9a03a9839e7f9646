package commands

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mailbot/mailbot/internal/testkit"
)

// TestDecideBare checks the form a bare command opens: the fields, the
// domains offered as a choice or typed, the reason required exactly when
// the operation will need approval; and a person who may not run the
// operation gets a refusal, not a form. The core is pure (its store and
// messenger panic if used).
func TestDecideBare(t *testing.T) {
	t.Parallel()
	exact := []string{"Example.com", "example.org."}
	wild := []string{"example.com", "*.example.org"}
	tests := []struct {
		name    string
		cfg     Config
		user    string
		cmd     string
		text    string
		want    *Form // Metadata ignored
		refused bool
	}{
		{"mailbox, exact domains, admin", Config{Domains: exact, DefaultDomain: "example.org", Approvals: ApprovalsRequests}, "UADMIN1", CmdMailbox, "",
			&Form{Action: ActionAddMailbox, Command: CmdMailbox, Domains: []string{"example.com", "example.org"}, DefaultDomain: "example.org", OffersFor: true}, false},
		{"mailbox add, exact domains, user", Config{Domains: exact, DefaultDomain: "example.org", Approvals: ApprovalsRequests}, "UUSER1", CmdMailbox, "  ADD ",
			&Form{Action: ActionAddMailbox, Command: CmdMailbox, Domains: []string{"example.com", "example.org"}, DefaultDomain: "example.org", ReasonRequired: true, OffersFor: true}, false},
		{"mailbox, wildcard allow-list", Config{Domains: wild, DefaultDomain: "example.com", Approvals: ApprovalsRequests}, "UADMIN1", CmdMailbox, "add",
			&Form{Action: ActionAddMailbox, Command: CmdMailbox, DefaultDomain: "example.com", OffersFor: true}, false},
		{"mailbox, no allow-list", Config{}, "UADMIN1", CmdMailbox, "",
			&Form{Action: ActionAddMailbox, Command: CmdMailbox, OffersFor: true}, false},
		{"register, exact domains", Config{Domains: exact, DefaultDomain: "example.org"}, "UADMIN1", CmdDomain, "register",
			&Form{Action: ActionRegisterDomain, Command: CmdDomain, Domains: []string{"example.com", "example.org"}}, false},
		{"register, mode all, admin", Config{Approvals: ApprovalsAll}, "UADMIN1", CmdDomain, "",
			&Form{Action: ActionRegisterDomain, Command: CmdDomain, ReasonRequired: true}, false},
		{"mode off, non-admin", Config{Domains: exact}, "UUSER1", CmdMailbox, "", nil, true},
		{"mode off, non-admin, register", Config{}, "UUSER1", CmdDomain, "register", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCore(t, &fakeAPI{}, tc.cfg)
			d := c.Decide(Request{UserID: tc.user, ChannelID: "C1", Command: tc.cmd, Text: tc.text})
			if tc.refused {
				if d.Step != StepReply || d.Form != nil || !d.Reply.Error || !strings.Contains(d.Reply.Text, "Only mailbot admins") {
					t.Errorf("Decide = %+v, want a refusal without a form", d)
				}
				return
			}
			if d.Step != StepForm || d.Form == nil {
				t.Fatalf("Decide = %+v, want a form", d)
			}
			if diff := cmp.Diff(tc.want, d.Form, cmpopts.IgnoreFields(Form{}, "Metadata"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("form mismatch (-want +got):\n%s", diff)
			}
			if d.Form.Metadata == "" || len(d.Form.Metadata) > 3000 {
				t.Errorf("form metadata %q: want a signed value within Slack's 3000", d.Form.Metadata)
			}
			// The shell, which has no forms, answers with the usage.
			if !strings.Contains(d.Reply.PlainText(), tc.cmd+" help") || d.Reply.Error {
				t.Errorf("form decision's reply = %q, want the usage of %s", d.Reply.PlainText(), tc.cmd)
			}
		})
	}
}

// TestSubmitFormErrors checks that a submitted form is checked by the
// rules of typed text, with each problem keyed by its field, and that a
// form is refused when its metadata is not this mailbot's. Nothing runs:
// the core's API, store and messenger are never called.
func TestSubmitFormErrors(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	cfg := Config{Approvals: ApprovalsRequests, Domains: []string{"example.com", "*.example.org"}, SigningKey: []byte("k")}
	c := newCore(t, api, cfg)
	form := func(user, cmd string) string {
		t.Helper()
		d := c.Decide(Request{UserID: user, ChannelID: "CFORM", Command: cmd})
		if d.Form == nil {
			t.Fatalf("Decide(%s, %s) = %+v, want a form", user, cmd, d)
		}
		return d.Form.Metadata
	}
	addAdmin, addUser, regUser := form("UADMIN1", CmdMailbox), form("UUSER1", CmdMailbox), form("UUSER1", CmdDomain)
	other := newCore(t, api, Config{Approvals: ApprovalsRequests, SigningKey: []byte("other")})
	foreign := other.Decide(Request{UserID: "UUSER1", ChannelID: "CFORM", Command: CmdMailbox}).Form.Metadata
	head := addUser[:strings.LastIndexByte(addUser, '.')]
	tests := []struct {
		name   string
		user   string
		meta   string
		values FormValues
		fields []string // the fields with a problem
		text   string   // a part of the first field's problem
	}{
		{"bad domain", "UADMIN1", addAdmin, FormValues{Domain: "bad_name.com", User: "bob"}, []string{FieldDomain}, "not a valid domain name"},
		{"domain with spaces", "UADMIN1", addAdmin, FormValues{Domain: "example .com", User: "bob"}, []string{FieldDomain}, "no spaces"},
		{"no domain and no default", "UADMIN1", addAdmin, FormValues{User: "bob"}, []string{FieldDomain}, "Give a domain"},
		{"domain not allowed", "UADMIN1", addAdmin, FormValues{Domain: "example.net", User: "bob"}, []string{FieldDomain}, "may not touch"},
		{"wildcard is not apex", "UUSER1", regUser, FormValues{Domain: "example.org", Reason: "r"}, []string{FieldDomain}, "may not touch"},
		{"bad user", "UADMIN1", addAdmin, FormValues{Domain: "example.com", User: "Bad Name"}, []string{FieldUser}, "not a valid user name"},
		{"empty user", "UADMIN1", addAdmin, FormValues{Domain: "example.com"}, []string{FieldUser}, "not a valid user name"},
		{"reason required", "UUSER1", addUser, FormValues{Domain: "example.com", User: "bob", Reason: "  \t "}, []string{FieldReason}, "approval"},
		{"everything wrong", "UUSER1", addUser, FormValues{Domain: "-x-.com", User: "9lives"}, []string{FieldDomain, FieldReason, FieldUser}, "not a valid domain name"},
		{"forged metadata", "UUSER1", head + ".AAAA", FormValues{Domain: "example.com", User: "bob", Reason: "r"}, []string{FieldDomain}, "not valid"},
		{"unsigned metadata", "UUSER1", head, FormValues{Domain: "example.com", User: "bob", Reason: "r"}, []string{FieldDomain}, "not valid"},
		{"another mailbot's metadata", "UUSER1", foreign, FormValues{Domain: "example.com", User: "bob", Reason: "r"}, []string{FieldDomain}, "not valid"},
		{"empty metadata", "UUSER1", "", FormValues{Domain: "example.com", User: "bob", Reason: "r"}, []string{FieldDomain}, "not valid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, _, errs := c.SubmitForm(tc.user, tc.meta, tc.values)
			var fields []string
			for f, problem := range errs {
				fields = append(fields, f)
				if problem == "" {
					t.Errorf("field %s has an empty problem", f)
				}
			}
			if diff := cmp.Diff(tc.fields, fields, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("SubmitForm error fields mismatch (-want +got):\n%s\nerrors: %q", diff, errs)
			}
			if !strings.Contains(errs[tc.fields[0]], tc.text) {
				t.Errorf("SubmitForm error for %s = %q, want it to contain %q", tc.fields[0], errs[tc.fields[0]], tc.text)
			}
			if d.Step != StepReply || d.Pending != nil || d.Op != (Operation{}) {
				t.Errorf("SubmitForm with errors returned the decision %+v, want none", d)
			}
		})
	}
	t.Cleanup(func() {
		if n := api.calls.Load(); n != 0 {
			t.Errorf("invalid forms called the API %d times", n)
		}
	})
}

// TestSubmitFormAsTyped checks that a valid form gives the decision the
// typed command gives, and the channel from the signed metadata.
func TestSubmitFormAsTyped(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(clockStart)
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsRequests, Domains: []string{"example.com", "example.org"},
		DefaultDomain: "example.org", Now: clk.Now})
	tests := []struct {
		user, cmd, typed string
		values           FormValues
		outcome          Step
	}{
		{"UADMIN1", CmdMailbox, "add Bob@Example.com new hire", FormValues{Domain: "Example.com", User: " Bob ", Reason: "new  hire"}, StepRun},
		{"UADMIN1", CmdMailbox, "add bob", FormValues{User: "bob"}, StepRun},
		{"UUSER1", CmdMailbox, "add bob example.com asked by <@U1|ann>", FormValues{Domain: "example.com", User: "bob", Reason: "asked by <@U1|ann>"}, StepApproval},
		{"UUSER1", CmdDomain, "register example.org. launch", FormValues{Domain: "example.org.", Reason: "launch"}, StepApproval},
	}
	for _, tc := range tests {
		typed := c.Decide(Request{UserID: tc.user, ChannelID: "CTYPED", Command: tc.cmd, Text: tc.typed})
		meta := c.Decide(Request{UserID: tc.user, ChannelID: "CFORM", Command: tc.cmd}).Form.Metadata
		got, channel, errs := c.SubmitForm(tc.user, meta, tc.values)
		if errs != nil || channel != "CFORM" {
			t.Errorf("SubmitForm(%s, %+v) = channel %q, errors %q; want channel CFORM and no error", tc.user, tc.values, channel, errs)
			continue
		}
		if got.Step != tc.outcome || typed.Step != tc.outcome {
			t.Errorf("%s %s: form outcome %v, typed %v; want %v", tc.cmd, tc.typed, got.Step, typed.Step, tc.outcome)
		}
		if diff := cmp.Diff(typed, got, cmpopts.IgnoreFields(Pending{}, "ID", "Channel")); diff != "" {
			t.Errorf("%s %s: form decision differs from the typed one (-typed +form):\n%s", tc.cmd, tc.typed, diff)
		}
		if got.Pending != nil && (got.Pending.Channel != "CFORM" || got.Pending.ID == typed.Pending.ID) {
			t.Errorf("form's pending request = %+v, want channel CFORM and an ID of its own", got.Pending)
		}
	}
}
