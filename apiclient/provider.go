package apiclient

import (
	"errors"
	"fmt"
	"time"
)

// The providers mailbot can drive, by the names configuration, metrics
// and the audit trail use.
const (
	ProviderPDD       = "pdd"
	ProviderYandex360 = "yandex360"
	ProviderMailcow   = "mailcow"
	ProviderGoogle    = "google"
	ProviderM365      = "m365"
)

// Op is an operation on a provider, named alike for every provider (in
// errors, logs and the provider_* metrics).
type Op string

// The operations every provider adapter carries out.
const (
	OpRegister     Op = "register" // add a domain
	OpDomainStatus Op = "status"   // read a domain's state
	OpAdd          Op = "add"      // create a mailbox
	OpReset        Op = "reset"    // set a mailbox's password
	OpBlock        Op = "block"    // stop a mailbox's logins
	OpUnblock      Op = "unblock"  // let a mailbox log in again
	OpList         Op = "list"     // one page of a domain's mailboxes
	OpLookup       Op = "lookup"   // one mailbox, by address
	OpCheck        Op = "check"    // a read call at start that proves the credentials
	OpDNS          Op = "dns"      // what the domain's DNS must publish (a DKIM key, a verification code)
	OpVerify       Op = "verify"   // ask the provider to check a domain's ownership record now
	OpResolve      Op = "resolve"  // find the mailbox an address names, before a command acts on it
)

// The alias operations of a provider that has aliases.
const (
	OpAliasAdd    Op = "alias_add"    // make an alias deliver to a mailbox
	OpAliasRemove Op = "alias_remove" // remove an alias
	OpAliasMove   Op = "alias_move"   // make an alias deliver to another mailbox
	OpAliases     Op = "aliases"      // read a mailbox's aliases
)

// Ops lists every operation, for metrics that start every series at 0.
func Ops() []Op {
	return []Op{OpRegister, OpDomainStatus, OpAdd, OpReset, OpBlock, OpUnblock, OpList, OpLookup, OpCheck, OpDNS, OpVerify, OpResolve,
		OpAliasAdd, OpAliasRemove, OpAliasMove, OpAliases}
}

// Class sorts every failure of a provider call the same way, whatever the
// provider: what it means for the person who asked and whether trying
// again can help.
type Class int

// The classes of a failure.
const (
	// ClassRefused: the provider answered and refused (invalid input, the
	// object exists or is not found, a limit, not allowed). Nothing was
	// done; trying again the same way will not help. Never retried.
	ClassRefused Class = iota + 1
	// ClassTemporary: the provider certainly did nothing and a later
	// attempt may work (HTTP 429 or 5xx to a call that changes nothing or
	// sets a state, a connection that failed before the request was
	// sent, PDD's "unknown"). Retried with backoff before it is reported.
	ClassTemporary
	// ClassCredentials: the provider refused mailbot's token or key
	// (PDD bad_token, HTTP 401 or 403). Never retried: an operator must
	// fix the variable.
	ClassCredentials
	// ClassUncertain: the request may have been carried out and no answer
	// says whether it was (sent and no answer, an answer lost or garbled,
	// a 5xx to a create).
	ClassUncertain
)

// String is the class's name in metrics and logs.
func (c Class) String() string {
	switch c {
	case ClassRefused:
		return "refused"
	case ClassTemporary:
		return "temporary"
	case ClassCredentials:
		return "credentials"
	case ClassUncertain:
		return "uncertain"
	}
	return "internal"
}

// Reason refines a refusal, so that the core can answer in its own words.
type Reason string

// The reasons of a refusal; "" when the provider's answer says no more.
const (
	ReasonInvalid    Reason = "invalid"     // the input breaks the provider's rules
	ReasonExists     Reason = "exists"      // the domain or mailbox exists already
	ReasonNotFound   Reason = "not_found"   // no such domain or mailbox
	ReasonLimit      Reason = "limit"       // a quota or limit of the account
	ReasonNotAllowed Reason = "not_allowed" // the account may not touch this domain
	ReasonPassword   Reason = "password"    // the provider's password rules refused the password
)

// UnknownCode is the words for a provider's error code that its adapter
// does not know: the reply shows the code as received, and this.
const UnknownCode = "an error code this version of mailbot does not know"

// Error is every failure of a provider call. Its texts never hold a
// token, a key, a password or a verification secret: Code and Message are
// cut and redacted by the adapter ([CutCode], [Excerpt]).
type Error struct {
	Provider string // ProviderPDD, …
	Op       Op
	Class    Class
	Reason   Reason // for ClassRefused, when known
	// Code is the provider's own code as received, cut to MaxCodeLen:
	// PDD's "occupied", mailcow's "object_exists", Yandex 360's "HTTP 409".
	// Empty when there was no answer.
	Code string
	// Message is what the code means in words: the adapter's description
	// of a known code, or the provider's own message (cut, redacted).
	Message    string
	HTTPStatus int           // 0 without an answer
	Attempts   int           // requests sent in all, retries included
	RetryAfter time.Duration // the provider's Retry-After, when it sent one
	Timeout    bool          // no answer in time
	// Sent: the last attempt may have reached the provider.
	Sent bool
	// Setting names the setting an operator must fix, for ClassCredentials,
	// when the adapter knows that it is not the provider's usual
	// credentials variable (Google: GOOGLE_ADMIN, the admin mailbot acts
	// as, rather than GOOGLE_CREDENTIALS, the key). Empty: the provider's
	// credentials variable, as the core is configured to name it.
	Setting string
	Err     error // the underlying failure (a transport error), if any
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s %s: %s", e.Provider, e.Op, e.Class)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Message != "" {
		s += " (" + e.Message + ")"
	}
	if e.Err != nil {
		s += ": " + Scrub(e.Err.Error(), maxCauseText)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// maxCauseText bounds the text of an underlying failure in an error: the
// HTTP client quotes a malformed answer's first line in its errors.
const maxCauseText = 200

// ClassOf returns the class of err, a provider failure, or 0 for nil or an
// error that is not an *Error (a bug: the core reports it as internal).
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return 0
}

// ReasonOf returns the reason of a refusal, or "".
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) && e.Class == ClassRefused {
		return e.Reason
	}
	return ""
}

// NothingDone reports whether err means that the provider certainly
// changed nothing and that a later attempt may succeed: the operation may
// be offered again (an approval is not used up).
func NothingDone(err error) bool { return ClassOf(err) == ClassTemporary }

// MayHaveHappened reports whether err leaves it open whether the
// operation happened. It is never true together with [NothingDone].
func MayHaveHappened(err error) bool { return ClassOf(err) == ClassUncertain }

// Capabilities say what a provider can and cannot do, so that the core
// promises only what happens.
type Capabilities struct {
	// Title names the provider in replies and notices: "the PDD API",
	// "Yandex 360", "mailcow".
	Title string
	// ForcePasswordChange: a mailbox can be required to change its
	// password at its next login.
	ForcePasswordChange bool
	// KeepsMailWhenBlocked: a mailbox whose logins are blocked still
	// receives mail.
	KeepsMailWhenBlocked bool
	// NoMailWhenBlocked: the provider documents that a blocked mailbox
	// receives no new mail (Google: a suspended user).
	NoMailWhenBlocked bool
	// UIDs: mailboxes have a numeric ID besides their address.
	UIDs bool
	// Paged: the provider lists mailboxes a page at a time; false means
	// one call returns them all.
	Paged bool
	// RegisterAnswersAsNew: the provider answers a register of a domain
	// the account already has as it answers a first one (PDD, while the
	// domain is unverified), so a register reads the domain's status
	// first: one read more, and a repeat says it was registered already.
	RegisterAnswersAsNew bool
	// VerifiesOwnership: a new domain must prove its owner before it
	// works (PDD, Yandex 360); mailcow works once DNS points at it.
	VerifiesOwnership bool
	// OwnAddresses: users belong to an organisation, not to a domain
	// (Yandex 360). An address names the user with that user name in any
	// of the organisation's domains, and the user's own address, as
	// LookupMailbox and AddMailbox give it, may be at another one: the
	// allow-list and every reply use that address, and a domain's list is
	// the organisation's users.
	OwnAddresses bool
	// Aliases: the provider has aliases, addresses that deliver to a
	// mailbox, and its adapter implements the core's alias interface.
	Aliases bool
	// OrgWideAliases: an alias is a name valid in every domain of the
	// organisation (Yandex 360), not one address; its domain must be one
	// of the organisation's.
	OrgWideAliases bool
	// ReadOnlyAliases: the provider's API can read a mailbox's aliases but
	// not change them (Microsoft Graph's proxyAddresses): alias add and
	// remove, and an offboarding to a successor, are refused before any
	// call.
	ReadOnlyAliases bool
	// AliasConsole, with ReadOnlyAliases, names where aliases are changed
	// instead ("the Exchange admin center").
	AliasConsole string
}

// Domain is a provider's view of a domain.
type Domain struct {
	Name string // lower case, ASCII (punycode), no trailing dot
	// Status is the provider's own word for the domain's state, as
	// received: PDD's "domain-activate", "mx-activate", "added"; Yandex
	// 360's status; mailcow's "active" or "inactive".
	Status string
	// Meaning is what Status means in words, where the provider's status
	// is a code with a documented meaning (PDD); "" elsewhere.
	Meaning string
	Stage   string // PDD's stage; "" elsewhere
	// Verified: ownership is proven (always true where the provider does
	// not verify ownership).
	Verified bool
	// MailFlows: the provider says the domain's mail reaches it (PDD's
	// "added"); false where it does not say.
	MailFlows bool
	// Secrets are PDD's verification secrets while domain-activate.
	Secrets *Secrets
	// Methods are Yandex 360's verification methods and codes, as
	// received. Like Secrets, they go only to the person who asked.
	Methods []VerifyMethod
	// VerifyTXT is the TXT record the domain's apex must carry to prove
	// its owner, while it is not verified (Google's
	// "google-site-verification=..."). Like Secrets, it goes only to the
	// person who asked.
	VerifyTXT string
	// Mailboxes and MaxMailboxes are mailcow's count and limit of
	// mailboxes (0 when unknown or unlimited).
	Mailboxes, MaxMailboxes int
	// Warnings are a partial success's notes (mailcow's "warning"
	// entries), to be shown with the result.
	Warnings []string
	// Existed, on a register: the account had the domain already and
	// nothing was added (the adapter read it instead).
	Existed bool
}

// Secrets are PDD's domain verification secrets: a file or CNAME name,
// and the file's content.
type Secrets struct {
	Name    string
	Content string
	// File is the address of the file whose whole content is Content;
	// Record is the DNS record that proves ownership instead of the file.
	// Both hold the secret's name: they go only to the person who asked.
	File   string
	Record *Record
}

// VerifyMethod is one way to prove a domain's owner, with its code.
type VerifyMethod struct {
	Method string
	Code   string
	// Record says where and what to publish for this method, in words,
	// where the adapter knows it ("a TXT record at example.com with the
	// value …"); "" where it does not. It holds the code: a secret.
	Record string
}

// MailboxState says whether a mailbox logs in and receives mail.
type MailboxState string

// The states of a mailbox.
const (
	StateActive   MailboxState = "active"   // logs in, receives mail
	StateBlocked  MailboxState = "blocked"  // no logins; mail still accepted where the provider keeps it
	StateInactive MailboxState = "inactive" // mailcow's active 0: no logins, mail refused
)

// Mailbox is a provider's view of a mailbox after an operation or a read.
type Mailbox struct {
	Address string // local@domain, as the provider gives it
	UID     string // the provider's ID ("" where there is none: mailcow)
	State   MailboxState
	// PasswordChangeRequired: the provider will make the mailbox change
	// its password at its next login (as this call set it, or as read).
	PasswordChangeRequired bool
	// Warnings are a partial success's notes.
	Warnings []string
}

// Resolved is the mailbox that an address names, as the provider sees it
// (ResolveMailbox): the mailbox itself, with its own address, and whether
// the address asked for was only another name of it, and whether it is
// an account mailbot must leave alone.
type Resolved struct {
	// Mailbox is the mailbox the address delivers to: Address is its own
	// (primary) address as the provider gives it; UID and State where
	// the provider reads them. For an alias that delivers to several
	// mailboxes (mailcow), Address lists them, comma-separated.
	Mailbox
	// Alias: the address asked for is not the mailbox's own but an alias
	// or other name of it (a Google alias, a mailcow alias, a Yandex 360
	// user's name in another domain of the organisation).
	Alias bool
	// Admin: the provider reports the mailbox as an administrator.
	Admin bool
	// ActsAs: the mailbox is the account mailbot itself acts as (Google's
	// GOOGLE_ADMIN).
	ActsAs bool
}

// Page is one page of a domain's mailboxes.
type Page struct {
	Mailboxes []Mailbox
	// Next is the cursor of the next page, "" on the last one. It is the
	// adapter's own text: pass it back unchanged.
	Next string
	// Total is how many mailboxes the domain has, -1 when unknown.
	Total int
}

// Alias is a provider's answer about one alias: an address that delivers
// to a mailbox.
type Alias struct {
	Address string // local@domain, ASCII
	// Mailbox is the mailbox it delivers to (local@domain) as the
	// provider says, "" when the answer does not say.
	Mailbox string
	// Already: nothing was changed because it was so already (a move of
	// an alias that delivers to the target mailbox alone).
	Already bool
	// Warnings are a partial success's notes.
	Warnings []string
}
