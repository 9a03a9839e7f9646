package commands

import (
	"context"
	"fmt"
	"strings"
)

// aliasesShown bounds the aliases one message lists, so that it stays well
// within Slack's limits (about 50 fields of up to 254 characters each).
const aliasesShown = 50

// decideAliasesRead decides "/mailbox aliases <mailbox>": a read for
// admins, in an allowed domain, of a provider with aliases.
func (c *aliasService) decideAliasesRead(userID string, op Operation) Decision {
	if !c.access.IsAdminOf(userID, c.access.readDomain(op)) {
		return c.access.notAllowed("Only mailbot admins may read what the provider holds.")
	}
	if op.Domain == "" {
		if c.cfg.DefaultDomain == "" {
			return Decision{Step: StepReply, Reply: usageReply(&UsageError{Command: CmdMailbox,
				Problem: fmt.Sprintf("No domain given for %s, and mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).", op.Login),
				Fix:     "/mailbox " + aliasFix(ActionListAliases)})}
		}
		op.Domain = c.cfg.DefaultDomain
	}
	if !allowed(c.domains, op.Domain) {
		return Decision{Step: StepReply, Reply: usageReply(&UsageError{Command: CmdMailbox,
			Problem: fmt.Sprintf("mailbot may not touch %s: it is not in the list of allowed domains (%s).", op.Domain, strings.Join(c.domains, ", ")),
			Fix:     "a domain from that list, or ask an operator to add it to MAILBOT_DOMAINS"})}
	}
	if c.aliasAPI(op.Domain) == nil {
		return Decision{Step: StepReply, Reply: Reply{Title: "No aliases at " + c.titleAt(op.Domain),
			Text: capitalise(c.titleAt(op.Domain)) + " has no aliases: mailbot cannot add, remove or list them there. Nothing was sent.", Error: true}}
	}
	return Decision{Step: StepRead, Op: op}
}

// listAliases answers the aliases of the mailbox op.Target(): every
// address whole, at most aliasesShown of them, with the count.
func (c *aliasService) listAliases(ctx context.Context, op Operation) Reply {
	api, mailbox, who := c.aliasAPI(op.Domain), op.Login+"@"+op.Domain, c.titleAt(op.Domain)
	if api == nil {
		return Reply{Title: "No aliases at " + who, Text: capitalise(who) + " has no aliases.", Error: true}
	}
	list, err := api.ListAliases(ctx, mailbox)
	if err != nil {
		return c.readFailure(op.Domain, "list the aliases of "+mailbox, err)
	}
	r := Reply{Title: "Aliases of " + mailbox}
	for _, a := range list[:min(len(list), aliasesShown)] {
		r.Fields = append(r.Fields, Field{Label: "Alias", Value: a})
	}
	switch {
	case len(list) == 0:
		r.Text = "No alias delivers to " + mailbox + "."
	case len(list) > aliasesShown:
		r.Text = fmt.Sprintf("%d aliases; the first %d are shown.", len(list), aliasesShown)
	default:
		r.Text = plural(len(list), "alias", "aliases") + "."
	}
	if c.at(op.Domain).Capabilities().OrgWideAliases && len(list) > 0 {
		r.Text += " " + capitalise(who) + " aliases are names at every domain of the organisation: each receives mail at all of them."
	}
	return r
}
