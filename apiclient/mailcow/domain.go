package mailcow

import (
	"context"
	"net/http"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// The limits a new domain gets (quotas in MiB): generous caps, for an
// administrator to change in mailcow's UI. A new mailbox gets the
// domain's default quota.
const (
	DomainMailboxes     = 1000
	DomainAliases       = 1000
	MailboxDefaultQuota = 1024                                  // 1 GiB
	MailboxMaxQuota     = 10240                                 // 10 GiB
	DomainQuota         = DomainMailboxes * MailboxDefaultQuota // every mailbox at the default
)

// addDomainBody is POST /api/v1/add/domain's body.
type addDomainBody struct {
	Domain    string `json:"domain"`
	Active    int    `json:"active"`
	Mailboxes int    `json:"mailboxes"`
	Aliases   int    `json:"aliases"`
	Quota     int    `json:"quota"`
	MaxQuota  int    `json:"maxquota"`
	DefQuota  int    `json:"defquota"`
}

// domainJSON is GET /api/v1/get/domain/{domain}'s answer, in part.
type domainJSON struct {
	Name         string `json:"domain_name"`
	Active       number `json:"active"`
	Mailboxes    number `json:"mboxes_in_domain"`
	MaxMailboxes number `json:"max_num_mboxes_for_domain"`
	DefQuota     number `json:"def_quota_for_mbox"` // bytes
}

// mib is a mebibyte: mailcow's writes take quotas in MiB, its reads give
// bytes.
const mib = 1 << 20

// RegisterDomain calls POST /api/v1/add/domain (active, with the limits
// above), then reads the domain's state. mailcow checks no ownership: the
// domain is Verified and works once its DNS points at the server. When
// the read fails after the domain was added, the result says so in a
// warning.
func (c *Client) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	name := strings.ToLower(domain)
	body := addDomainBody{Domain: name, Active: 1, Mailboxes: DomainMailboxes, Aliases: DomainAliases,
		Quota: DomainQuota, MaxQuota: MailboxMaxQuota, DefQuota: MailboxDefaultQuota}
	warnings, err := c.write(ctx, call{op: apiclient.OpRegister, path: "add/domain"}, body, apiclient.ReasonNotAllowed)
	if err != nil {
		return nil, err
	}
	d, err := c.domain(ctx, apiclient.OpRegister, name)
	if err != nil {
		d = &apiclient.Domain{Name: name, Status: "active", Verified: true}
		warnings = append(warnings, "the domain was added, but reading its state failed: "+err.Error())
	}
	d.Warnings = warnings
	return d, nil
}

// DomainStatus calls GET /api/v1/get/domain/{domain}: active or not, and
// the count and limit of mailboxes. An unknown domain is ReasonNotFound.
func (c *Client) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	return c.domain(ctx, apiclient.OpDomainStatus, strings.ToLower(domain))
}

func (c *Client) domain(ctx context.Context, op apiclient.Op, name string) (*apiclient.Domain, error) {
	v, err := c.domainInfo(ctx, op, name, "")
	if err != nil {
		return nil, err
	}
	status := "inactive"
	if v.Active == 1 {
		status = "active"
	}
	return &apiclient.Domain{Name: name, Status: status, Verified: true,
		Mailboxes: int(v.Mailboxes), MaxMailboxes: int(v.MaxMailboxes)}, nil
}

// domainInfo reads GET /api/v1/get/domain/{domain}, for an operation that
// carries password ("" for none); an unknown domain ({}) is
// ReasonNotFound.
func (c *Client) domainInfo(ctx context.Context, op apiclient.Op, name, password string) (*domainJSON, error) {
	seg, err := c.segment(op, name)
	if err != nil {
		return nil, err
	}
	var v domainJSON
	found, err := c.readKeeping(ctx, op, "get/domain/"+seg, password, &v)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, c.notFound(op, "the domain is not on the mailcow server")
	}
	return &v, nil
}

// dkimJSON is GET /api/v1/get/dkim/{domain}'s answer, in part.
type dkimJSON struct {
	Selector  string `json:"dkim_selector"`
	PublicKey string `json:"pubkey"`
}

// MailHosts is the part of MailDNS that needs no request: the server's
// MX host (MAILCOW_MX), which SPF must authorise too.
func (c *Client) MailHosts() apiclient.MailDNS {
	return apiclient.MailDNS{Records: []apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: MXPref, Host: c.mx}), apiclient.SPFHost(c.mx)}}
}

// MXPref is the preference the MX record is published with.
const MXPref = 10

// MailDNS says what the domain's DNS must publish: MX and SPF naming the
// configured MX host, and the DKIM key of GET /api/v1/get/dkim/{domain}
// when the server has one, read within apiclient.MailDNSTimeout. When the
// key cannot be read, the MX and SPF rule are returned beside the error; a
// name that is no domain is refused with no result.
func (c *Client) MailDNS(ctx context.Context, domain string) (*apiclient.MailDNS, error) {
	seg, err := c.segment(apiclient.OpDNS, strings.ToLower(domain))
	if err != nil {
		return nil, err // not a domain: nothing to publish
	}
	hosts := c.MailHosts()
	dns := &hosts
	ctx, cancel := context.WithTimeout(ctx, apiclient.MailDNSTimeout)
	defer cancel()
	var v dkimJSON
	found, err := c.read(ctx, apiclient.OpDNS, "get/dkim/"+seg, &v)
	if err != nil {
		return dns, err
	}
	if found && v.PublicKey != "" && v.Selector != "" {
		dns.Records = append(dns.Records, apiclient.DKIMRecord(apiclient.DKIMKey{Selector: v.Selector, PublicKey: v.PublicKey}))
	}
	return dns, nil
}

// notFound is the refusal of a read answered {}: mailcow's way of saying
// it has nothing, not a code of its own, so the error has none.
func (c *Client) notFound(op apiclient.Op, words string) *apiclient.Error {
	e := c.caller.Fail(op, apiclient.ClassRefused, http.StatusOK, "", words)
	e.Reason = apiclient.ReasonNotFound
	e.Sent = true
	return e
}
