package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// PDD's domain statuses, as its API spells them.
const (
	StatusDomainActivate = "domain-activate" // added, ownership not verified
	StatusMXActivate     = "mx-activate"     // verified, MX record not set up
	StatusAdded          = "added"           // verified, MX set up: mail flows
)

// How a PDD domain is verified, from the service's public documentation.
// They live here alone.
const (
	verifyFileURL = "http://%s/%s.html" // domain, secret name
	verifyCNAME   = "yamail-%s.%s"      // secret name, domain
	mxPriority    = 10
)

// statusMeanings says what each PDD domain status means.
var statusMeanings = map[string]string{
	StatusDomainActivate: "the domain has been added, but its ownership is not verified yet",
	StatusMXActivate:     "the domain is verified, but its MX record is not set up, so mail does not flow yet",
	StatusAdded:          "the domain is verified and its MX record is set up: mail flows",
}

// StatusMeaning describes a PDD domain status in words.
func StatusMeaning(s string) string {
	if m, ok := statusMeanings[s]; ok {
		return m
	}
	return "a status this version of mailbot does not know"
}

// registerReply describes a registered domain to the person who asked,
// with what to publish next. Verification secrets and codes go to that
// person alone.
func (c *Core) registerReply(ctx context.Context, domain string, d *apiclient.Domain) Reply {
	r := Reply{Title: "Domain " + displayDomain(domain) + " registered", Fields: []Field{{Label: "Domain", Value: displayDomain(domain)}}}
	hosts := c.api.MailHosts() // no request: the reply needs the hosts only
	dns := &hosts
	mx := mxStep(domain, dns.MX)
	if spf := spfStep(dns); spf != "" {
		mx += " " + spf
	}
	switch {
	case c.api.Name() == apiclient.ProviderPDD:
		c.pddRegisterReply(&r, domain, d, dns, mx)
	case !c.api.Capabilities().VerifiesOwnership:
		r.Fields = append(r.Fields, Field{Label: "Status", Value: d.Status})
		r.Text = c.providerName() + " does not verify who owns a domain: it works as soon as its DNS points at the server."
		r.Steps = append(r.Steps, mx, "Add an SPF record that authorises "+dns.SPFHost+", for example: v=spf1 mx a -all")
		r.Buttons = []Button{c.checkButton(domain, "")}
	case d.Verified:
		r.Fields = append(r.Fields, Field{Label: "Status", Value: d.Status + " (verified)"})
		r.Text = "The domain is verified."
		r.Steps = []string{mx}
	default:
		r.Fields = append(r.Fields, Field{Label: "Status", Value: d.Status + " (not verified yet)"})
		r.Text = "The domain is connected but not verified. Prove that you own it by one of the methods below, then point its mail at the service."
		r.Fields = append(r.Fields, methodFields(d.Methods)...)
		r.Steps = append(recordSteps(d.Methods), mx)
		r.Note = "Only you can see the verification codes. The service checks ownership by itself; that can take a few hours."
		r.Buttons = []Button{c.checkButton(domain, "")}
	}
	r.Steps = append(r.Steps, warningSteps(d.Warnings)...)
	return r
}

// pddRegisterReply describes a PDD domain by its status; for
// domain-activate it holds the verification secrets, verbatim, and both
// ways to publish them.
func (c *Core) pddRegisterReply(r *Reply, domain string, d *apiclient.Domain, dns *apiclient.MailDNS, mx string) {
	r.Fields = append(r.Fields, Field{Label: "Status", Value: fmt.Sprintf("%s (%s)", d.Status, StatusMeaning(d.Status))})
	switch d.Status {
	case StatusDomainActivate:
		if d.Secrets == nil {
			break
		}
		s := d.Secrets
		r.Text = "The domain is connected but not verified. Prove that you own it with the secrets below, then point its mail at the service."
		r.Fields = append(r.Fields,
			Field{Label: "Secret name", Value: s.Name, Secret: true},
			Field{Label: "Secret content", Value: s.Content, Secret: true})
		r.Steps = []string{
			fmt.Sprintf("Publish a file at "+verifyFileURL+" whose whole content is %s", domain, s.Name, s.Content),
			fmt.Sprintf("Or, instead of the file, add a DNS record: CNAME "+verifyCNAME+" pointing to %s.", s.Name, domain, dns.VerifyCNAME),
			"Then " + lowerFirst(mx),
		}
		r.Note = "Only you can see the secrets. The service checks ownership by itself; that can take a few hours."
		r.Buttons = []Button{c.checkButton(domain, s.Name)}
	case StatusMXActivate:
		r.Text = "The domain is verified."
		r.Steps = []string{mx}
	case StatusAdded:
		r.Text = fmt.Sprintf("Mail for %s flows. Create mailboxes with /mailbox add <user>@%s.", domain, domain)
	}
}

// mxStep tells how to point domain's mail at host.
func mxStep(domain, host string) string {
	if host == "" {
		return "Add an MX record for " + domain + " as the provider documents it, so that mail flows."
	}
	return fmt.Sprintf("Add an MX record for %s: %s with priority %d, so that mail flows.", domain, host, mxPriority)
}

// spfStep tells which SPF record the DNS checklist expects, where the
// provider names an include ("" otherwise: mailcow's reply says it).
func spfStep(dns *apiclient.MailDNS) string {
	if dns.SPFInclude == "" {
		return ""
	}
	return "Add an SPF record, a TXT record that includes " + dns.SPFInclude + ", such as: v=spf1 include:" + dns.SPFInclude + " ~all"
}

// recordSteps says where and what to publish for the verification
// methods whose record the provider describes.
func recordSteps(ms []apiclient.VerifyMethod) []string {
	var steps []string
	for _, m := range ms {
		if m.Record != "" {
			steps = append(steps, "To verify by "+m.Method+", publish "+m.Record+".")
		}
	}
	return steps
}

// methodFields shows verification methods and their codes, as received
// (secrets: the requester's alone).
func methodFields(ms []apiclient.VerifyMethod) []Field {
	fs := make([]Field, 0, len(ms))
	for _, m := range ms {
		fs = append(fs, Field{Label: "Verification by " + m.Method, Value: m.Code, Secret: true})
	}
	return fs
}

// lowerFirst makes the first letter of s lower case.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// domainHad reads domain's status when ask is set (a register was refused
// as existing), and returns it when the account has the domain; nil
// otherwise (a failed read included).
func (c *Core) domainHad(ctx context.Context, domain string, ask bool) *apiclient.Domain {
	if !ask {
		return nil
	}
	d, err := c.api.DomainStatus(ctx, domain)
	if err != nil {
		return nil
	}
	return d
}

// registeredAlready is the result of a register of a domain the account
// already has: its status, and nothing changed.
func (c *Core) registeredAlready(ctx context.Context, n Notice, d *apiclient.Domain) Result {
	n.OK, n.Unchanged, n.Code, n.Status, n.Stage = true, true, CodeUnchanged, d.Status, d.Stage
	r := c.registerReply(ctx, n.Op.Domain, d)
	r.Title = "Domain " + displayDomain(n.Op.Domain) + " was registered already"
	r.Text = strings.TrimSpace("Nothing was changed: the account already has it. " + r.Text)
	return Result{Reply: r, Notice: n}
}
