package commands

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
)

// Decision is the core's answer to a [Request] before anything is run.
type Decision struct {
	Outcome Outcome
	Op      Operation // for OutcomeRun and OutcomeApproval
	Reply   Reply     // for OutcomeReply: the answer; for OutcomeApproval: "pending" for the requester
	Pending *Pending  // for OutcomeApproval: the request to post for the admins
}

// Reply is a transport-free answer to the person who asked. The Slack
// adapter renders it as Block Kit, the shell as plain text.
type Reply struct {
	Title  string   // one line, such as "Mailbox created"
	Text   string   // a lead paragraph, may be empty
	Fields []Field  // labelled values
	Steps  []string // instructions, in order (how to verify a domain)
	Note   string   // a closing remark, such as "Only you can see this."
	Error  bool     // the request failed or was refused
}

// Field is one labelled value of a [Reply].
type Field struct {
	Label  string
	Value  string
	Secret bool // a password or verification secret: show verbatim, in a code span, to the requester only
}

// Notice is the ops-channel account of an executed operation. It never
// holds a password or verification secret.
type Notice struct {
	Actor    string // user ID of the requester
	Approver string // user ID of the admin who approved, if any
	Op       Operation
	OK       bool
	Status   apiclient.Status // register: the domain's status
	UID      int64            // add: the new mailbox's uid
	Code     string           // on failure: the PDD error code, or "transport", "response", "internal"
}

// Result is what running an operation produced.
type Result struct {
	Reply  Reply  // for the requester alone: may hold secrets
	Notice Notice // for the ops channel: never a secret
}

// Pending is a request waiting for an admin's decision. It travels outside
// the process (Encode, in a Slack button's value) and comes back signed.
type Pending struct {
	ID        string    // random, unique
	Requester string    // user ID
	Channel   string    // where the request was typed; may be empty
	Op        Operation // exactly what will be sent to the API (never a password)
	Created   time.Time
}

// Verdict is the core's answer to an admin's click on Approve or Deny.
type Verdict struct {
	Kind      VerdictKind
	Reply     Reply     // for the person who clicked
	DecidedBy string    // who decided (for Approved, Denied, AlreadyDecided)
	DecidedAt time.Time // when
	Approved  bool      // for AlreadyDecided: what the earlier decision was
	Result    *Result   // for Approved: the operation's result (Reply for the requester)
}

// VerdictKind classifies a [Verdict].
type VerdictKind int

// The kinds of [Verdict].
const (
	VerdictRefused        VerdictKind = iota // this person may not decide; nothing changes
	VerdictExpired                           // the request is older than the TTL; nothing runs
	VerdictAlreadyDecided                    // someone decided before; nothing runs again
	VerdictDenied                            // denied now
	VerdictApproved                          // approved now and run exactly once
	VerdictInvalid                           // the request does not decode, is forged, or no longer validates
)

// Core is the transport-free core. It is safe for concurrent use.
type Core struct {
	api    API
	cfg    Config
	logger *zap.Logger
}

// New returns a core that runs operations on api under cfg's policy.
func New(api API, cfg Config, logger *zap.Logger) (*Core, error) {
	panic("not implemented")
}

// Decide parses and validates req and decides, by the policy, whether it is
// answered at once, run now, or needs approval. It never calls the API.
func (c *Core) Decide(req Request) Decision {
	panic("not implemented")
}

// Run executes op for actor (and approver, when approved; may be empty):
// it generates the password when needed, calls the API, and describes the
// result. Every API and transport error becomes words in Reply.
func (c *Core) Run(ctx context.Context, actor, approver string, op Operation) Result {
	panic("not implemented")
}

// Resolve decides the pending request p (as decoded by [Core.DecodePending])
// for decider: approve or deny. It runs the operation at most once per
// request ID in this process, however many concurrent or later calls.
func (c *Core) Resolve(ctx context.Context, p Pending, decider string, approve bool) Verdict {
	panic("not implemented")
}

// EncodePending returns p as a signed string of at most 2000 bytes, for a
// Slack button's value.
func (c *Core) EncodePending(p Pending) string {
	panic("not implemented")
}

// DecodePending checks the signature of s and returns the request.
func (c *Core) DecodePending(s string) (Pending, error) {
	panic("not implemented")
}

// Help returns the usage of command ("/maildomain" or "/mailbox").
func Help(command string) Reply {
	panic("not implemented")
}

// ParseApprovalMode parses MAILBOT_APPROVALS.
func ParseApprovalMode(s string) (ApprovalMode, error) {
	panic("not implemented")
}

// NormalizeDomain validates a domain name and returns it lower case, in
// ASCII (punycode), without a trailing dot.
func NormalizeDomain(s string) (string, error) {
	panic("not implemented")
}

// CheckDomainPatterns validates MAILBOT_DOMAINS patterns: domain names and
// *.suffix.
func CheckDomainPatterns(patterns []string) error {
	panic("not implemented")
}

// Target is the operation's target: the domain, or user@domain.
func (o Operation) Target() string {
	panic("not implemented")
}

// String describes the operation in words: "register domain example.com",
// "add mailbox alice@example.com".
func (o Operation) String() string {
	panic("not implemented")
}

// PlainText renders the reply for a console.
func (r Reply) PlainText() string {
	panic("not implemented")
}

// Summary renders the notice in words; mention renders a user ID (the Slack
// adapter passes "<@U…>", the shell the bare ID).
func (n Notice) Summary(mention func(userID string) string) string {
	panic("not implemented")
}
