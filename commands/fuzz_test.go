package commands

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, never returns both a result and
// an error, and that whatever it accepts is valid: a normalised domain, a
// valid user name, a plain reason.
func FuzzParse(f *testing.F) {
	for _, s := range []struct{ cmd, text string }{
		{"/maildomain", "register example.com"},
		{"/mailbox", "add alice@example.com reason"},
		{"/mailbox", "add <mailto:a@b.com|a@b.com>"},
		{"/maildomain", "register <http://пример.рф|пример.рф> <@U1|x>"},
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
		if inv.Help {
			if inv.Op != (Operation{}) {
				t.Fatalf("Parse(%q, %q) = help with an operation %+v", command, text, inv.Op)
			}
			return
		}
		op := inv.Op
		if op.Domain != "" || op.Action == ActionRegisterDomain {
			if d, err := NormalizeDomain(op.Domain); err != nil || d != op.Domain {
				t.Fatalf("Parse(%q, %q) domain %q is not normalised: %q, %v", command, text, op.Domain, d, err)
			}
		}
		switch op.Action {
		case ActionRegisterDomain:
			if op.Login != "" {
				t.Fatalf("Parse(%q, %q) register with login %q", command, text, op.Login)
			}
		case ActionAddMailbox:
			if l, err := normalizeLogin(op.Login); err != nil || l != op.Login {
				t.Fatalf("Parse(%q, %q) login %q is not valid: %v", command, text, op.Login, err)
			}
		default:
			t.Fatalf("Parse(%q, %q) action %q", command, text, op.Action)
		}
		if strings.ContainsAny(op.Reason, "\n\r\t\x00") || utf8.RuneCountInString(op.Reason) > maxReason || !utf8.ValidString(op.Reason) {
			t.Fatalf("Parse(%q, %q) reason %q is not plain text within %d characters", command, text, op.Reason, maxReason)
		}
	})
}
