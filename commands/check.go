package commands

import (
	"context"

	"github.com/mailbot/mailbot/commands/dnscheck"
)

// DNSChecker looks a domain's DNS records up for the checklist of
// docs/commands.md; *dnscheck.Checker satisfies it.
type DNSChecker interface {
	Check(ctx context.Context, domain, secretName string) dnscheck.Checklist
}

// checkKind prefixes the signed value of a "Check DNS" button.
const checkKind = "c1"

// wireCheck is what a "Check DNS" button carries: the domain and the
// verification secret's name, never its content.
type wireCheck struct {
	Domain string `json:"d"`
	Name   string `json:"n,omitempty"`
}

// checkButton is the "Check DNS" button of a register reply.
func (c *Core) checkButton(domain, secretName string) Button {
	return Button{Kind: ButtonCheckDNS, Label: "Check DNS", Value: c.seal(checkKind, wireCheck{Domain: domain, Name: secretName})}
}

// CheckDomain returns the domain a "Check DNS" button's value names, for
// a transport that shows the button as a command to type.
func (c *Core) CheckDomain(value string) (string, bool) {
	var w wireCheck
	if err := c.unseal(checkKind, value, &w); err != nil || w.Domain == "" {
		return "", false
	}
	return w.Domain, true
}

// clickCheck answers a click on "Check DNS" with the checklist, the
// verification record included, to the clicker alone.
func (c *Core) clickCheck(ctx context.Context, k Click) string {
	var w wireCheck
	if err := c.unseal(checkKind, k.Value, &w); err != nil || w.Domain == "" {
		c.deliver(ctx, k.Route, Reply{Title: "This button is not valid", Text: "mailbot cannot read it. Nothing was done.", Error: true})
		return LabelInvalid
	}
	c.deliver(ctx, k.Route, c.checkDNS(ctx, w.Domain, w.Name))
	return LabelAnswered
}

// checkDNS runs the checklist of domain. It calls no PDD API, needs no
// admin right and honours no allow-list: it touches nothing.
func (c *Core) checkDNS(ctx context.Context, domain, secretName string) Reply {
	if c.cfg.DNS == nil {
		return Reply{Title: "DNS checks are not available", Error: true, Text: "This mailbot has no DNS resolver configured."}
	}
	cl := c.cfg.DNS.Check(ctx, domain, secretName)
	return Reply{Title: cl.Header(), Text: cl.Summary(), Steps: cl.Lines(), Error: !cl.OK(),
		Note: "mailbot read these records from DNS just now; changes can take a while to show everywhere."}
}
