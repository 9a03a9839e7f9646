// Package commands is mailbot's transport-free core: it parses and checks
// what a person typed, decides who may do what, generates passwords, runs
// operations against the PDD API and describes the results. It knows
// nothing of Slack: the Slack adapter (package bot) and the console
// (mailbot shell) both drive it.
package commands

import (
	"fmt"

	"github.com/mailbot/mailbot/apiclient"
)

// MaxApprovalsRequired bounds Config.ApprovalsRequired.
const MaxApprovalsRequired = 5

// Request is one slash command as a person typed it.
type Request struct {
	UserID    string // who typed it
	ChannelID string // where; empty in the shell
	Command   string // "/maildomain" or "/mailbox"
	Text      string // what follows the command, as Slack sends it
}

// Action is what an operation does. An action that is one call at the
// provider is named by that call's apiclient.Op (the same word in the
// audit trail, the metrics and the provider's errors); offboarding and
// import, which make several calls, have words of their own.
type Action string

// The operations, and the reads that are not operations.
const (
	ActionRegisterDomain = Action(apiclient.OpRegister)     // connect a domain
	ActionAddMailbox     = Action(apiclient.OpAdd)          // create a mailbox with a new password
	ActionResetPassword  = Action(apiclient.OpReset)        // give a mailbox a new password
	ActionBlock          = Action(apiclient.OpBlock)        // stop a mailbox's logins
	ActionUnblock        = Action(apiclient.OpUnblock)      // let a mailbox log in again
	ActionListMailboxes  = Action(apiclient.OpList)         // read: a domain's mailboxes
	ActionDomainStatus   = Action(apiclient.OpDomainStatus) // read: a domain's state at the provider
)

// The alias operations and read (alias.go, offboard.go).
const (
	ActionAliasAdd    = Action(apiclient.OpAliasAdd)    // make an alias deliver to a mailbox
	ActionAliasRemove = Action(apiclient.OpAliasRemove) // remove an alias
	ActionOffboard    = Action("offboard")              // block a mailbox and give its aliases to a successor
	ActionListAliases = Action(apiclient.OpAliases)     // read: a mailbox's aliases
	// ActionAliasMove is an offboarding's step that moves one alias to
	// the successor, as the audit trail names it; it is not typed.
	ActionAliasMove = Action(apiclient.OpAliasMove)
)

// ActionImport creates many mailboxes at once, from rows: one request,
// one approval, each row run with the guarantees of add (import*.go,
// docs/import.md).
const ActionImport = Action("import")

// OnMailbox reports whether the action targets a mailbox (user@domain).
func (a Action) OnMailbox() bool {
	switch a {
	case ActionAddMailbox, ActionResetPassword, ActionBlock, ActionUnblock,
		ActionAliasAdd, ActionAliasRemove, ActionOffboard:
		return true
	}
	return false
}

// IsOperation reports whether the action changes something at the
// provider: it is authorised, may need approval, is audited and noticed.
func (a Action) IsOperation() bool { return a == ActionRegisterDomain || a.OnMailbox() }

// GivesPassword reports whether the action's result carries a new
// password for the person who asked.
func (a Action) GivesPassword() bool { return a == ActionAddMailbox || a == ActionResetPassword }

// Command is the slash command of the action.
func (a Action) Command() string {
	if a.OnMailbox() || a == ActionListMailboxes || a == ActionListAliases {
		return CmdMailbox
	}
	return CmdDomain
}

// Operation is a checked operation, ready to be sent to the API.
type Operation struct {
	Action Action
	Domain string // lower case, ASCII (punycode), no trailing dot
	Login  string // the user name (no @domain); empty for register
	Reason string // the free text after the target, may be empty
	// For is the Slack user ID of the person the credentials of an add
	// or a reset go to, in a hand-over; empty: the requester gets them.
	For string
	// SelfService marks a reset that a person runs on their own mailbox.
	SelfService bool
	// To is a second address, local@domain in the form of Login and
	// Domain: the mailbox an alias delivers to (alias add; Login@Domain
	// is the alias), the successor that receives the mailbox's aliases
	// (offboard; may be empty). Empty for the other operations.
	To string
	// Name is, for add, the person's name from the form ("Ada Lovelace":
	// given and family names split on the last space), plain text; empty
	// when none was given. Providers that keep a name take it.
	Name string
	// Person is, for an import's add, the given and family names as the
	// row has them, never joined and split again; empty otherwise (the
	// provider gets Name split).
	Person apiclient.PersonName
	// Rows and Digest describe an import (ActionImport): how many rows,
	// and the digest of the rows the store keeps under the request's ID.
	Rows   int
	Digest string
}

// Target is the operation's target: the domain, or user@domain.
func (o Operation) Target() string {
	if o.Action.OnMailbox() {
		return o.Login + "@" + o.Domain
	}
	return o.Domain
}

// String describes the operation in words: "register domain example.com",
// "add mailbox alice@example.com".
func (o Operation) String() string {
	switch o.Action {
	case ActionRegisterDomain:
		return "register domain " + o.Target()
	case ActionAddMailbox:
		return "add mailbox " + o.Target()
	case ActionResetPassword:
		return "reset the password of mailbox " + o.Target()
	case ActionBlock:
		return "block mailbox " + o.Target()
	case ActionUnblock:
		return "unblock mailbox " + o.Target()
	case ActionAliasAdd, ActionAliasRemove, ActionOffboard:
		return o.aliasString(false)
	case ActionImport:
		return fmt.Sprintf("import %s in %s", mailboxes(o.Rows), o.Domain)
	}
	return string(o.Action) + " " + o.Target()
}
