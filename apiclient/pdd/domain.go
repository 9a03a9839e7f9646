package pdd

import (
	"github.com/mailbot/mailbot/apiclient"

	"context"
	"fmt"
	"net/url"
)

// Status is a domain's state (seed §3).
type Status string

// The domain statuses of seed §3.
const (
	StatusDomainActivate Status = "domain-activate" // added, ownership not verified
	StatusMXActivate     Status = "mx-activate"     // verified, MX record not set up
	StatusAdded          Status = "added"           // verified, MX set up: mail flows
)

// Stage duplicates Status, for the service's internal use (seed §3).
type Stage string

// The stages paired with each status.
const (
	StageOwnerCheck Stage = "owner-check"
	StageMXCheck    Stage = "mx-check"
	StageAdded      Stage = "added"
)

// Known reports whether s is one of the statuses of seed §3.
func (s Status) Known() bool {
	switch s {
	case StatusDomainActivate, StatusMXActivate, StatusAdded:
		return true
	}
	return false
}

// Secrets prove ownership of a domain: publish a file (or a CNAME record)
// named after Name whose content is Content. They are secret: show them
// only to the person who asked.
type Secrets struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// Domain is a registered domain as the register operation describes it.
type Domain struct {
	Name    string
	Status  Status
	Stage   Stage
	Secrets *Secrets // only while Status is StatusDomainActivate
}

// RegisterDomain calls POST /api2/admin/domain/register (seed §4.1).
//
// Retries: the temporary failure "unknown", a request that was never sent,
// and a request that got no answer (a timeout, a reset, a 5xx) are retried
// under the retry policy: registering one's own domain again is harmless.
func (c *Client) RegisterDomain(ctx context.Context, domain string) (*Domain, error) {
	r, err := c.call(ctx, OpRegisterDomain, url.Values{"domain": {domain}}, true)
	if err != nil {
		return nil, err
	}
	return domainOf(r, domain, c.token)
}

// domainOf reads the domain of a successful register answer for the domain
// asked for.
func domainOf(r *response, asked string, secrets ...string) (*Domain, error) {
	d := &Domain{Name: r.Domain, Status: Status(r.Status), Stage: Stage(r.Stage), Secrets: r.Secrets}
	if d.Name == "" {
		d.Name = asked
	}
	if !d.Status.Known() {
		return nil, &ResponseError{Op: OpRegisterDomain, StatusCode: 200, Reason: fmt.Sprintf("unknown domain status %q", apiclient.Excerpt([]byte(r.Status), apiclient.ExcerptLen, secrets...))}
	}
	if d.Status == StatusDomainActivate && (d.Secrets == nil || d.Secrets.Name == "" || d.Secrets.Content == "") {
		return nil, &ResponseError{Op: OpRegisterDomain, StatusCode: 200, Reason: "status domain-activate without verification secrets"}
	}
	return d, nil
}
