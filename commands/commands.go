// Package commands is mailbot's transport-free core: it parses and validates
// what a person typed, decides who may do what, generates passwords, runs
// operations against the PDD API and describes the results. It knows
// nothing of Slack: the Slack adapter (package bot) and the console
// (mailbot shell) both drive it.
package commands

import (
	"time"
)

// ApprovalMode says which operations need an admin's approval
// (MAILBOT_APPROVALS).
type ApprovalMode string

// The approval modes (docs/approvals.md).
const (
	ApprovalsOff      ApprovalMode = "off"      // non-admins are refused
	ApprovalsRequests ApprovalMode = "requests" // non-admins may ask; an admin approves
	ApprovalsAll      ApprovalMode = "all"      // every operation needs another admin's approval
)

// Config is the core's policy.
type Config struct {
	Admins         []string      // Slack user IDs (U…, W…) and user group IDs (S…) allowed to run operations
	Approvals      ApprovalMode  // zero value means ApprovalsOff
	ApprovalTTL    time.Duration // a pending request older than this is expired; zero means 24h
	Domains        []string      // allow-list patterns: example.com, *.example.org; empty allows all
	DefaultDomain  string        // for /mailbox add with a bare user name; normalised
	PasswordLength int           // 6 to 20; zero means 16
	// SigningKey authenticates pending requests that travel outside the
	// process (in a Slack button's value); nil means a random key, so
	// requests do not survive a restart.
	SigningKey []byte
	Now        func() time.Time // the clock; nil means time.Now
	// Mention renders a user ID in the texts of replies and verdicts (the
	// Slack adapter passes one that returns "<@U…>"); nil means the bare ID.
	Mention func(userID string) string
	// MentionGroup renders a user group ID in reminders; nil means the
	// bare ID.
	MentionGroup func(groupID string) string
	// InGroup reports whether userID is a member of the user group
	// groupID (an S… entry of Admins), from the transport's last reading
	// of the group; it must not wait on the network. Nil means nobody is.
	InGroup func(groupID, userID string) bool
	// GroupHandle names a user group by its handle ("mail-admins"), for
	// the help and request messages; nil, or "", means its ID.
	GroupHandle func(groupID string) string
	// ApprovalsRequired is how many different admins must approve a
	// request, 1 to MaxApprovalsRequired; zero means 1.
	ApprovalsRequired int
	// RemindAfter is how long a request may wait before the admins are
	// reminded of it, once; zero means no reminders.
	RemindAfter time.Duration
	// DNS checks a domain's DNS records (/maildomain check); nil means
	// the checklist is not available.
	DNS DNSChecker
	// ForcePasswordChange asks the provider to make new mailboxes and
	// reset passwords change at the next login, where it can
	// (MAILBOT_FORCE_PASSWORD_CHANGE).
	ForcePasswordChange bool
	// HandoverTTL is how long the Show my password button of a hand-over
	// works (MAILBOT_HANDOVER_TTL); zero means 72h.
	HandoverTTL time.Duration
	// SelfService says who may reset a password without an admin
	// (MAILBOT_SELF_SERVICE): SelfServiceOff (the zero value) or
	// SelfServiceReset.
	SelfService SelfServiceMode
	// People reads what the transport knows of a person: whether a
	// direct message reaches them, and their confirmed e-mail address.
	// Nil means nobody can be handed credentials and self-service is
	// refused.
	People People
	// OnHandover, if set, is told of each hand-over offered, shown,
	// expired or refused click (for metrics); it must not block.
	OnHandover func(HandoverEvent)
	// CredentialsVariable names the setting that holds mailbot's
	// credentials for the provider (PDD_TOKEN, or PDD_TOKEN_FILE when the
	// token comes from a file): a reply to a refusal of the credentials
	// asks an operator to check it. Empty names no setting.
	CredentialsVariable string
	// Source names the transport the core serves (SourceSlack,
	// SourceShell): each audit entry records it.
	Source string
	// ImportMaxRows is the most rows one import may have
	// (MAILBOT_IMPORT_MAX_ROWS), 1 to MaxImportMaxRows; zero means 1000.
	ImportMaxRows int
	// ImportConcurrency is how many rows of an import run at once
	// (MAILBOT_CONCURRENCY); zero means 8.
	ImportConcurrency int
}

// MaxApprovalsRequired bounds Config.ApprovalsRequired.
const MaxApprovalsRequired = 5

// Request is one slash command as a person typed it.
type Request struct {
	UserID    string // who typed it
	ChannelID string // where; empty in the shell
	Command   string // "/maildomain" or "/mailbox"
	Text      string // what follows the command, as Slack sends it
}

// Action is what an operation does.
type Action string

// The operations, and the reads that are not operations.
const (
	ActionRegisterDomain Action = "register" // connect a domain
	ActionAddMailbox     Action = "add"      // create a mailbox with a new password
	ActionResetPassword  Action = "reset"    // give a mailbox a new password
	ActionBlock          Action = "block"    // stop a mailbox's logins
	ActionUnblock        Action = "unblock"  // let a mailbox log in again
	ActionListMailboxes  Action = "list"     // read: a domain's mailboxes
	ActionDomainStatus   Action = "status"   // read: a domain's state at the provider
)

// The alias operations and read (alias.go, offboard.go).
const (
	ActionAliasAdd    Action = "alias_add"    // make an alias deliver to a mailbox
	ActionAliasRemove Action = "alias_remove" // remove an alias
	ActionOffboard    Action = "offboard"     // block a mailbox and give its aliases to a successor
	ActionListAliases Action = "aliases"      // read: a mailbox's aliases
)

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

// Operation is a validated operation, ready to be sent to the API.
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
	// Rows and Digest describe an import (ActionImport): how many rows,
	// and the digest of the rows the store keeps under the request's ID.
	Rows   int
	Digest string
}

// Step is what the core decided to do with a request.
type Step int

// The verdicts of [Core.Decide].
const (
	StepReply       Step = iota // Reply is the whole answer: help, usage, invalid input or refusal
	StepRun                        // run Op now, with Core.Run
	StepApproval                   // Op needs an admin's approval: post Pending, tell the requester
	StepForm                       // a bare command: show Form (the shell answers with the usage)
	StepCheck                      // run the DNS checklist of Op.Domain
	StepRead                       // read Op.Domain at the provider (list, status): an admin's, no approval
	StepSelfService                // a reset that may be the caller's own mailbox: Execute checks and runs it
)
