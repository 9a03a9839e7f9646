package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
)

// A page of /mailbox list is as many mailboxes as fit these bounds, so
// that the message stays well within Slack's limits however long the
// addresses are.
const (
	listPageMax   = 50   // mailboxes in one message
	listPageChars = 6000 // characters of their lines in one message
	// listFetch is how many mailboxes mailbot asks a provider that pages
	// for at once.
	listFetch = 100
)

// moreKind prefixes the signed value of a "More" button.
const moreKind = "m1"

// wireMore is what a "More" button carries: where the next page starts.
// Cursor is the provider's page; Skip how many of its mailboxes were
// shown already.
type wireMore struct {
	Domain string `json:"d"`
	Cursor string `json:"c,omitempty"`
	Skip   int    `json:"s,omitempty"`
}

// read answers a read (list, aliases or status) of op.Domain to actor, an
// admin; it is not noticed, and audited only when a status asks the
// provider to verify the domain.
func (c *readService) read(ctx context.Context, actor string, op Operation, cursor string) Reply {
	switch op.Action {
	case ActionDomainStatus:
		return c.domainStatus(ctx, actor, op.Domain)
	case ActionListAliases:
		return c.aliases.listAliases(ctx, op)
	}
	return c.listPage(ctx, wireMore{Domain: op.Domain, Cursor: cursor})
}

// clickMore answers a click on "More" with the next page, to admins only.
func (c *readService) clickMore(ctx context.Context, k Click) string {
	var w wireMore
	if err := c.unseal(moreKind, k.Value, &w); err != nil || w.Domain == "" {
		c.deliver(ctx, k.Route, Reply{Title: "This button is not valid", Text: "mailbot cannot read it. Nothing was done.", Error: true})
		return LabelInvalid
	}
	if !c.access.IsAdminOf(k.User, w.Domain) {
		c.deliver(ctx, k.Route, Reply{Title: "Not allowed", Text: "Only mailbot admins may read what the provider holds.", Error: true})
		return LabelRefused
	}
	if ue := c.access.checkAllowed(CmdMailbox, w.Domain, w.Domain); ue != nil {
		c.deliver(ctx, k.Route, usageReply(ue))
		return LabelRefused
	}
	c.deliver(ctx, k.Route, c.listPage(ctx, w))
	return LabelAnswered
}

// MoreDomain is [Core.MoreDomain]'s work.
func (c *readService) MoreDomain(value string) (string, bool) {
	var w wireMore
	if err := c.unseal(moreKind, value, &w); err != nil || w.Domain == "" {
		return "", false
	}
	return w.Domain, true
}

// listPage lists the mailboxes of w.Domain from w onwards: one page of
// the provider at most, and no more than fits one message; a "More"
// button continues where it stopped.
func (c *readService) listPage(ctx context.Context, w wireMore) Reply {
	page, err := c.at(w.Domain).ListMailboxes(ctx, w.Domain, w.Cursor, listFetch)
	if err != nil {
		return c.readFailure(w.Domain, "list the mailboxes of "+w.Domain, err)
	}
	r := Reply{Title: "Mailboxes of " + displayDomain(w.Domain)}
	boxes := page.Mailboxes[min(w.Skip, len(page.Mailboxes)):]
	chars := 0
	shown := 0
	for _, m := range boxes {
		f := mailboxField(m)
		if shown == listPageMax || shown > 0 && chars+len(f.Label)+len(f.Value) > listPageChars {
			break
		}
		r.Fields = append(r.Fields, f)
		chars += len(f.Label) + len(f.Value)
		shown++
	}
	next := wireMore{Domain: w.Domain, Cursor: w.Cursor, Skip: w.Skip + shown}
	if shown == len(boxes) {
		next = wireMore{Domain: w.Domain, Cursor: page.Next}
	}
	r.Text = c.listSummary(w.Domain, page, w.Skip == 0 && w.Cursor == "", shown)
	if next.Cursor != "" || next.Skip > 0 {
		r.Buttons = []Button{{Kind: ButtonMore, Label: "More", Value: c.seal(moreKind, next)}}
	}
	return r
}

// listSummary says how many mailboxes the domain has and this page shows.
func (c *readService) listSummary(domain string, page *apiclient.Page, first bool, shown int) string {
	var s string
	switch {
	case page.Total >= 0 && first:
		s = plural(page.Total, "mailbox", "mailboxes") + " in all; "
	case page.Total >= 0:
		s = fmt.Sprintf("Continued (%d in all); ", page.Total)
	}
	s += fmt.Sprintf("%d shown here.", shown)
	if c.at(domain).Capabilities().OwnAddresses {
		s += " " + capitalise(c.titleAt(domain)) + " users belong to the organisation, not to one domain: these are its users, with the addresses it gives."
	}
	return s
}

// mailboxField is one line of a list: the address, its state and uid.
func mailboxField(m apiclient.Mailbox) Field {
	v := stateWords(m.State)
	if m.UID != "" {
		v += " · uid " + m.UID
	}
	return Field{Label: trunc(m.Address, 254), Value: v}
}

// domainStatus describes the provider's state of domain in words, with a
// "Check DNS" button. Verification secrets and codes go only to the
// admin who asked. A domain whose verification TXT record is in DNS is
// verified first, where the provider is asked to (DomainVerifier).
func (c *readService) domainStatus(ctx context.Context, actor, domain string) Reply {
	d, err := c.at(domain).DomainStatus(ctx, domain)
	if err != nil {
		return c.readFailure(domain, "read the status of "+domain, err)
	}
	d, verified := c.verifyIfPublished(ctx, actor, d)
	r := Reply{Title: "Domain " + displayDomain(domain) + " at " + c.titleAt(domain)}
	var verify *apiclient.Record
	switch {
	case d.Meaning != "":
		verify = c.meaningStatus(&r, domain, d)
	case !c.at(domain).Capabilities().VerifiesOwnership:
		r.Fields = append(r.Fields, Field{Label: "State", Value: map[bool]string{true: "active", false: "inactive"}[d.Status == "active"]},
			Field{Label: "Mailboxes", Value: countOf(d.Mailboxes, d.MaxMailboxes)})
	default:
		c.verificationStatus(&r, domain, d)
		r.Text = verified
	}
	r.Buttons = []Button{c.checkButton(domain, verify)}
	return r
}

// meaningStatus puts on r the status of a domain whose provider says what
// its state means, with its stage and secrets; it returns the secrets'
// DNS record, for the Check DNS button.
func (c *readService) meaningStatus(r *Reply, domain string, d *apiclient.Domain) (verify *apiclient.Record) {
	r.Fields = append(r.Fields, Field{Label: "Status", Value: statusWords(d, c.at(domain).Capabilities())})
	if d.Stage != "" {
		r.Fields = append(r.Fields, Field{Label: "Stage", Value: d.Stage})
	}
	if d.Secrets != nil {
		verify = d.Secrets.Record
		r.Fields = append(r.Fields,
			Field{Label: "Secret name", Value: d.Secrets.Name, Secret: true},
			Field{Label: "Secret content", Value: d.Secrets.Content, Secret: true})
		r.Note = "Only you can see the secrets."
	}
	return verify
}

// verificationStatus puts on r whether a domain's ownership is verified,
// and the ways to verify it that are left.
func (c *readService) verificationStatus(r *Reply, domain string, d *apiclient.Domain) {
	r.Fields = append(r.Fields, Field{Label: "Verified", Value: map[bool]string{true: "yes", false: "not yet"}[d.Verified]})
	if d.Status != "" {
		r.Fields = append(r.Fields, Field{Label: "Status", Value: d.Status})
	}
	r.Fields = append(r.Fields, methodFields(d.Methods)...)
	if len(d.Methods) > 0 {
		r.Note = "Only you can see the verification codes."
	}
	if d.VerifyTXT != "" && !d.Verified {
		r.Fields = append(r.Fields, Field{Label: "Verification TXT record", Value: d.VerifyTXT, Secret: true})
		r.Steps = append(r.Steps, verifyTXTStep(domain, d.VerifyTXT))
		r.Note = "Only you can see the verification record. Once it is in DNS, /maildomain status asks " + c.titleAt(domain) + " to verify the domain."
	}
}

// countOf writes a count and its limit: "3 of 10", "3 (no limit)".
func countOf(n, limit int) string {
	if limit <= 0 {
		return strconv.Itoa(n) + " (no limit)"
	}
	return fmt.Sprintf("%d of %d", n, limit)
}

// readFailure explains a read of domain's provider that failed; nothing
// was changed.
func (c *shared) readFailure(domain, what string, err error) Reply {
	r := Reply{Title: "Could not " + what, Error: true, Note: "Nothing was changed: this only reads."}
	var e *apiclient.Error
	if !errors.As(err, &e) {
		ref := newID()[:8]
		c.logger.Error("internal error", zap.String("ref", ref), zap.String("read", what), zap.Error(err))
		r.Text = "Internal error, ref " + ref + "."
		return r
	}
	switch e.Class {
	case apiclient.ClassTemporary, apiclient.ClassUncertain:
		r.Text = capitalise(c.titleAt(domain)) + " did not answer usefully: try again later."
	case apiclient.ClassCredentials:
		r.Text = capitalise(c.titleAt(domain)) + " refused mailbot's credentials: ask an operator to check " + c.credentialsSetting(c.at(domain), e) + "."
	default:
		r.Text = answerText(capitalise(c.titleAt(domain)), e)
	}
	return r
}

// mailboxes is n mailboxes in words: "1 mailbox", "2 mailboxes".
func mailboxes(n int) string { return plural(n, "mailbox", "mailboxes") }

// plural writes n and the noun in its number: "1 mailbox", "2 mailboxes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
