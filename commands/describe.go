package commands

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// registerReply describes a registered domain to the person who asked,
// with what to publish next. Verification secrets and codes go to that
// person alone.
func (c *mailboxService) registerReply(ctx context.Context, domain string, d *apiclient.Domain) Reply {
	return c.domainReply(domain, d, false)
}

// alreadyLead opens the text of a reply on a domain registered already.
const alreadyLead = "Nothing was changed: the account already has it."

// domainReply is registerReply, or, when already is set, the reply on a
// domain the account had: titled so, its text led by alreadyLead.
func (c *mailboxService) domainReply(domain string, d *apiclient.Domain, already bool) Reply {
	p := c.at(domain)
	hosts := p.MailHosts() // no request: the reply needs the hosts only
	dns := &hosts
	caps := p.Capabilities()
	r := domainHead(displayDomain(domain), statusWords(d, caps), already)
	switch {
	case d.Secrets != nil:
		c.secretsReply(&r, domain, d.Secrets, mailStep(true, domain, dns))
	case !caps.VerifiesOwnership:
		r.Text = caps.Title + " does not verify who owns a domain: it works as soon as its DNS points at the server."
		r.Steps = append(r.Steps, mailStep(false, domain, dns), spfHostStep(dns))
		r.Buttons = []Button{c.reads.checkButton(domain, nil)}
	case d.MailFlows:
		r.Text = "Mail for " + domain + " flows. Create mailboxes with /mailbox add <user>@" + domain + "."
	case d.Verified:
		r.Text = "The domain is verified."
		r.Steps = []string{mailStep(false, domain, dns)}
	case d.VerifyTXT != "":
		r.Text = "The domain is connected but not verified. Prove that you own it with the TXT record below, then point its mail at " + caps.Title + "."
		r.Fields = append(r.Fields, Field{Label: "Verification TXT record", Value: d.VerifyTXT, Secret: true})
		r.Steps = []string{verifyTXTStep(domain, d.VerifyTXT), mailStep(false, domain, dns)}
		r.Note = "Only you can see the verification record. Check DNS shows whether it is published; once it is, /maildomain status asks " +
			caps.Title + " to verify the domain."
		r.Buttons = []Button{c.reads.checkButton(domain, nil)}
	default:
		r.Text = "The domain is connected but not verified. Prove that you own it by one of the methods below, then point its mail at the service."
		r.Fields = append(r.Fields, methodFields(d.Methods)...)
		r.Steps = append(recordSteps(d.Methods), mailStep(false, domain, dns))
		r.Note = "Only you can see the verification codes. The service checks ownership by itself; that can take a few hours."
		r.Buttons = []Button{c.reads.checkButton(domain, nil)}
	}
	r.Steps = append(r.Steps, warningSteps(d.Warnings)...)
	if already {
		r.Text = strings.TrimSpace(alreadyLead + " " + r.Text)
	}
	return r
}

// domainHead is the title and the first fields of a reply on a
// registered domain (shown as displayDomain shows it), with room for two
// more fields.
func domainHead(shown, status string, already bool) Reply {
	r := Reply{Title: "Domain " + shown + " registered", Fields: make([]Field, 2, 4)}
	if already {
		r.Title = "Domain " + shown + " was registered already"
	}
	r.Fields[0] = Field{Label: "Domain", Value: shown}
	r.Fields[1] = Field{Label: "Status", Value: status}
	return r
}

// statusWords is a domain's status as a reply shows it: with its
// meaning where the provider's status is a documented code, else with
// whether ownership is proven.
func statusWords(d *apiclient.Domain, caps apiclient.Capabilities) string {
	switch {
	case d.Meaning != "":
		return d.Status + " (" + d.Meaning + ")"
	case !caps.VerifiesOwnership:
		return d.Status
	case d.Verified:
		return d.Status + " (verified)"
	}
	return d.Status + " (not verified yet)"
}

// secretsReply gives the verification secrets of a domain still to be
// verified (PDD's domain-activate), verbatim, and both ways to publish
// them; mx is the mail step that follows them (mailStep's, then).
func (c *mailboxService) secretsReply(r *Reply, domain string, s *apiclient.Secrets, mx string) {
	r.Text = "The domain is connected but not verified. Prove that you own it with the secrets below, then point its mail at the service."
	r.Fields = append(r.Fields,
		Field{Label: "Secret name", Value: s.Name, Secret: true},
		Field{Label: "Secret content", Value: s.Content, Secret: true})
	r.Steps = make([]string, 0, 3)
	if s.File != "" {
		r.Steps = append(r.Steps, "Publish a file at "+s.File+" whose whole content is "+s.Content)
	}
	if s.Record != nil {
		r.Steps = append(r.Steps, recordStep(domain, *s.Record))
	}
	r.Steps = append(r.Steps, mx)
	r.Note = "Only you can see the secrets. The service checks ownership by itself; that can take a few hours."
	r.Buttons = []Button{c.reads.checkButton(domain, s.Record)}
}

// mailStep is the step that points domain's mail at the provider: its MX
// records, the first set where the provider offers several, and its SPF
// record where it names an include. With then, it is a step after others:
// "Then add an MX record …". Its words are joined in one string.
func mailStep(then bool, domain string, dns *apiclient.MailDNS) string {
	var first *apiclient.Record // the first MX set, of sets
	sets := 0
	for i, r := range recordsOf(dns) {
		if r.Purpose == apiclient.PurposeMX {
			if sets == 0 {
				first = &dns.Records[i]
			}
			sets++
		}
	}
	add, mk := "Add", "Make"
	if then {
		add, mk = "Then add", "Then make"
	}
	var spf1, v, spf2, spf3 string // the SPF sentence, if any: spf1 v spf2 v spf3
	if include, ok := spfValue(dns, apiclient.MatchSPFInclude); ok {
		spf1, v, spf2, spf3 = " Add an SPF record, a TXT record that includes ", include, ", such as: v=spf1 include:", " ~all"
	}
	switch {
	case sets == 0 || len(first.MX) == 0:
		return add + " an MX record for " + domain + " as the provider documents it, so that mail flows." + spf1 + v + spf2 + v + spf3
	case sets == 1 && len(first.MX) == 1:
		mx := first.MX[0]
		return add + " an MX record for " + domain + ": " + mx.Host + " with priority " + strconv.Itoa(int(mx.Pref)) +
			", so that mail flows." + spf1 + v + spf2 + v + spf3
	}
	return mxSetStep(mk, domain, first.MX) + spf1 + v + spf2 + v + spf3
}

// recordsOf is dns's records, none for nil.
func recordsOf(dns *apiclient.MailDNS) []apiclient.Record {
	if dns == nil {
		return nil
	}
	return dns.Records
}

// spfValue is the value of dns's first SPF record judged by match: the
// include or the host the DNS checklist expects; ok false for none.
func spfValue(dns *apiclient.MailDNS, match apiclient.Match) (v string, ok bool) {
	for _, r := range recordsOf(dns) {
		if r.Purpose == apiclient.PurposeSPF && r.Match == match {
			return r.Value, true
		}
	}
	return "", false
}

// mxSetStep tells how to point domain's mail at the records of set, and
// at nothing else; its first words are mk's ("Make", "Then make").
func mxSetStep(mk, domain string, set []apiclient.MXRecord) string {
	rs := make([]string, len(set))
	for i, r := range set {
		rs[i] = fmt.Sprintf("%s. MX %d %s.", domain, r.Pref, r.Host)
	}
	return mk + " these the only MX records of " + domain + ", so that mail flows: " + strings.Join(rs, ", ")
}

// spfHostStep tells which SPF record the DNS checklist expects, where the
// provider names a host to authorise ("" otherwise).
func spfHostStep(dns *apiclient.MailDNS) string {
	if v, ok := spfValue(dns, apiclient.MatchSPFHost); ok {
		return "Add an SPF record that authorises " + v + ", for example: v=spf1 mx a -all"
	}
	return ""
}

// recordStep offers the record to publish at domain instead of the
// verification file: "Or, instead of the file, add a DNS record: CNAME
// yamail-x.example.com pointing to mail.yandex.ru."
func recordStep(domain string, r apiclient.Record) string {
	const lead = "Or, instead of the file, add a DNS record: "
	dot := ""
	if r.Name != "" {
		dot = "."
	}
	if r.Type == apiclient.TypeCNAME {
		return lead + r.Type + " " + r.Name + dot + domain + " pointing to " + r.Value + "."
	}
	return lead + r.Type + " " + r.Name + dot + domain + " " + strconv.Quote(r.Value) + "."
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

// domainHad reads domain's status when ask is set (a register was refused
// as existing), and returns it when the account has the domain; nil
// otherwise (a failed read included).
func (c *mailboxService) domainHad(ctx context.Context, domain string, ask bool) *apiclient.Domain {
	if !ask {
		return nil
	}
	d, err := c.at(domain).DomainStatus(ctx, domain)
	if err != nil {
		return nil
	}
	return d
}

// registeredAlready is the result of a register of a domain the account
// already has: its status, and nothing changed.
func (c *mailboxService) registeredAlready(ctx context.Context, n Notice, d *apiclient.Domain) Result {
	n.OK, n.Unchanged, n.Code, n.Status, n.Stage = true, true, CodeUnchanged, d.Status, d.Stage
	return Result{Reply: c.domainReply(n.Op.Domain, d, true), Notice: n}
}
