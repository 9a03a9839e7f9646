package pdd

import "context"

// Status is a domain's state at PDD.
type Status string

// PDD's three domain statuses, untyped: they compare with a [Status]
// and with apiclient.Domain's Status alike.
const (
	StatusDomainActivate = "domain-activate" // added, ownership not verified
	StatusMXActivate     = "mx-activate"     // verified, MX record not set up
	StatusAdded          = "added"           // verified, MX set up: mail flows
)

// Stage duplicates Status, for the service's internal use.
type Stage string

// The stages paired with each status.
const (
	StageOwnerCheck Stage = "owner-check"
	StageMXCheck    Stage = "mx-check"
	StageAdded      Stage = "added"
)

// Known reports whether s is one of PDD's domain statuses.
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

// RegisterDomain registers domain as [Adapter.RegisterDomain] does, with
// the old client's result and errors (see [Client]).
func (c *Client) RegisterDomain(ctx context.Context, domain string) (*Domain, error) {
	d, err := c.a.RegisterDomain(ctx, domain)
	if err != nil {
		return nil, legacyError(OpRegisterDomain, err)
	}
	return &Domain{Name: d.Name, Status: Status(d.Status), Stage: Stage(d.Stage), Secrets: (*Secrets)(d.Secrets)}, nil
}
