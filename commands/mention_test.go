package commands

import (
	"strings"
	"testing"
)

func TestParseFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, for_, reason string
		bad                bool
	}{
		{text: "add ada@example.com for <@U012AB3CD>", for_: "U012AB3CD"},
		{text: "add ada@example.com for <@W012AB3CD|ada> starts <!here> Monday", for_: "W012AB3CD", reason: "starts @ here Monday"},
		{text: "reset ada example.com FOR <@U012AB3CD|ada.l> <!subteam^S0ADMINS|@mail-admins>", for_: "U012AB3CD", reason: "@ mail-admins"},
		{text: "add ada@example.com for the new hire <@U012AB3CD>", reason: "for the new hire @ U012AB3CD"},
		{text: "add ada@example.com for @ada", bad: true},
		{text: "add ada@example.com for <!here>", bad: true},
		{text: "add ada@example.com for <@U1>", bad: true},
		{text: "add ada@example.com for <#C012AB3CD|ops>", bad: true},
		{text: "add ada@example.com for", bad: true},
		{text: "block ada@example.com for <@U012AB3CD>", reason: "for @ U012AB3CD"},
	}
	for _, tc := range tests {
		inv, err := Parse(CmdMailbox, tc.text)
		if tc.bad {
			if err == nil {
				t.Errorf("Parse(%q) = %+v, want a usage error", tc.text, inv.Op)
			}
			continue
		}
		if err != nil || inv.Op.For != tc.for_ || inv.Op.Reason != tc.reason {
			t.Errorf("Parse(%q) = for %q, reason %q, %v; want for %q, reason %q", tc.text, inv.Op.For, inv.Op.Reason, err, tc.for_, tc.reason)
		}
	}
}

// FuzzMention checks that ParseMention takes exactly a user's escaped
// mention, and that a parsed "for" names a Slack user and leaves no
// markup that could notify anyone in the reason.
func FuzzMention(f *testing.F) {
	for _, s := range []string{"<@U012AB3CD>", "<@W012AB3CD|ada>", "<@U1>", "<!here>", "<!subteam^S012|@a>", "<@U012AB3CD|a|b>", "<@U012AB3CD|<x>"} {
		f.Add(s, "for "+s+" reason <!channel>")
	}
	f.Fuzz(func(t *testing.T, word, rest string) {
		if id, ok := ParseMention(word); ok {
			if !IsUserID(id) || !strings.HasPrefix(word, "<@"+id) || !strings.HasSuffix(word, ">") {
				t.Fatalf("ParseMention(%q) = %q", word, id)
			}
		}
		inv, err := Parse(CmdMailbox, "add ada@example.com "+rest)
		if err != nil {
			return
		}
		if inv.Op.For != "" && !IsUserID(inv.Op.For) {
			t.Fatalf("for %q is not a user ID (text %q)", inv.Op.For, rest)
		}
		if strings.ContainsAny(inv.Op.Reason, "<>") && strings.Contains(inv.Op.Reason, "<!") {
			t.Fatalf("reason %q keeps a special mention", inv.Op.Reason)
		}
	})
}
