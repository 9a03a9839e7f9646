package commands

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sethvargo/go-password/password"
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
	Expires   time.Time // after this it can no longer be decided
}

// Verdict is the core's answer to an admin's click on Approve or Deny.
type Verdict struct {
	Kind      VerdictKind
	Reply     Reply     // for the person who clicked
	DecidedBy string    // who decided (for Approved, Denied, AlreadyDecided)
	DecidedAt time.Time // when
	Approved  bool      // for AlreadyDecided: what the earlier decision was
	Result    *Result   // for Approved: the operation's result (Reply for the requester)
	// ForRequester is what to tell the requester now, ephemerally: for
	// Approved the Result's Reply (secrets included), for Denied who
	// denied; nil otherwise.
	ForRequester *Reply
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
	api     API
	cfg     Config
	logger  *zap.Logger
	domains []string // the allow-list, normalised
	gen     *password.Generator
	key     []byte // signs pending requests
	guard   guard  // exactly-once decisions
}

// Defaults of [Config].
const (
	DefaultApprovalTTL    = 24 * time.Hour
	DefaultPasswordLength = 16
)

// New returns a core that runs operations on api under cfg's policy. It
// checks cfg as config.go does, so that a core never runs on a bad policy.
func New(api API, cfg Config, logger *zap.Logger) (*Core, error) {
	if api == nil {
		return nil, errors.New("commands: nil API")
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	var err error
	if cfg.Approvals, err = ParseApprovalMode(string(cfg.Approvals)); err != nil {
		return nil, fmt.Errorf("commands: approvals: %w", err)
	}
	if cfg.ApprovalTTL <= 0 {
		cfg.ApprovalTTL = DefaultApprovalTTL
	}
	if cfg.PasswordLength == 0 {
		cfg.PasswordLength = DefaultPasswordLength
	}
	if cfg.PasswordLength < apiclient.MinPasswordLen || cfg.PasswordLength > apiclient.MaxPasswordLen {
		return nil, fmt.Errorf("commands: password length must be %d to %d, got %d", apiclient.MinPasswordLen, apiclient.MaxPasswordLen, cfg.PasswordLength)
	}
	if cfg.DefaultDomain != "" {
		if cfg.DefaultDomain, err = NormalizeDomain(cfg.DefaultDomain); err != nil {
			return nil, fmt.Errorf("commands: default domain: %w", err)
		}
	}
	domains, err := normalizePatterns(cfg.Domains)
	if err != nil {
		return nil, fmt.Errorf("commands: domains: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Mention == nil {
		cfg.Mention = func(id string) string { return id }
	}
	cfg.Admins = slices.Clone(cfg.Admins)
	key := slices.Clone(cfg.SigningKey)
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
	}
	gen, err := password.NewGenerator(&password.GeneratorInput{Symbols: apiclient.PasswordSymbols})
	if err != nil {
		return nil, fmt.Errorf("commands: password generator: %w", err)
	}
	c := &Core{api: api, cfg: cfg, logger: logger, domains: domains, gen: gen, key: key}
	c.guard.entries = make(map[string]*decided)
	return c, nil
}

// Decide parses and validates req and decides, by the policy, whether it is
// answered at once, run now, or needs approval. It never calls the API.
// Validation comes before authorisation, so that a person learns what is
// wrong with the input whoever they are.
func (c *Core) Decide(req Request) Decision {
	inv, err := Parse(req.Command, req.Text)
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return Decision{Outcome: OutcomeReply, Reply: usageReply(ue)}
		}
		return Decision{Outcome: OutcomeReply, Reply: Help(req.Command)}
	}
	if inv.Help {
		return Decision{Outcome: OutcomeReply, Reply: c.help(inv.Command)}
	}
	op := inv.Op
	if op.Action == ActionAddMailbox && op.Domain == "" {
		if c.cfg.DefaultDomain == "" {
			return Decision{Outcome: OutcomeReply, Reply: usageReply(&UsageError{Command: CmdMailbox,
				Problem: fmt.Sprintf("No domain given for %s, and mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).", op.Login),
				Fix:     fmt.Sprintf("/mailbox add %s@example.com or /mailbox add %s example.com", op.Login, op.Login)})}
		}
		op.Domain = c.cfg.DefaultDomain
	}
	if ue := c.checkOp(op); ue != nil {
		return Decision{Outcome: OutcomeReply, Reply: usageReply(ue)}
	}
	outcome, why := c.authorise(req.UserID)
	switch outcome {
	case OutcomeReply:
		return Decision{Outcome: OutcomeReply, Reply: Reply{Title: "Not allowed", Text: why,
			Note: "Ask a mailbot admin to do it for you.", Error: true}}
	case OutcomeRun:
		return Decision{Outcome: OutcomeRun, Op: op}
	}
	p := &Pending{ID: newID(), Requester: req.UserID, Channel: req.ChannelID, Op: op, Created: c.now()}
	return Decision{Outcome: OutcomeApproval, Op: op, Reply: c.pendingReply(p), Pending: p}
}

// now is the clock, in UTC, to the millisecond (as a pending request keeps it).
func (c *Core) now() time.Time { return c.cfg.Now().UTC().Truncate(time.Millisecond) }

// newID returns a random identifier of 10 lower-case letters and digits.
func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func (c *Core) pendingReply(p *Pending) Reply {
	who := "an admin"
	if c.cfg.Approvals == ApprovalsAll && c.IsAdmin(p.Requester) {
		who = "another admin"
	}
	r := Reply{
		Title: "Request waiting for approval",
		Text: fmt.Sprintf("Your request to %s needs %s's approval. Nothing has been done yet: you will get the result here when an admin decides. The request expires in %s.",
			p.Op, who, fmtDuration(c.cfg.ApprovalTTL)),
		Fields: []Field{{Label: "Request", Value: p.ID}, {Label: "Operation", Value: p.Op.String()}},
	}
	if p.Op.Reason != "" {
		r.Fields = append(r.Fields, Field{Label: "Reason", Value: p.Op.Reason})
	}
	return r
}

// fmtDuration writes whole hours and minutes without the zero units: 24h, 90m.
func fmtDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
