package commands

import (
	"context"

	"github.com/mailbot/mailbot/apiclient"
)

// Provider is what the core needs of a mail-hosting provider's admin API.
// One adapter per provider satisfies it (apiclient/<provider>, one package
// per row of the provider table). Every failure is an *apiclient.Error whose Class says
// what it means (refused, temporary, credentials refused, uncertain); the
// adapter has already retried what may be retried.
type Provider interface {
	// Name is the provider's name: apiclient.ProviderPDD, …
	Name() string
	// Capabilities say what the provider can and cannot do.
	Capabilities() apiclient.Capabilities

	// RegisterDomain adds domain to the account and returns its state.
	RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error)
	// DomainStatus reads domain's state; it changes nothing.
	DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error)
	// MailDNS says what domain's DNS must publish for mail to flow
	// through the provider (it may read a DKIM key or a verification
	// code); it changes nothing. Its read is bounded by
	// apiclient.MailDNSTimeout whatever ctx allows. When the read fails,
	// it returns what is fixed (MX, SPF include or host) beside the error;
	// a name that is not a domain is refused with a nil result.
	MailDNS(ctx context.Context, domain string) (*apiclient.MailDNS, error)
	// MailHosts is the part of MailDNS the provider knows without a
	// request (the MX host, the SPF include or host, PDD's verification
	// target): what a register reply tells the person who asked.
	MailHosts() apiclient.MailDNS

	// AddMailbox creates login@domain with password; forceChange asks
	// that the password be changed at the first login, where the
	// provider can (the result says whether it will).
	AddMailbox(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error)
	// SetPassword sets login@domain's password, as AddMailbox does. It
	// sets a state: an uncertain attempt is retried as it is.
	SetPassword(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error)
	// SetLoginEnabled blocks (false) or unblocks (true) login@domain's
	// logins; where the provider can, a blocked mailbox keeps receiving
	// mail. It sets a state: an uncertain attempt is retried as it is.
	SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error)
	// LookupMailbox reads login@domain; a mailbox that does not exist is
	// an *apiclient.Error of ClassRefused with ReasonNotFound.
	LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error)
	// ResolveMailbox finds the mailbox that login@domain names, before a
	// command acts on an existing mailbox: its own address, ID and state,
	// whether login@domain is only an alias or other name of it, and
	// whether the provider reports it as an administrator or it is the
	// account mailbot acts as. It changes nothing. An address that names
	// no mailbox is an *apiclient.Error of ClassRefused with
	// ReasonNotFound; a provider without aliases or an admin flag answers
	// as LookupMailbox does, with both false.
	ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error)
	// ListMailboxes returns the page of domain's mailboxes that cursor
	// names ("" for the first), at most limit of them where the provider
	// pages; it never loads more than a page from a provider that pages.
	ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error)
}

// providerAs returns p, or the first provider p wraps (a wrapper's
// Unwrap, such as the metrics'), that implements T.
func providerAs[T any](p Provider) (T, bool) {
	for {
		if t, ok := p.(T); ok {
			return t, true
		}
		u, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			var zero T
			return zero, false
		}
		p = u.Unwrap()
	}
}

// NamedAdder is a Provider that keeps a person's name on a mailbox:
// AddNamedMailbox is AddMailbox with the person's given and family names
// (an import's, as written; the add form's split on the last space,
// apiclient.NameOf). The core calls it when a name was given.
type NamedAdder interface {
	AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, password string, forceChange bool) (*apiclient.Mailbox, error)
}

// AddressChooser is a Provider whose new mailbox gets an address of the
// provider's choosing (Capabilities.OwnAddresses: Yandex 360 gives a new
// user its nickname at the organisation's default domain). NewAddress
// says which, before anything is created, so that the allow-list is
// checked on the address the mailbox will have; it changes nothing.
type AddressChooser interface {
	NewAddress(ctx context.Context, domain, login string) (string, error)
}
