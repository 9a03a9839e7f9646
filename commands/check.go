package commands

import (
	"context"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
)

// DNSChecker looks a domain's DNS records up and judges them against what
// the provider expects; *dnscheck.Checker satisfies it.
type DNSChecker interface {
	Check(ctx context.Context, domain string, want dnscheck.Expect) dnscheck.Checklist
}

// checkKind prefixes the signed value of a "Check DNS" button.
const checkKind = "c1"

// wireCheck is what a "Check DNS" button carries: the domain and, where
// the provider's verification record is known only to the register
// reply, that record (it names a secret, never holds its content).
type wireCheck struct {
	Domain string            `json:"d"`
	Record *apiclient.Record `json:"r,omitempty"`
}

// checkButton is the "Check DNS" button of a register reply; verify is
// the verification record that MailDNS does not give, nil for none.
func (c *readService) checkButton(domain string, verify *apiclient.Record) Button {
	return Button{Kind: ButtonCheckDNS, Label: "Check DNS", Value: c.sealCheck(wireCheck{Domain: domain, Record: verify})}
}

// CheckDomain is [Core.CheckDomain]'s work.
func (c *readService) CheckDomain(value string) (string, bool) {
	var w wireCheck
	if err := c.unseal(checkKind, value, &w); err != nil || w.Domain == "" {
		return "", false
	}
	return w.Domain, true
}

// clickCheck answers a click on "Check DNS" with the checklist, the
// verification line included, to the clicker alone.
func (c *readService) clickCheck(ctx context.Context, k Click) string {
	var w wireCheck
	if err := c.unseal(checkKind, k.Value, &w); err != nil || w.Domain == "" {
		c.deliver(ctx, k.Route, Reply{Title: "This button is not valid", Text: "mailbot cannot read it. Nothing was done.", Error: true})
		return LabelInvalid
	}
	c.deliver(ctx, k.Route, c.checklist(ctx, w.Domain, w.Record, true))
	return LabelAnswered
}

// checkDNS runs the checklist of domain, without the verification line.
func (c *readService) checkDNS(ctx context.Context, domain string) Reply {
	return c.checklist(ctx, domain, nil, false)
}

// checklist runs the checklist of domain against what the provider
// expects; verify adds the verification line (the button's: its codes
// are the asker's alone, as every checklist is), with the button's own
// record where it carries one. It calls no provider API
// but MailDNS, which reads a DKIM key or the verification methods at
// most; it needs no admin right and honours no allow-list: it touches
// nothing.
func (c *readService) checklist(ctx context.Context, domain string, record *apiclient.Record, verify bool) Reply {
	if c.cfg.DNS == nil {
		return Reply{Title: "DNS checks are not available", Error: true, Text: "This mailbot has no DNS resolver configured."}
	}
	cl := c.cfg.DNS.Check(ctx, domain, c.expect(ctx, domain, record, verify))
	return Reply{Title: cl.Header(), Text: cl.Summary(), Steps: cl.Lines(), Error: !cl.OK(),
		Note: "mailbot read these records from DNS just now; changes can take a while to show everywhere."}
}

// expect asks the provider what domain's DNS must publish. When it cannot
// say, the checklist checks what is known (an adapter may return part of
// the answer with its error) and says which line could not be read: the
// DKIM key of a provider that verifies no ownership, or else the
// verification line when verify asks for it.
func (c *readService) expect(ctx context.Context, domain string, record *apiclient.Record, verify bool) dnscheck.Expect {
	dns, err := c.at(domain).MailDNS(ctx, domain)
	var want dnscheck.Expect
	if dns != nil {
		for _, r := range dns.Records {
			if verify || r.Purpose != apiclient.PurposeVerification {
				want.Records = append(want.Records, r)
			}
		}
	}
	if verify && record != nil {
		want.Records = append(want.Records, *record)
	}
	if err == nil {
		return want
	}
	want.UnreadReason = c.readFailure(domain, "read what the domain's DNS must publish", err).Text
	switch {
	case !c.at(domain).Capabilities().VerifiesOwnership:
		want.Unread = []dnscheck.Kind{dnscheck.KindDKIM}
	case verify:
		want.Unread = []dnscheck.Kind{dnscheck.KindVerification}
	}
	return want
}
