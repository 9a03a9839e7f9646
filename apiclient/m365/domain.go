package m365

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Mail DNS of every Microsoft 365 domain [doc]; the MX host is the
// domain's own, read from serviceConfigurationRecords.
const (
	SPFInclude = "spf.protection.outlook.com"
	MXSuffix   = ".mail.protection.outlook.com"
)

// DKIMSelectors are the two selectors whose CNAMEs DKIM needs (enabled in
// Microsoft Defender, which names their targets in the tenant's own
// domain): their presence is checked, as advice.
var DKIMSelectors = []string{"selector1", "selector2"}

// The domain's states, as Domain.Status holds them.
const (
	StatusVerified   = apiclient.StatusVerified
	StatusUnverified = apiclient.StatusUnverified
)

// domainJSON is the part of a domain of Graph the client reads: the
// name is the one it asked for.
type domainJSON struct {
	IsVerified bool `json:"isVerified"`
}

// newDomain is the body of POST /domains: the name, the only property
// that can be set.
type newDomain struct {
	ID string `json:"id"`
}

// txtRecord is the part of a verification record the client reads: a
// domainDnsTxtRecord's text (the MX alternative has none).
type txtRecord struct {
	RecordType string `json:"recordType"`
	Text       string `json:"text"`
}

// dnsRecord is the part of a service configuration record (a
// domainDnsRecord of any kind) the checklist reads.
type dnsRecord struct {
	RecordType       string `json:"recordType"`
	SupportedService string `json:"supportedService"` // mail's are "Email"
	Label            string `json:"label"`
	MailExchange     string `json:"mailExchange"`
	CanonicalName    string `json:"canonicalName"`
	Preference       int    `json:"preference"`
}

// RegisterDomain adds the domain to the tenant (POST /domains) and reads
// its verification record: the result is unverified, with the MS=ms… TXT
// record to publish at the apex (VerifyTXT, for the person who asked). A
// domain the tenant has already is read, not refused. When the record
// cannot be read after the domain was added, the result says so in a
// warning.
func (c *Client) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	n, err := domainName(apiclient.OpRegister, domain)
	if err != nil {
		return nil, err
	}
	return c.txtDomains().Register(ctx, n)
}

// txtDomains is the register and status flow of a domain proved by a TXT
// record, in this adapter's calls.
func (c *Client) txtDomains() apiclient.TXTDomains {
	return apiclient.TXTDomains{Add: c.addDomain, Get: c.getDomain, Record: c.verificationTXT}
}

// addDomain adds n to the tenant and says whether it is verified already.
func (c *Client) addDomain(ctx context.Context, n string) (verified bool, err error) {
	var added domainJSON
	err = c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: apiclient.OpRegister, Method: http.MethodPost, Path: "v1.0/domains",
		In: newDomain{ID: n}, Out: &added, Create: true}})
	return added.IsVerified, err
}

// DomainStatus reads the domain (GET /domains/{id}): verified or not, and
// for an unverified one the TXT record to publish.
func (c *Client) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	n, err := domainName(apiclient.OpDomainStatus, domain)
	if err != nil {
		return nil, err
	}
	return c.txtDomains().Status(ctx, n)
}

// domainSelect asks a domain's GET for what domainJSON reads.
func domainSelect() url.Values { return url.Values{"$select": {"isVerified"}} }

// getDomain is GET /domains/{id}, of the properties the client reads.
func (c *Client) getDomain(ctx context.Context, op apiclient.Op, n string) (*apiclient.Domain, error) {
	var d domainJSON
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodGet, Path: "v1.0/domains/" + url.PathEscape(n),
		Query: domainSelect(), Out: &d}}); err != nil {
		return nil, err
	}
	return apiclient.TXTDomain(n, d.IsVerified), nil
}

// VerifyDomain asks Microsoft to check the domain's TXT record now (POST
// /domains/{id}/verify) and returns the domain as it answers. A record
// that is not found is a refusal (HTTP 400) in Graph's words.
func (c *Client) VerifyDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	op := apiclient.OpVerify
	n, err := domainName(op, domain)
	if err != nil {
		return nil, err
	}
	var d domainJSON
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodPost,
		Path: "v1.0/domains/" + url.PathEscape(n) + "/verify", Out: &d}}); err != nil {
		return nil, err
	}
	return apiclient.TXTDomain(n, d.IsVerified), nil
}

// records is GET /domains/{id}/<kind> (verificationDnsRecords or
// serviceConfigurationRecords), each record decoded as an R: only the
// fields the caller reads.
func records[R any](ctx context.Context, c *Client, op apiclient.Op, n, kind string) ([]R, error) {
	var out struct {
		Value []R `json:"value"`
	}
	err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodGet,
		Path: "v1.0/domains/" + url.PathEscape(n) + "/" + kind, Out: &out}})
	return out.Value, err
}

// verificationTXT is the domain's MS=ms… verification record.
func (c *Client) verificationTXT(ctx context.Context, op apiclient.Op, n string) (string, error) {
	recs, err := records[txtRecord](ctx, c, op, n, "verificationDnsRecords")
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if strings.EqualFold(r.RecordType, "Txt") && strings.HasPrefix(r.Text, "MS=") && len(r.Text) <= 255 && !strings.ContainsAny(r.Text, "\"\r\n") {
			return r.Text, nil
		}
	}
	return "", c.caller.Fail(op, apiclient.ClassUncertain, http.StatusOK, "", "Microsoft Graph answered without a usable TXT verification record")
}

// MailHosts is the part of MailDNS that needs no request: the SPF include
// and the DKIM CNAMEs (the MX host is the domain's own).
func (c *Client) MailHosts() apiclient.MailDNS {
	rs := []apiclient.Record{apiclient.SPFInclude(SPFInclude)}
	for _, sel := range DKIMSelectors {
		rs = append(rs, apiclient.Record{Purpose: apiclient.PurposeDKIM, Type: apiclient.TypeCNAME, Name: sel + "._domainkey",
			Match: apiclient.MatchPresent, Advice: true})
	}
	return apiclient.MailDNS{Records: rs}
}

// PurposeAutodiscover is the record Outlook finds the mailbox's settings
// by: a CNAME autodiscover.<domain> to autodiscover.outlook.com.
const PurposeAutodiscover = "Autodiscover"

// MailDNS says what the domain must publish: the MX host, SPF include and
// autodiscover CNAME of serviceConfigurationRecords (the usual MX and SPF,
// from the domain's name, when they cannot be read), DKIM's two CNAMEs
// and autodiscover as advice, and for a domain not verified yet its
// verification record, all read within apiclient.MailDNSTimeout.
func (c *Client) MailDNS(ctx context.Context, domain string) (*apiclient.MailDNS, error) {
	op := apiclient.OpDNS
	n, err := domainName(op, domain)
	if err != nil {
		return nil, err
	}
	hosts := c.MailHosts()
	dns := &apiclient.MailDNS{Records: append([]apiclient.Record{apiclient.MXSet(apiclient.MXRecord{Host: strings.ReplaceAll(n, ".", "-") + MXSuffix})},
		hosts.Records...)}
	ctx, cancel := context.WithTimeout(ctx, apiclient.MailDNSTimeout)
	defer cancel()
	recs, err := records[dnsRecord](ctx, c, op, n, "serviceConfigurationRecords")
	if err != nil {
		return dns, err
	}
	dns.Records = append(dns.Records, serviceRecords(dns.Records[0], n, recs)...)
	d, err := c.getDomain(ctx, op, n)
	if err != nil || d.Verified {
		return dns, err
	}
	txt, err := c.verificationTXT(ctx, op, n)
	if err == nil {
		dns.Records = append(dns.Records, apiclient.VerifyTXT(txt))
	}
	return dns, err
}

// serviceRecords reads the Email service's records of
// serviceConfigurationRecords (Teams' and Intune's, listed beside them,
// are no mail's): the MX host and its preference (into mx, the MX
// record), and the autodiscover CNAME, which it returns as advice (mail
// flows without it).
func serviceRecords(mx apiclient.Record, n string, recs []dnsRecord) []apiclient.Record {
	var out []apiclient.Record
	for _, r := range recs {
		switch {
		case !strings.EqualFold(r.SupportedService, "Email"):
			continue
		case strings.EqualFold(r.RecordType, "Mx") && r.MailExchange != "":
			mx.MX[0] = apiclient.MXRecord{Pref: uint16(min(max(r.Preference, 0), 65535)), Host: strings.ToLower(r.MailExchange)}
		case strings.EqualFold(r.RecordType, "CName") && r.CanonicalName != "" && strings.HasSuffix(strings.ToLower(r.Label), "."+n):
			name := strings.TrimSuffix(strings.ToLower(r.Label), "."+n)
			out = append(out, apiclient.Record{Purpose: PurposeAutodiscover, Type: apiclient.TypeCNAME, Name: name,
				Value: strings.ToLower(strings.TrimSuffix(r.CanonicalName, ".")), Advice: true})
		}
	}
	return out
}
