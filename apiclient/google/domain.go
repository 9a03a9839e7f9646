package google

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Mail DNS of every Workspace domain [doc].
const (
	MX           = "smtp.google.com"
	SPFInclude   = "_spf.google.com"
	DKIMSelector = "google"
)

// MethodDNSTXT is the verification method mailbot uses: a TXT record at
// the domain's apex.
const MethodDNSTXT = "DNS_TXT"

// The domain's states in the Directory, as Domain.Status holds them.
const (
	StatusVerified   = apiclient.StatusVerified
	StatusUnverified = apiclient.StatusUnverified
)

// MXSets are the MX record sets Google accepts: the single record of
// accounts since 2023, or the older five. The domain publishes one.
var MXSets = []apiclient.Record{
	apiclient.MXSet(apiclient.MXRecord{Pref: 1, Host: "smtp.google.com"}),
	apiclient.MXSet(apiclient.MXRecord{Pref: 1, Host: "aspmx.l.google.com"}, apiclient.MXRecord{Pref: 5, Host: "alt1.aspmx.l.google.com"},
		apiclient.MXRecord{Pref: 5, Host: "alt2.aspmx.l.google.com"}, apiclient.MXRecord{Pref: 10, Host: "alt3.aspmx.l.google.com"},
		apiclient.MXRecord{Pref: 10, Host: "alt4.aspmx.l.google.com"}),
}

// domainJSON is a domain of the Directory API.
type domainJSON struct {
	DomainName string `json:"domainName"`
	Verified   bool   `json:"verified"`
}

// site is a Site Verification resource's site.
type site struct {
	Type       string `json:"type"`
	Identifier string `json:"identifier"`
}

// RegisterDomain adds the domain to the customer (domains.insert), then
// asks Site Verification for its DNS_TXT token: the result is unverified,
// with the TXT record to publish at the apex (VerifyTXT, a secret for the
// person who asked). A domain the customer has already is read, not
// refused. When the token cannot be read after the domain was added, the
// result says so in a warning.
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
	return apiclient.TXTDomains{Add: c.addDomain, Get: c.getDomain, Record: c.siteToken}
}

// addDomain adds n to the customer and says whether it is verified already.
func (c *Client) addDomain(ctx context.Context, n string) (verified bool, err error) {
	var added domainJSON
	err = c.call(ctx, request{Op: apiclient.OpRegister, Method: http.MethodPost, Path: c.domainsPath(), In: map[string]string{"domainName": n}, Out: &added, Create: true})
	return added.Verified, err
}

// DomainStatus reads the domain (domains.get): verified or not, and for an
// unverified one the TXT record to publish (Site Verification's token,
// which asking again does not change).
func (c *Client) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	n, err := domainName(apiclient.OpDomainStatus, domain)
	if err != nil {
		return nil, err
	}
	return c.txtDomains().Status(ctx, n)
}

// getDomain is domains.get.
func (c *Client) getDomain(ctx context.Context, op apiclient.Op, n string) (*apiclient.Domain, error) {
	var d domainJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: c.domainsPath() + "/" + url.PathEscape(n), Out: &d}); err != nil {
		return nil, err
	}
	return apiclient.TXTDomain(n, d.Verified), nil
}

// VerifyDomain asks Site Verification to check the domain's TXT record now
// (webResource.insert with DNS_TXT), then reads the domain again. A record
// that is not found is a refusal (HTTP 400) in the API's words.
func (c *Client) VerifyDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	op := apiclient.OpVerify
	n, err := domainName(op, domain)
	if err != nil {
		return nil, err
	}
	var out struct {
		ID string `json:"id"`
	}
	q := url.Values{"verificationMethod": {MethodDNSTXT}}
	if err := c.call(ctx, request{Op: op, Method: http.MethodPost, Path: "siteVerification/v1/webResource", Query: q,
		In: map[string]site{"site": {Type: "INET_DOMAIN", Identifier: n}}, Out: &out}); err != nil {
		return nil, err
	}
	return c.getDomain(ctx, op, n)
}

// siteToken asks Site Verification for the domain's DNS_TXT token.
func (c *Client) siteToken(ctx context.Context, op apiclient.Op, n string) (string, error) {
	var out struct {
		Method string `json:"method"`
		Token  string `json:"token"`
	}
	in := map[string]any{"site": site{Type: "INET_DOMAIN", Identifier: n}, "verificationMethod": MethodDNSTXT}
	if err := c.call(ctx, request{Op: op, Method: http.MethodPost, Path: "siteVerification/v1/token", In: in, Out: &out}); err != nil {
		return "", err
	}
	if out.Token == "" || strings.ContainsAny(out.Token, "\"\r\n") || len(out.Token) > 255 {
		return "", c.caller.Fail(op, apiclient.ClassUncertain, http.StatusOK, "", "Site Verification answered without a usable token")
	}
	return out.Token, nil
}

// MailHosts is the part of MailDNS that needs no request: Google's MX
// sets, SPF include and DKIM selector.
func (c *Client) MailHosts() apiclient.MailDNS {
	rs := append([]apiclient.Record{}, MXSets...)
	rs = append(rs, apiclient.SPFInclude(SPFInclude), apiclient.Record{Purpose: apiclient.PurposeDKIM, Type: apiclient.TypeTXT,
		Name: DKIMSelector + "._domainkey", Match: apiclient.MatchPresent, Advice: true})
	return apiclient.MailDNS{Records: rs}
}

// MailDNS says what the domain must publish: the MX sets, SPF including
// _spf.google.com, DKIM at google._domainkey (presence only: Google gives
// the key in the Admin console alone) and the Site Verification TXT
// record, read within apiclient.MailDNSTimeout. When the token cannot be
// read, the rest is returned beside the error.
func (c *Client) MailDNS(ctx context.Context, domain string) (*apiclient.MailDNS, error) {
	n, err := domainName(apiclient.OpDNS, domain)
	if err != nil {
		return nil, err
	}
	hosts := c.MailHosts()
	ctx, cancel := context.WithTimeout(ctx, apiclient.MailDNSTimeout)
	defer cancel()
	tok, err := c.siteToken(ctx, apiclient.OpDNS, n)
	if err != nil {
		return &hosts, err
	}
	hosts.Records = append(hosts.Records, apiclient.VerifyTXT(tok))
	return &hosts, nil
}
