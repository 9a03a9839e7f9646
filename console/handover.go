package console

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// shellPeople is the shell's directory of people: every user ID is a full
// member whom a direct message reaches; an e-mail address is confirmed
// only when the acting user set it with the shell line "email", so that
// self-service can be tried from the shell.
type shellPeople struct {
	emails map[string]string // user ID → confirmed e-mail address
}

// Person returns what the shell knows of userID.
func (p *shellPeople) Person(_ context.Context, userID string) (commands.Person, error) {
	if !validUser(userID) {
		return commands.Person{Unknown: true}, nil
	}
	email := p.emails[userID]
	return commands.Person{Email: email, EmailConfirmed: email != ""}, nil
}

// setEmail gives the acting user a confirmed e-mail address in the shell's
// directory.
func (sh *shell) setEmail(addr string) {
	if addr == "" || strings.ContainsAny(addr, " \t") || !strings.Contains(addr, "@") {
		fmt.Fprintln(sh.out, "Type email and an address, such as: email ada@example.com (the acting user's confirmed Slack e-mail, for self-service).")
		return
	}
	for user, e := range sh.people.emails {
		if user != sh.user && strings.EqualFold(e, addr) {
			fmt.Fprintf(sh.out, "%s is %s's confirmed e-mail: one address is one person's.\n", textcut.Runes(addr, 254), user)
			return
		}
	}
	sh.people.emails[sh.user] = addr
	fmt.Fprintf(sh.out, "%s's confirmed e-mail is now %s.\n", sh.user, textcut.Runes(addr, 254))
}

// mentionWord is "for @U…" as typed in the shell: Slack would send the
// mention escaped, as <@U…>.
// It compiles on first use: compiled by an initialiser, its bounded
// repeat would cost every process, serve included, about 13 KB of heap.
var mentionWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|\s)for\s+@([UW][A-Z0-9]{2,20})\b`)
})

// escapeMentions turns "for @U012AB3CD" into "for <@U012AB3CD>", as Slack
// escapes a mention with should_escape.
func escapeMentions(text string) string {
	return mentionWord().ReplaceAllString(text, "${1}for <@${2}>")
}

// OfferHandover prints the direct message its owner would get.
func (sh *shell) OfferHandover(_ context.Context, v commands.HandoverView) (commands.MessageRef, error) {
	id := v.Handover.ID
	sh.handovers[id] = v.Value
	if v.Handover.Action == commands.ActionImport {
		sh.bundles = append(sh.bundles, id)
	}
	fmt.Fprintf(sh.out, "[direct message to %s, only them] %s\n  [Show my password: %s types show %s]\n", v.Handover.Owner, v.Text, v.Handover.Owner, id)
	return commands.MessageRef{Channel: "dm-" + v.Handover.Owner, TS: id}, nil
}

// UpdateHandover prints the direct message's new state.
func (sh *shell) UpdateHandover(_ context.Context, ref commands.MessageRef, v commands.HandoverView) error {
	if v.Value != "" {
		fmt.Fprintf(sh.out, "[direct message to %s, %s] %s\n  [Show my password: %s types show %s]\n", v.Handover.Owner, v.State, v.Text, v.Handover.Owner, ref.TS)
		return nil
	}
	fmt.Fprintf(sh.out, "[direct message to %s, %s] %s\n", v.Handover.Owner, v.State, v.Text)
	return nil
}

// HandoverValue is never asked: the session's store knows every hand-over.
func (sh *shell) HandoverValue(_ context.Context, ref commands.MessageRef) (string, error) {
	return sh.handovers[ref.TS], nil
}

// show clicks a hand-over's Show my password as the acting user.
func (sh *shell) show(ctx context.Context, id string) {
	if id == "" {
		fmt.Fprintln(sh.out, "Type show and the hand-over's ID, such as: show abcdefghij (its direct message gives the ID).")
		return
	}
	value, ok := sh.handovers[id]
	if !ok {
		fmt.Fprintf(sh.out, "No hand-over %q in this session.\n", textcut.Runes(id, 40))
		return
	}
	ref := commands.MessageRef{Channel: "dm-" + sh.user, TS: id}
	sh.core.Click(ctx, commands.Click{Kind: commands.ButtonShow, Value: value, User: sh.user, Route: commands.Route{User: sh.user}, Message: ref})
}
