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
// verification line included, to the clicker alone.
func (c *Core) clickCheck(ctx context.Context, k Click) string {
	var w wireCheck
	if err := c.unseal(checkKind, k.Value, &w); err != nil || w.Domain == "" {
		c.deliver(ctx, k.Route, Reply{Title: "This button is not valid", Text: "mailbot cannot read it. Nothing was done.", Error: true})
		return LabelInvalid
	}
	c.deliver(ctx, k.Route, c.checklist(ctx, w.Domain, w.Name, true))
	return LabelAnswered
}

// checkDNS runs the checklist of domain, with PDD's verification line
// when secretName is given.
func (c *Core) checkDNS(ctx context.Context, domain, secretName string) Reply {
	return c.checklist(ctx, domain, secretName, secretName != "")
}

// checklist runs the checklist of domain against what the provider
// expects; verify adds the verification line (the button's: its codes
// are the asker's alone, as every checklist is). It calls no provider API
// but MailDNS, which reads a DKIM key or the verification methods at
// most; it needs no admin right and honours no allow-list: it touches
// nothing.
func (c *Core) checklist(ctx context.Context, domain, secretName string, verify bool) Reply {
	if c.cfg.DNS == nil {
		return Reply{Title: "DNS checks are not available", Error: true, Text: "This mailbot has no DNS resolver configured."}
	}
	cl := c.cfg.DNS.Check(ctx, domain, c.expect(ctx, domain, secretName, verify))
	return Reply{Title: cl.Header(), Text: cl.Summary(), Steps: cl.Lines(), Error: !cl.OK(),
		Note: "mailbot read these records from DNS just now; changes can take a while to show everywhere."}
}

// expect asks the provider what domain's DNS must publish. When it cannot
// say, the checklist checks what is known (an adapter may return part of
// the answer with its error) and says which line could not be read: the
// DKIM key of a provider that verifies no ownership, or else the
// verification line when verify asks for it.
func (c *Core) expect(ctx context.Context, domain, secretName string, verify bool) dnscheck.Expect {
	dns, err := c.at(domain).MailDNS(ctx, domain)
	want := expectOf(dns)
	if verify {
		want.SecretName = secretName
	} else {
		want.Methods, want.VerifyTXT = nil, ""
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

// expectOf is the checklist's copy of what a provider says DNS must
// publish; nil is nothing known.
func expectOf(dns *apiclient.MailDNS) dnscheck.Expect {
	if dns == nil {
		return dnscheck.Expect{}
	}
	want := dnscheck.Expect{MX: dns.MX, SPFInclude: dns.SPFInclude, SPFHost: dns.SPFHost, VerifyCNAME: dns.VerifyCNAME,
		VerifyTXT: dns.VerifyTXT, DKIMSelector: dns.DKIMSelector}
	for _, set := range dns.MXSets {
		s := make([]dnscheck.MX, len(set))
		for i, r := range set {
			s[i] = dnscheck.MX{Pref: r.Pref, Host: r.Host}
		}
		want.MXSets = append(want.MXSets, s)
	}
	if dns.DKIM != nil && dns.DKIM.PublicKey != "" {
		want.DKIM = &dnscheck.DKIM{Selector: dns.DKIM.Selector, PublicKey: dns.DKIM.PublicKey}
	}
	for _, m := range dns.Methods {
		want.Methods = append(want.Methods, dnscheck.Method{Name: m.Method, Code: m.Code})
	}
	return want
}
