package commands

import (
	"strings"
	"testing"
)

// TestHelp compares the help of each command, and of an unknown one, with
// testdata/help.golden (refresh with go test ./commands -update).
func TestHelp(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, cmd := range []string{CmdDomain, CmdMailbox, "/other"} {
		b.WriteString("=== Help(" + cmd + ")\n")
		b.WriteString(Help(cmd).PlainText())
	}
	golden(t, "help", b.String())
}

// TestHelpListsRegistry checks that every registry line shows in its
// command's help and nowhere else.
func TestHelpListsRegistry(t *testing.T) {
	t.Parallel()
	for _, u := range registry {
		for _, cmd := range []string{CmdDomain, CmdMailbox} {
			got := strings.Contains(Help(cmd).PlainText(), u.Usage)
			if want := u.Command == cmd; got != want {
				t.Errorf("Help(%s) lists %q: %v, want %v", cmd, u.Usage, got, want)
			}
		}
	}
}

// TestUnknownSubcommandShowsUsage checks that bad input answers with the
// usage of its command.
func TestUnknownSubcommandShowsUsage(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{})
	r := c.Decide(Request{UserID: "UADMIN1", Command: "/mailbox", Text: "delete bob"}).Reply
	if !r.Error || !strings.Contains(r.PlainText(), "/mailbox add <user>@<domain> [reason…]") {
		t.Errorf("reply to an unknown sub-command = %q, want an error with the usage", r.PlainText())
	}
}
