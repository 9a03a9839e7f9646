package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
)

// DomainVerifier is a provider that can be asked to check a domain's
// ownership record now (Google's Site Verification), rather than by
// itself later: the status of a domain whose verification TXT record is
// in DNS asks it.
type DomainVerifier interface {
	// VerifyDomain asks the provider to verify domain and returns its
	// state afterwards. A record the provider does not find is refused.
	VerifyDomain(ctx context.Context, domain string) (*apiclient.Domain, error)
}

// ErrNoVerify is VerifyDomain's error where the provider has no such
// call (a wrapper that forwards it to a provider without it).
var ErrNoVerify = errors.New("the provider verifies domains by itself")

// EventVerify is an audit entry of a verification the status of a domain
// asked the provider for.
const EventVerify Event = "verify"

// verifyTXTStep tells the person who asked which TXT record to publish
// at the apex.
func verifyTXTStep(domain, txt string) string {
	return fmt.Sprintf("Prove that you own %s: publish this TXT record at its apex: %s. TXT %s", domain, domain, strconv.Quote(txt))
}

// verifyIfPublished asks the provider to verify d, a domain that is not
// verified and whose verification TXT record is known, once DNS carries
// that record. It records an audit entry verify for actor (a read: no
// approval and no ops notice), and returns the domain as the provider
// then says, with a sentence on what happened: that the record is not in
// DNS yet, or could not be looked up ("" when nothing was looked up).
func (c *readService) verifyIfPublished(ctx context.Context, actor string, d *apiclient.Domain) (*apiclient.Domain, string) {
	v, ok := c.at(d.Name).(DomainVerifier)
	if !ok || c.cfg.DNS == nil || d.Verified || d.VerifyTXT == "" {
		return d, ""
	}
	switch c.txtPublished(ctx, d.Name, d.VerifyTXT) {
	case dnscheck.StateOK:
	case dnscheck.StateMissing:
		return d, "The TXT record is not in DNS yet, as mailbot's resolver sees it: publish it, then ask for the status again."
	default:
		return d, "mailbot could not look the TXT record up in DNS: ask for the status again later."
	}
	e := c.entry(EventVerify, "", actor, ActionDomainStatus, d.Name, "")
	e.Outcome = OutcomeOK
	got, err := v.VerifyDomain(ctx, d.Name)
	var said string
	switch {
	case errors.Is(err, ErrNoVerify):
		return d, ""
	case err != nil:
		e.Outcome, e.Code = OutcomeError, codeOf(err)
		said = "The TXT record is in DNS, but " + c.titleAt(d.Name) + " did not verify the domain yet: " + c.readFailure(d.Name, "verify "+d.Name, err).Text
		got = d
	case got.Verified:
		e.Status = got.Status
		said = "The TXT record is in DNS: mailbot asked " + c.titleAt(d.Name) + " to verify the domain, and it is verified now."
	default:
		e.Status = got.Status
		said = "The TXT record is in DNS: mailbot asked " + c.titleAt(d.Name) + " to verify the domain, which it has not confirmed yet: try again later."
	}
	if rerr := c.store.AppendAudit(ctx, e); rerr != nil {
		c.storeFailed(rerr, "record verify")
	}
	return got, said
}

// codeOf is a provider error's code for the audit trail.
func codeOf(err error) string {
	var e *apiclient.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// txtPublished says whether the apex of domain carries the TXT record
// txt, as the DNS checklist sees it: StateOK, StateMissing, or StateError
// when it could not be looked up.
func (c *readService) txtPublished(ctx context.Context, domain, txt string) dnscheck.State {
	cl := c.cfg.DNS.Check(ctx, domain, dnscheck.Expect{Records: []apiclient.Record{apiclient.VerifyTXT(txt)}})
	for _, it := range cl.Items {
		if it.Kind == dnscheck.KindVerification {
			return it.State
		}
	}
	return dnscheck.StateError
}
