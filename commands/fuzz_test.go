package commands

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, never returns both a result and
// an error, and that whatever it accepts is valid: an action of its
// command, a normalised domain, a valid user name for the action, a plain
// reason.
func FuzzParse(f *testing.F) {
	for _, s := range []struct{ cmd, text string }{
		{"/maildomain", "register example.com"},
		{"/mailbox", "add alice@example.com reason"},
		{"/mailbox", "add <mailto:a@b.com|a@b.com>"},
		{"/maildomain", "register <http://пример.рф|пример.рф> <@U1|x>"},
		{"/maildomain", "check example.com"},
		{"/maildomain", "status example.com"},
		{"/mailbox", "list example.com"},
		{"/mailbox", "reset john_doe@example.com forgot it"},
		{"/mailbox", "block alice example.com left"},
		{"/mailbox", "unblock alice"},
		{"/mailbox", " add "},
		{"/mailbox", "reset"},
		{"/maildomain", ""},
		{"/mailbox", "alias add sales@example.com bob@example.com new team"},
		{"/mailbox", "alias remove <mailto:sales@example.com|sales@example.com> done"},
		{"/mailbox", "aliases bob"},
		{"/mailbox", "offboard alice@example.com to bob left <@U1|x>"},
		{"/mailbox", "offboard alice to"},
		{"/mailbox", "alias"},
	} {
		f.Add(s.cmd, s.text)
	}
	f.Fuzz(func(t *testing.T, command, text string) {
		inv, err := Parse(command, text)
		if err != nil {
			if inv != (Invocation{}) {
				t.Fatalf("Parse(%q, %q) = %+v and error %v", command, text, inv, err)
			}
			return
		}
		if inv.Command != CmdDomain && inv.Command != CmdMailbox {
			t.Fatalf("Parse(%q, %q) command = %q", command, text, inv.Command)
		}
		op := inv.Op
		domainOK := func() bool { d, err := NormalizeDomain(op.Domain); return err == nil && d == op.Domain }
		switch {
		case inv.Help:
			if op != (Operation{}) || inv.Bare || inv.Check || inv.Read {
				t.Fatalf("Parse(%q, %q) = help with more: %+v", command, text, inv)
			}
		case inv.Bare:
			if !op.Action.IsOperation() || op.Action.Command() != inv.Command || op != (Operation{Action: op.Action}) || inv.Check || inv.Read {
				t.Fatalf("Parse(%q, %q) = bare, want an operation of %s and nothing more: %+v", command, text, inv.Command, inv)
			}
		case inv.Check:
			if inv.Command != CmdDomain || !domainOK() || op != (Operation{Domain: op.Domain}) {
				t.Fatalf("Parse(%q, %q) = check %+v, want a /maildomain check of one normalised domain", command, text, inv)
			}
		case inv.Read && op.Action == ActionListAliases:
			if l, err := normalizeLogin(op.Action, op.Login); err != nil || l != op.Login || op.Domain != "" && !domainOK() ||
				op != (Operation{Action: op.Action, Login: op.Login, Domain: op.Domain}) {
				t.Fatalf("Parse(%q, %q) = aliases read %+v, want one mailbox", command, text, inv)
			}
		case inv.Read:
			if op.Action != ActionListMailboxes && op.Action != ActionDomainStatus || op.Action.Command() != inv.Command ||
				!domainOK() || op != (Operation{Action: op.Action, Domain: op.Domain}) {
				t.Fatalf("Parse(%q, %q) = read %+v, want list or status of one normalised domain", command, text, inv)
			}
		default:
			checkParsedOp(t, command, text, inv)
		}
	})
}

// checkParsedOp checks an operation that Parse accepted.
func checkParsedOp(t *testing.T, command, text string, inv Invocation) {
	t.Helper()
	op := inv.Op
	if !op.Action.IsOperation() || op.Action.Command() != inv.Command {
		t.Fatalf("Parse(%q, %q) = %s for %s", command, text, op.Action, inv.Command)
	}
	// A mailbox given by its user name alone gets the default domain
	// later; every other domain is normalised here.
	if op.Domain != "" || op.Action == ActionRegisterDomain {
		if d, err := NormalizeDomain(op.Domain); err != nil || d != op.Domain {
			t.Fatalf("Parse(%q, %q) domain %q is not normalised: %q, %v", command, text, op.Domain, d, err)
		}
	}
	switch {
	case op.Action == ActionRegisterDomain && op.Login != "":
		t.Fatalf("Parse(%q, %q) register with login %q", command, text, op.Login)
	case op.Action.OnMailbox():
		if l, err := normalizeLogin(op.Action, op.Login); err != nil || l != op.Login || strings.ContainsAny(l, "/?#%@ ") {
			t.Fatalf("Parse(%q, %q) login %q is not valid for %s: %v", command, text, op.Login, op.Action, err)
		}
	}
	if op.To != "" {
		login, domain, isAddr := cutAddress(op.To)
		d, derr := NormalizeDomain(domain)
		if l, err := normalizeLogin(op.Action, login); err != nil || l != login || isAddr && (derr != nil || d != domain) ||
			op.Action != ActionAliasAdd && op.Action != ActionOffboard {
			t.Fatalf("Parse(%q, %q) second address %q is not valid for %s", command, text, op.To, op.Action)
		}
	} else if op.Action == ActionAliasAdd {
		t.Fatalf("Parse(%q, %q) alias add without a mailbox", command, text)
	}
	if strings.ContainsAny(op.Reason, "\n\r\t\x00") || utf8.RuneCountInString(op.Reason) > maxReason || !utf8.ValidString(op.Reason) {
		t.Fatalf("Parse(%q, %q) reason %q is not plain text within %d characters", command, text, op.Reason, maxReason)
	}
}

// FuzzSubmitForm checks that any submitted form is either refused with
// problems keyed by the form's fields or decided into an operation that
// validates, as typed text would be; never both, never a panic. The core's
// store and messenger panic if used: checking a form is pure.
func FuzzSubmitForm(f *testing.F) {
	c := newCore(f, &fakeAPI{}, Config{Approvals: ApprovalsRequests, Domains: []string{"example.com", "*.example.org"},
		DefaultDomain: "example.com", SigningKey: []byte("fuzz")})
	add := c.Decide(Request{UserID: "UUSER1", ChannelID: "C1", Command: CmdMailbox}).Form.Metadata
	reg := c.Decide(Request{UserID: "UUSER1", ChannelID: "C1", Command: CmdDomain}).Form.Metadata
	reset := c.Decide(Request{UserID: "UUSER1", ChannelID: "C1", Command: CmdMailbox, Text: "reset"}).Form.Metadata
	block := c.Decide(Request{UserID: "UADMIN1", ChannelID: "C1", Command: CmdMailbox, Text: "block"}).Form.Metadata
	if reset == "" || block == "" {
		f.Fatal("a bare reset or block opens no form")
	}
	for _, s := range [][5]string{
		{"UUSER1", reset, "example.com", "john_doe", "forgot it"},
		{"UADMIN1", block, "a.example.org", "2024.intern", ""},
		{"UUSER1", add, "example.com", "alice", "new hire"},
		{"UADMIN1", add, "", "Bob", ""},
		{"UUSER1", reg, "a.example.org.", "", "<!here> launch"},
		{"UUSER1", reg, "пример.рф", "", "x"},
		{"UUSER1", "f1.e30.AAAA", "example.com", "alice", "r"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, user, meta, domain, login, reason string) {
		d, channel, errs := c.SubmitForm(user, meta, FormValues{Domain: domain, User: login, Reason: reason})
		if len(errs) > 0 {
			for field, problem := range errs {
				if (field != FieldDomain && field != FieldUser && field != FieldReason) || problem == "" {
					t.Fatalf("SubmitForm error %q: %q, want a problem keyed by a field", field, problem)
				}
			}
			if d.Step != StepReply || d.Pending != nil {
				t.Fatalf("SubmitForm = %+v and errors %q", d, errs)
			}
			return
		}
		if ue := c.policy.checkOp(d.Op); ue != nil {
			t.Fatalf("SubmitForm decided %+v, which does not validate: %s", d.Op, ue.Problem)
		}
		switch d.Step {
		case StepRun:
			if !c.IsAdmin(user) {
				t.Fatalf("SubmitForm lets non-admin %q run %+v", user, d.Op)
			}
		case StepApproval:
			if d.Pending == nil || d.Pending.Requester != user || d.Pending.Channel != channel || d.Pending.Op != d.Op || d.Op.Reason == "" {
				t.Fatalf("SubmitForm approval = %+v (channel %q), want the requester's pending request with a reason", d, channel)
			}
		default:
			t.Fatalf("SubmitForm outcome %v without errors", d.Step)
		}
		if strings.ContainsAny(d.Op.Reason, "\n\r\t\x00") || utf8.RuneCountInString(d.Op.Reason) > maxReason {
			t.Fatalf("SubmitForm reason %q is not plain text within %d characters", d.Op.Reason, maxReason)
		}
	})
}
