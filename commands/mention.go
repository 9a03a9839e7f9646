package commands

import (
	"fmt"
	"strings"
)

// ParseMention returns the user ID of a mention as Slack escapes it:
// "<@U012AB3CD>" or "<@U012AB3CD|ada>". ok is false for anything else,
// special mentions (<!here>) and user groups (<!subteam^S…>) included.
func ParseMention(s string) (userID string, ok bool) {
	inner, found := strings.CutPrefix(s, "<@")
	if !found || !strings.HasSuffix(inner, ">") {
		return "", false
	}
	inner = inner[:len(inner)-1]
	id, label, _ := strings.Cut(inner, "|")
	if !IsUserID(id) || strings.ContainsAny(label, "<>") {
		return "", false
	}
	return id, true
}

// forClause reads "for <@user>" at the start of toks, after the mailbox
// of an add or a reset. n is how many words it took: 0 when toks do not
// start with "for" followed by something meant as a person ("for the new
// hire" is a reason). A person that is not a Slack mention is refused,
// so that the password never goes to the requester by mistake.
func forClause(action Action, toks []token) (userID string, n int, err error) {
	if len(toks) == 0 || !strings.EqualFold(toks[0].raw, "for") {
		return "", 0, nil
	}
	fix := "/mailbox " + string(action) + " alice@example.com for @alice [reason]"
	if len(toks) == 1 {
		return "", 0, &UsageError{Command: CmdMailbox, Problem: "\"for\" names nobody: say whom the credentials are for.", Fix: fix}
	}
	word := toks[1].raw
	if id, ok := ParseMention(word); ok {
		return id, 2, nil
	}
	if strings.HasPrefix(word, "@") || strings.HasPrefix(word, "<") {
		return "", 0, &UsageError{Command: CmdMailbox,
			Problem: fmt.Sprintf("%s is not a person Slack knows: type @ and pick them from the list, so that Slack sends their user ID.", trunc(cleanText(word), 60)),
			Fix:     fix}
	}
	return "", 0, nil
}
