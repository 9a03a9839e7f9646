package commands

import "time"

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
	Admins []string // Slack user IDs (U…, W…) and user group IDs (S…) allowed to run operations
	// DomainAdmins are admins of some domains only: there they may do
	// what an admin may; elsewhere they are members.
	DomainAdmins   []DomainAdmins
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
	// CredentialsVariables names, by provider name, the setting that
	// holds mailbot's credentials for each provider of several
	// (MAILBOT_ROUTES); the default provider's may be CredentialsVariable.
	CredentialsVariables map[string]string
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

// DomainAdmins makes IDs (Slack user IDs U…, W… and user group IDs S…)
// admins of the domains Pattern matches (a name, or *.suffix for its
// subdomains), and of no other (MAILBOT_DOMAIN_ADMINS).
type DomainAdmins struct {
	Pattern string
	IDs     []string
}
