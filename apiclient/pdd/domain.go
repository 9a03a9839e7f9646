package pdd

import (
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

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

// Meaning describes s in words; "" for a status PDD does not document.
func (s Status) Meaning() string {
	switch s {
	case StatusDomainActivate:
		return "the domain has been added, but its ownership is not verified yet"
	case StatusMXActivate:
		return "the domain is verified, but its MX record is not set up, so mail does not flow yet"
	case StatusAdded:
		return "the domain is verified and its MX record is set up: mail flows"
	}
	return ""
}

// Known reports whether s is one of PDD's domain statuses.
func (s Status) Known() bool {
	switch s {
	case StatusDomainActivate, StatusMXActivate, StatusAdded:
		return true
	}
	return false
}

// Secrets are the verification secrets as PDD answers them (the JSON form
// of apiclient.Secrets): publish a file (or a CNAME record) named after
// Name whose content is Content. Show them only to the person who asked.
type Secrets struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// How a domain is verified with its secrets, from the service's public
// documentation: a file at http://<domain>/<secret name>.html (SecretsOf),
// or a CNAME record at verifyPrefix<secret name> pointing to VerifyCNAME.
const verifyPrefix = "yamail-"

// SecretsOf is the verification secrets name and content of domain, with
// the file and the DNS record that publish them.
func SecretsOf(domain, name, content string) *apiclient.Secrets {
	return &apiclient.Secrets{Name: name, Content: content, File: "http://" + domain + "/" + name + ".html",
		Record: &apiclient.Record{Purpose: apiclient.PurposeVerification, Type: apiclient.TypeCNAME,
			Name: verifyPrefix + strings.ToLower(name), Value: VerifyCNAME, Secret: true}}
}
