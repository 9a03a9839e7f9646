package yandex360

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Mail DNS of every Yandex 360 domain, as for PDD.
const (
	MX         = "mx.yandex.net"
	SPFInclude = "_spf.yandex.net"
	MXPref     = 10 // the preference the MX record is published with
)

// domainJSON is a domain of DomainService_Create and of the domain list.
type domainJSON struct {
	Name     string `json:"name"`
	Verified bool   `json:"verified"`
	Master   bool   `json:"master"` // the organisation's default domain
}

// domainList is the answer of GET …/domains.
type domainList struct {
	Domains []domainJSON `json:"domains"`
	Page    int          `json:"page"`
	Pages   int          `json:"pages"`
}

// statusJSON is the answer of DomainService_Status.
type statusJSON struct {
	Status  string `json:"status"`
	Methods []struct {
		Method string `json:"method"`
		Code   string `json:"code"`
	} `json:"methods"`
}

// RegisterDomain adds the domain to the organisation (POST
// /directory/v1/org/{orgId}/domains), then reads its verification status.
// A domain the organisation has already is read, not refused, as PDD
// answers its owner. When the status cannot be read after the domain was
// added, the result says so in a warning.
func (c *Client) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	op := apiclient.OpRegister
	name, err := c.domainName(op, domain)
	if err != nil {
		return nil, err
	}
	path, err := c.orgPath(op, "domains")
	if err != nil {
		return nil, err
	}
	var added domainJSON
	err = c.call(ctx, request{Op: op, Method: http.MethodPost, Path: path, In: map[string]string{"domain": name}, Out: &added, Create: true})
	if apiclient.ReasonOf(err) == apiclient.ReasonExists {
		if d, serr := c.domainState(ctx, op, name); serr == nil {
			d.Existed = true // ours already
			return d, nil
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	d, err := c.status(ctx, op, name)
	if err != nil {
		return &apiclient.Domain{Name: name, Verified: added.Verified,
			Warnings: []string{"the domain was added; its verification status could not be read: " + err.Error()}}, nil
	}
	d.Verified = added.Verified
	return d, nil
}

// DomainStatus reads whether the domain is verified (the domain list) and
// its verification status and methods (DomainService_Status).
func (c *Client) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	name, err := c.domainName(apiclient.OpDomainStatus, domain)
	if err != nil {
		return nil, err
	}
	return c.domainState(ctx, apiclient.OpDomainStatus, name)
}

// MailHosts is the part of MailDNS that needs no request: Yandex's MX
// host and SPF include.
func (c *Client) MailHosts() apiclient.MailDNS {
	return apiclient.MailDNS{Records: []apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: MXPref, Host: MX}), apiclient.SPFInclude(SPFInclude)}}
}

// MailDNS says what the domain must publish: MX mx.yandex.net, SPF
// including _spf.yandex.net, and the verification methods of its status
// (shown: Yandex checks them itself), read within
// apiclient.MailDNSTimeout. When the status cannot be read, the MX and
// SPF rule are returned beside the error; a name that is no domain is
// refused with no result.
func (c *Client) MailDNS(ctx context.Context, domain string) (*apiclient.MailDNS, error) {
	name, err := c.domainName(apiclient.OpDNS, domain)
	if err != nil {
		return nil, err // not a domain: nothing to publish
	}
	hosts := c.MailHosts()
	dns := &hosts
	ctx, cancel := context.WithTimeout(ctx, apiclient.MailDNSTimeout)
	defer cancel()
	d, err := c.status(ctx, apiclient.OpDNS, name)
	if err != nil {
		return dns, err
	}
	for _, m := range d.Methods {
		dns.Records = append(dns.Records, apiclient.Record{Purpose: apiclient.PurposeVerification,
			Label: m.Method, Value: m.Code, Match: apiclient.MatchShown, Secret: true})
	}
	return dns, nil
}

// domainState is the domain as the list and the status call show it.
func (c *Client) domainState(ctx context.Context, op apiclient.Op, name string) (*apiclient.Domain, error) {
	listed, err := c.findDomain(ctx, op, name)
	if err != nil {
		return nil, err
	}
	d, err := c.status(ctx, op, name)
	if err != nil {
		return nil, err
	}
	d.Verified = listed.Verified
	return d, nil
}

// status reads GET …/domains/{domain}/status: the status and methods as
// received.
func (c *Client) status(ctx context.Context, op apiclient.Op, name string) (*apiclient.Domain, error) {
	path, err := c.orgPath(op, "domains/"+url.PathEscape(name)+"/status")
	if err != nil {
		return nil, err
	}
	var s statusJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: path, Out: &s}); err != nil {
		return nil, err
	}
	d := &apiclient.Domain{Name: name, Status: s.Status}
	for _, m := range s.Methods {
		d.Methods = append(d.Methods, apiclient.VerifyMethod{Method: m.Method, Code: m.Code, Record: methodRecord(name, m.Method, m.Code)})
	}
	return d, nil
}

// methodDNS is Yandex's DNS verification method, as the status call names
// it (the Webmaster methods: webmaster.dns, webmaster.meta, webmaster.file).
const methodDNS = "webmaster.dns"

// methodRecord says where and what to publish for a verification method
// whose record Yandex documents: for the DNS method, a TXT record at the
// domain whose value is "yandex-verification: <code>" (Yandex Webmaster's
// verification, which Yandex 360 uses); "" for the others.
func methodRecord(domain, method, code string) string {
	if method != methodDNS || code == "" {
		return ""
	}
	return "a TXT record at " + domain + " with the value yandex-verification: " + code
}

// findDomain pages through the organisation's domains for name; a domain
// that is not there is refused as not found.
func (c *Client) findDomain(ctx context.Context, op apiclient.Op, name string) (*domainJSON, error) {
	var found *domainJSON
	err := c.eachDomain(ctx, op, func(d *domainJSON) bool {
		if strings.EqualFold(strings.TrimSuffix(d.Name, "."), name) {
			found = d
			return false
		}
		return true
	})
	if err == nil && found == nil {
		err = c.refuse(op, apiclient.ReasonNotFound, "the domain is not one of the organisation's")
	}
	return found, err
}

// eachDomain pages through the organisation's domains, calling fn on each
// until it returns false.
func (c *Client) eachDomain(ctx context.Context, op apiclient.Op, fn func(d *domainJSON) bool) error {
	path, err := c.orgPath(op, "domains")
	if err != nil {
		return err
	}
	for page := 1; page <= maxPages; page++ {
		var l domainList
		q := url.Values{"page": {strconv.Itoa(page)}, "perPage": {strconv.Itoa(perPage)}}
		if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: path, Query: q, Out: &l}); err != nil {
			return err
		}
		for i := range l.Domains {
			if !fn(&l.Domains[i]) {
				return nil
			}
		}
		if page >= l.Pages || len(l.Domains) == 0 {
			return nil
		}
	}
	return nil
}

// masterDomain pages through the organisation's domains once: name must be
// among them (else ReasonNotFound), and the result is the default (master)
// domain, or name where none is marked.
func (c *Client) masterDomain(ctx context.Context, op apiclient.Op, name string) (string, error) {
	found, master := false, ""
	err := c.eachDomain(ctx, op, func(d *domainJSON) bool {
		n := strings.ToLower(strings.TrimSuffix(d.Name, "."))
		found = found || n == name
		if d.Master && master == "" {
			master = n
		}
		return !found || master == ""
	})
	switch {
	case err != nil:
		return "", err
	case !found:
		return "", c.refuse(op, apiclient.ReasonNotFound, "the domain is not one of the organisation's")
	case master == "":
		return name, nil
	}
	return master, nil
}
