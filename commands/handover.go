package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
)

// DefaultHandoverTTL is how long a hand-over's Show my password button
// works when Config.HandoverTTL is zero.
const DefaultHandoverTTL = 72 * time.Hour

// SelfServiceMode says what people may do to their own mailbox without an
// admin (MAILBOT_SELF_SERVICE).
type SelfServiceMode string

// The self-service modes.
const (
	SelfServiceOff   SelfServiceMode = "off"   // nothing: every reset is an operation
	SelfServiceReset SelfServiceMode = "reset" // anyone may reset the password of their own mailbox
)

// The settings of the hand-over that [Config.Check] checks.
const (
	SettingHandoverTTL Setting = "HandoverTTL"
	SettingSelfService Setting = "SelfService"
)

// ParseSelfService parses MAILBOT_SELF_SERVICE: off or reset, in any
// letter case; empty means off.
func ParseSelfService(s string) (SelfServiceMode, error) {
	switch m := SelfServiceMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return SelfServiceOff, nil
	case SelfServiceOff, SelfServiceReset:
		return m, nil
	}
	return "", fmt.Errorf("must be off or reset, got %q", trunc(s, 20))
}

// checkHandover checks the hand-over's settings of cfg.
func (cfg Config) checkHandover(refuse func(Setting, error)) Config {
	if cfg.HandoverTTL <= 0 {
		refuse(SettingHandoverTTL, fmt.Errorf("must be a positive duration, got %s", cfg.HandoverTTL))
	}
	m, err := ParseSelfService(string(cfg.SelfService))
	refuse(SettingSelfService, err)
	cfg.SelfService = m
	return cfg
}

// checkFor refuses a hand-over that names no Slack user, or one on an
// operation that gives no password.
func checkFor(op Operation) *UsageError {
	switch {
	case op.For == "":
		return nil
	case op.Action != ActionAddMailbox && op.Action != ActionResetPassword:
		return &UsageError{Command: CmdMailbox, Problem: "Only add and reset hand credentials over to someone.", Fix: "/mailbox add alice@example.com for @alice"}
	case !IsUserID(op.For):
		return &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf("%q is not a Slack user.", trunc(op.For, 30)), Fix: "/mailbox add alice@example.com for @alice"}
	}
	return nil
}

// HandoverEvent is what became of a hand-over, for metrics.
type HandoverEvent string

// The hand-over events.
const (
	HandoverOffered HandoverEvent = "offered" // a direct message with Show my password was sent
	HandoverShown   HandoverEvent = "shown"   // its owner saw the password
	HandoverExpired HandoverEvent = "expired" // its deadline passed unshown
	HandoverRefused HandoverEvent = "refused" // a click that was not honoured
	HandoverVoided  HandoverEvent = "voided"  // voided by a later hand-over, reset, block or offboarding of its mailbox
)

// HandoverEvents lists the hand-over events, for metrics.
func HandoverEvents() []HandoverEvent {
	return []HandoverEvent{HandoverOffered, HandoverShown, HandoverExpired, HandoverRefused, HandoverVoided}
}

// Handover is a mailbox's credentials waiting for their owner: the owner's
// click on Show my password sets a new password and shows it to them
// alone. It holds no password: the password exists only in the answer to
// that click.
type Handover struct {
	ID          string // random, unique
	Owner       string // the user ID of the person the credentials are for
	Requester   string // who asked for the operation
	RequestID   string // the approved request, if any
	Action      Action // ActionAddMailbox or ActionResetPassword
	Domain      string
	Login       string
	SelfService bool
	Created     time.Time
	Expires     time.Time // after this the button no longer works
}

// Target is the mailbox's address.
func (h Handover) Target() string { return h.Login + "@" + h.Domain }

// HandoverState is where a hand-over is in its life: offered → showing →
// shown, or offered → expired, or offered or showing → voided. A click
// that failed goes back to offered.
type HandoverState string

// The states of a hand-over.
const (
	HandoverStateOffered HandoverState = "offered"
	HandoverStateShowing HandoverState = "showing" // claimed by its owner's click: the password is being set
	HandoverStateShown   HandoverState = "shown"
	HandoverStateExpired HandoverState = "expired"
	// Voided by a later hand-over, reset, block or offboarding of its
	// mailbox (HandoverRecord.VoidedBy says which): no click can use it.
	HandoverStateVoided HandoverState = "voided"
)

// Open reports whether a click may still use a hand-over in state s, or
// may still be using it.
func (s HandoverState) Open() bool { return s == HandoverStateOffered || s == HandoverStateShowing }

// HandoverRecord is a hand-over as a [Store] keeps it.
type HandoverRecord struct {
	Handover
	State     HandoverState
	Message   MessageRef // the direct message with the button; may be zero
	ClaimedAt time.Time  // when the last click claimed it
	DoneAt    time.Time  // when it was shown, expired or voided
	VoidedBy  Action     // what voided it: a later add or reset (a hand-over), a reset, block or offboarding
}

// ClaimResult is what [HandoverStore.ClaimHandover] did.
type ClaimResult int

// The results of a claim.
const (
	ClaimTaken   ClaimResult = iota // claimed: set the password and show it, once
	ClaimClosed                     // shown, expired, or being shown by another click
	ClaimExpired                    // was offered and expired now: tell its owner, once
)

// StaleClaim is how long a claim may go without ending before another
// click of its owner may take it again: a click whose process ended before
// the password was shown. Far longer than a provider call with its retries.
const StaleClaim = 5 * time.Minute

// SelfServiceEvery is how often one person may reset their own password.
const SelfServiceEvery = 10 * time.Minute

// HandoverView is what the owner's direct message shows.
type HandoverView struct {
	Handover Handover
	State    HandoverState
	Value    string // the signed hand-over, for the Show button; "" when the message offers none
	Text     string // which mailbox, who asked, until when or what became of it; user IDs marked by Config.Mention
}

// Button reports whether the message offers Show my password.
func (v HandoverView) Button() bool { return v.Value != "" }

// HandoverMessenger is what the hand-over needs of a transport: the
// owner's direct message, its updates, and reading it back.
type HandoverMessenger interface {
	// OfferHandover sends v to its owner in a direct message and says
	// where it is.
	OfferHandover(ctx context.Context, v HandoverView) (MessageRef, error)
	// UpdateHandover shows the hand-over's new state in its message.
	UpdateHandover(ctx context.Context, ref MessageRef, v HandoverView) error
	// HandoverValue reads the message back and returns the value its Show
	// button carries: "" when it offers none (shown or expired) or is gone.
	HandoverValue(ctx context.Context, ref MessageRef) (string, error)
}

// handoverKind prefixes an encoded hand-over.
const handoverKind = "h1"

// wireHandover is the signed payload of a Show button.
type wireHandover struct {
	ID          string `json:"i"`
	Owner       string `json:"o"`
	Requester   string `json:"u"`
	RequestID   string `json:"q,omitempty"`
	Action      Action `json:"a"`
	Domain      string `json:"d"`
	Login       string `json:"l"`
	SelfService bool   `json:"s,omitempty"`
	Created     int64  `json:"t"`
	Expires     int64  `json:"x"`
}

// EncodeHandover is [Core.EncodeHandover]'s work.
func (c *handoverService) EncodeHandover(h Handover) string {
	return c.seal(handoverKind, wireHandover{ID: h.ID, Owner: h.Owner, Requester: h.Requester, RequestID: h.RequestID,
		Action: h.Action, Domain: h.Domain, Login: h.Login, SelfService: h.SelfService,
		Created: h.Created.UnixMilli(), Expires: h.Expires.UnixMilli()})
}

// DecodeHandover is [Core.DecodeHandover]'s work.
func (c *handoverService) DecodeHandover(s string) (Handover, error) {
	var w wireHandover
	if err := c.unseal(handoverKind, s, &w); err != nil || w.ID == "" || !IsUserID(w.Owner) || w.Expires < w.Created {
		return Handover{}, ErrBadPending
	}
	return Handover{ID: w.ID, Owner: w.Owner, Requester: w.Requester, RequestID: w.RequestID, Action: w.Action,
		Domain: w.Domain, Login: w.Login, SelfService: w.SelfService,
		Created: time.UnixMilli(w.Created).UTC(), Expires: time.UnixMilli(w.Expires).UTC()}, nil
}

// observe tells Config.OnHandover of ev.
func (c *handoverService) observe(ev HandoverEvent) {
	if c.cfg.OnHandover != nil {
		c.cfg.OnHandover(ev)
	}
}

// handoverView is rec as its owner's message shows it.
func (c *handoverService) handoverView(rec HandoverRecord) HandoverView {
	v := HandoverView{Handover: rec.Handover, State: rec.State, Text: c.handoverText(rec)}
	if rec.State == HandoverStateOffered {
		v.Value = c.EncodeHandover(rec.Handover)
	}
	return v
}

// handoverText says, in the owner's message, which mailbox is theirs, who
// asked, and what became of the hand-over.
func (c *handoverService) handoverText(rec HandoverRecord) string {
	h, m := rec.Handover, c.cfg.Mention
	if h.Action == ActionImport {
		return c.imports.importHandoverText(rec)
	}
	what := fmt.Sprintf("%s asked mailbot to create the mailbox %s for you.", m(h.Requester), h.Target())
	switch {
	case h.SelfService:
		what = fmt.Sprintf("You asked for a new password for your mailbox %s.", h.Target())
	case h.Action == ActionResetPassword:
		what = fmt.Sprintf("%s asked mailbot to give your mailbox %s a new password.", m(h.Requester), h.Target())
	}
	switch rec.State {
	case HandoverStateShowing:
		return what + " Its password is being set and shown to you."
	case HandoverStateShown:
		return fmt.Sprintf("%s Its password was shown to you at %s. mailbot keeps no copy of it: if you lost it, ask for a reset.", what, fmtTime(rec.DoneAt))
	case HandoverStateExpired:
		return fmt.Sprintf("%s This offer expired at %s without being used: ask %s for a new one.", what, fmtTime(h.Expires), c.askWhom(h))
	case HandoverStateVoided:
		return what + " " + voidedText(rec)
	}
	return fmt.Sprintf("%s Click *Show my password* to see its password: only you can, once, until %s. Clicking sets a new password, shown only to you.",
		what, fmtTime(h.Expires))
}

// askWhom is whom the owner of an expired hand-over asks again.
func (c *handoverService) askWhom(h Handover) string {
	if h.SelfService {
		return "yourself (/mailbox reset)"
	}
	return c.cfg.Mention(h.Requester)
}

// reachable says why a direct message cannot reach userID, or "" when
// it can: credentials are handed over only to a person who can read them.
func (c *handoverService) reachable(ctx context.Context, userID string) string {
	if c.cfg.People == nil {
		return "this mailbot cannot send direct messages, so it cannot hand credentials over to anyone."
	}
	p, err := c.cfg.People.Person(ctx, userID)
	if err != nil {
		c.logger.Warn("person not read", zap.String("user_id", userID), zap.Error(err))
		return fmt.Sprintf("mailbot could not read %s's Slack profile to check that a direct message reaches them. Try again in a minute.", c.cfg.Mention(userID))
	}
	return c.unreachable(userID, p)
}

// unreachable says why a direct message cannot hand credentials over to
// p (userID), or "".
func (c *handoverService) unreachable(userID string, p Person) string {
	if why := p.unreachable(); why != "" {
		return fmt.Sprintf("%s %s, so mailbot cannot hand the credentials over to them.", c.cfg.Mention(userID), why)
	}
	return ""
}
