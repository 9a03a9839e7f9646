package commands

import (
	"fmt"

	"github.com/mailbot/mailbot/apiclient/pdd"
)

// How a domain is verified and how its mail is pointed at the service, from
// the service's public documentation. They live here alone.
const (
	verifyFileURL     = "http://%s/%s.html" // domain, secret name
	verifyCNAME       = "yamail-%s.%s"      // secret name, domain
	verifyCNAMETarget = "mail.yandex.ru"
	mxHost            = "mx.yandex.net"
	mxPriority        = 10
)

// statusMeanings says what each domain status means (seed §3).
var statusMeanings = map[pdd.Status]string{
	pdd.StatusDomainActivate: "the domain has been added, but its ownership is not verified yet",
	pdd.StatusMXActivate:     "the domain is verified, but its MX record is not set up, so mail does not flow yet",
	pdd.StatusAdded:          "the domain is verified and its MX record is set up: mail flows",
}

// StatusMeaning describes a domain status in words.
func StatusMeaning(s pdd.Status) string {
	if m, ok := statusMeanings[s]; ok {
		return m
	}
	return "a status this version of mailbot does not know"
}

// registerReply describes a registered domain to the person who asked. For
// domain-activate it holds the verification secrets, verbatim, and both
// ways to publish them.
func (c *Core) registerReply(domain string, d *pdd.Domain) Reply {
	r := Reply{
		Title: "Domain " + domain + " registered",
		Fields: []Field{
			{Label: "Domain", Value: displayDomain(domain)},
			{Label: "Status", Value: fmt.Sprintf("%s (%s)", d.Status, StatusMeaning(d.Status))},
		},
	}
	mx := fmt.Sprintf("Then add an MX record for %s: %s with priority %d, so that mail flows.", domain, mxHost, mxPriority)
	switch d.Status {
	case pdd.StatusDomainActivate:
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
			fmt.Sprintf("Or, instead of the file, add a DNS record: CNAME "+verifyCNAME+" pointing to %s.", s.Name, domain, verifyCNAMETarget),
			mx,
		}
		r.Note = "Only you can see the secrets. The service checks ownership by itself; that can take a few hours."
		r.Buttons = []Button{c.checkButton(domain, s.Name)}
	case pdd.StatusMXActivate:
		r.Text = "The domain is verified."
		r.Steps = []string{fmt.Sprintf("Add an MX record for %s: %s with priority %d, so that mail flows.", domain, mxHost, mxPriority)}
	case pdd.StatusAdded:
		r.Text = fmt.Sprintf("Mail for %s flows. Create mailboxes with /mailbox add <user>@%s.", domain, domain)
	}
	return r
}
