package commands

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"github.com/sethvargo/go-password/password"
	"go.uber.org/zap"
)

// Decision is the core's answer to a [Request] before anything is run.
type Decision struct {
	Step Step
	Op      Operation // for StepRun, StepApproval and StepCheck (its Domain)
	Reply   Reply     // for StepReply: the answer
	Pending *Pending  // for StepApproval: the request to post for the admins
	Form    *Form     // for StepForm: the form to show
	// Fallback is, for StepSelfService on a typed address, what the
	// reset is when the address is not the caller's own.
	Fallback *Decision
	// Import is, for an import, the checked rows to keep and run.
	Import *Import
}

// Reply is a transport-free answer to the person who asked. The Slack
// adapter renders it as Block Kit, the shell as plain text.
type Reply struct {
	Title   string   // one line, such as "Mailbox created"
	Text    string   // a lead paragraph, may be empty
	Fields  []Field  // labelled values
	Steps   []string // instructions, in order (how to verify a domain)
	Note    string   // a closing remark, such as "Only you can see this."
	Error   bool     // the request failed or was refused
	Buttons []Button // actions offered to the person who asked
}

// Button is an action a reply, a request message or the Home tab offers.
// Its Value is signed: the transport hands it back on a click, and only a
// value this mailbot signed is acted on.
type Button struct {
	Kind  ButtonKind
	Label string
	Value string
}

// ButtonKind says what a [Button] does.
type ButtonKind string

// The buttons.
const (
	ButtonApprove  ButtonKind = "approve"   // approve a request (admins)
	ButtonDeny     ButtonKind = "deny"      // deny a request (admins)
	ButtonCancel   ButtonKind = "cancel"    // withdraw a request (its requester)
	ButtonCheckDNS ButtonKind = "check_dns" // run the DNS checklist of a registered domain
	ButtonMore     ButtonKind = "more"      // show the next page of a list (admins)
	ButtonShow     ButtonKind = "show"      // show a handed-over password (its owner)
)

// Field is one labelled value of a [Reply].
type Field struct {
	Label  string
	Value  string
	Secret bool // a password or verification secret: show verbatim, in a code span, to the requester only
}

// Notice is the ops-channel account of an executed operation. It never
// holds a password or verification secret.
type Notice struct {
	Actor     string   // user ID of the requester
	Approvers []string // user IDs of the admins who approved, if any
	Op        Operation
	OK        bool
	Provider  string // the provider's name: apiclient.ProviderPDD, …
	// ProviderTitle names the provider in the notice's words.
	ProviderTitle string
	Status        string // register: the domain's status, as the provider gives it
	Stage         string // register: the domain's stage (PDD)
	UID           string // add: the new mailbox's uid, where the provider has one
	// Code is, on failure, the provider's error code as received, or one
	// of the core's: "transport", "response", "internal", "invalid",
	// "store", "credentials".
	Code string
	// Detail says what Code means, in words; never a secret.
	Detail string
	// Warnings are the provider's notes on a partial success.
	Warnings []string
	// NothingDone is set on a failure after which the PDD API certainly
	// changed nothing and a later attempt may succeed: an approval is not
	// used up by it.
	NothingDone bool
	// HandedTo is the person the credentials went to in a hand-over.
	HandedTo string
	// Uncertain is set when the operation may or may not have happened
	// (an add that was sent and got no answer).
	Uncertain bool
	// RequestID is the approved request the operation runs for; empty for
	// a direct operation.
	RequestID string
	// Steps are the steps of an operation of several (offboard), each
	// with its outcome in words, in order; never a secret.
	Steps []string
	// Unchanged is set on a success that changed nothing: the target
	// already was as asked (Code is CodeUnchanged).
	Unchanged bool
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

// Core is the transport-free core. It is safe for concurrent use.
type Core struct {
	api     Provider
	store   Store
	msgr    Messenger
	cfg     Config
	logger  *zap.Logger
	domains []string // the allow-list, normalised
	gen     *password.Generator
	key     []byte // signs pending requests

	mu         sync.Mutex
	unfinished map[string]unfinished // ends of runs the store did not take, by request ID
	unattached map[string]MessageRef // request messages the store did not take, by request ID
}

// Defaults of [Config].
const (
	DefaultApprovalTTL    = 24 * time.Hour
	DefaultPasswordLength = 16
)

// New returns a core that runs operations on the provider api under cfg's policy,
// keeps requests and the audit trail in store, and answers through msgr.
// It checks cfg ([Config.Check]), so that a core never runs on a bad
// policy.
func New(api Provider, store Store, msgr Messenger, cfg Config, logger *zap.Logger) (*Core, error) {
	if api == nil || store == nil || msgr == nil {
		return nil, errors.New("commands: nil provider, store or messenger")
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	cfg, errs := cfg.withDefaults().Check()
	if len(errs) > 0 {
		return nil, errs[0]
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
	if cfg.MentionGroup == nil {
		cfg.MentionGroup = func(id string) string { return id }
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
	return &Core{api: api, store: store, msgr: msgr, cfg: cfg, logger: logger, domains: domains, gen: gen, key: key,
		unfinished: map[string]unfinished{}, unattached: map[string]MessageRef{}}, nil
}

// now is the clock, in UTC, to the millisecond (as a pending request keeps it).
func (c *Core) now() time.Time { return c.cfg.Now().UTC().Truncate(time.Millisecond) }

// newID returns a random identifier of 10 lower-case letters and digits.
func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func (c *Core) pendingReply(p Pending) Reply {
	who := "an admin's approval"
	if c.cfg.Approvals == ApprovalsAll && c.IsAdmin(p.Requester) {
		who = "another admin's approval"
	}
	if n := c.cfg.ApprovalsRequired; n > 1 {
		who = fmt.Sprintf("the approval of %d admins", n)
	}
	r := Reply{
		Title: "Request waiting for approval",
		Text: fmt.Sprintf("Your request to %s needs %s. Nothing has been done yet: you will get the result here when the admins decide. The request expires at %s.",
			p.Op, who, fmtTime(p.Expires)),
		Fields:  []Field{{Label: "Request", Value: p.ID}, {Label: "Operation", Value: p.Op.String()}},
		Buttons: []Button{{Kind: ButtonCancel, Label: "Cancel request", Value: c.EncodePending(p)}},
	}
	if p.Op.Reason != "" {
		r.Fields = append(r.Fields, Field{Label: "Reason", Value: p.Op.Reason})
	}
	switch {
	case p.Op.For != "":
		r.Text += " If it is approved, the credentials go to " + c.cfg.Mention(p.Op.For) + " alone, in a direct message: nobody else, you included, sees the password."
		r.Fields = append(r.Fields, Field{Label: "Credentials for", Value: c.cfg.Mention(p.Op.For)})
	case p.Op.Action == ActionResetPassword:
		r.Text += " If it is approved, the new password comes to you alone."
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
