package commands

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"
)

// People is what the core needs to know of a person from the transport
// (Slack's users.info; the shell's own directory).
type People interface {
	// Person returns what the transport knows of userID. A person the
	// transport does not know is Person{Unknown: true}, not an error; an
	// error means it could not be asked.
	Person(ctx context.Context, userID string) (Person, error)
}

// Person is what the transport says of a person.
type Person struct {
	Unknown        bool   // no such user
	NotVisible     bool   // the transport hides them from mailbot (Slack's user_not_visible)
	Email          string // their profile's e-mail address; may be empty
	EmailConfirmed bool   // the transport confirmed they own Email
	Deleted        bool   // deactivated
	Bot            bool
	Guest          bool // a guest of the workspace (Slack's restricted and ultra-restricted)
	OtherWorkspace bool // a user of another workspace, reachable by no direct message of this bot
}

// unreachable says why a direct message cannot reach p, or "".
func (p Person) unreachable() string {
	switch {
	case p.Unknown:
		return "is not a user Slack knows"
	case p.NotVisible:
		return "is hidden from mailbot by Slack (mailbot may not see them)"
	case p.Deleted:
		return "is deactivated"
	case p.Bot:
		return "is a bot"
	case p.OtherWorkspace:
		return "belongs to another workspace"
	}
	return ""
}

// selfServiceOr is d, or for a reset by someone who is not an admin while
// self-service is on, a self-service reset when the address turns out to
// be the caller's own, with d as what it is otherwise.
func (c *policyService) selfServiceOr(req Request, op Operation, d Decision) Decision {
	if c.cfg.SelfService != SelfServiceReset || op.Action != ActionResetPassword || op.For != "" || c.access.IsAdmin(req.UserID) {
		return d
	}
	fallback := d // the copy, not d, is what escapes: only on this path
	return Decision{Step: StepSelfService, Op: op, Fallback: &fallback}
}

// selfService runs a reset of the caller's own mailbox, handed over to
// them: without approval, at most one per person per SelfServiceEvery.
// Any other case is refused in words with no provider call; a typed
// address that is not the caller's own is what it would have been
// without self-service: it says so (fallBack), and runs nothing, for the
// caller to carry out d.Fallback.
func (c *mailboxService) selfService(ctx context.Context, to Route, d Decision) (label string, fallBack bool) {
	op, why := c.ownMailbox(ctx, to.User, d.Op)
	if why != "" && d.Fallback != nil {
		return "", true
	}
	if why != "" {
		c.deliver(ctx, to, Reply{Title: "No self-service reset", Text: why + " Nothing was done.", Error: true,
			Note: "An admin can reset any mailbox: /mailbox reset alice@example.com for @alice."})
		return LabelRefused, false
	}
	if label, ok := c.runs.resolveOwn(ctx, to, op); !ok {
		return label, false
	}
	if label, ok := c.claimSelfService(ctx, to); !ok {
		return label, false
	}
	op.For, op.SelfService, op.Reason = to.User, true, "self-service"
	return c.runs.runNow(ctx, to, op, "Self-service: "), false
}

// claimSelfService counts the caller's self-service reset, refusing one
// too soon after the last.
func (c *mailboxService) claimSelfService(ctx context.Context, to Route) (string, bool) {
	ok, next, err := c.store.ClaimSelfService(ctx, to.User, c.cfg.Now(), SelfServiceEvery)
	if c.storeFailed(err, "claim self-service") {
		c.deliver(ctx, to, replyStoreDown)
		return LabelStoreDown, false
	}
	if !ok {
		c.deliver(ctx, to, Reply{Title: "Too soon", Error: true,
			Text: fmt.Sprintf("You reset your own password less than %s ago. Nothing was done: try again after %s.", fmtDuration(SelfServiceEvery), fmtTime(next))})
		return LabelRefused, false
	}
	return "", true
}

// ownMailbox is the caller's own mailbox, by their confirmed Slack e-mail,
// checked against typed (an empty Login: none typed), or why not.
func (c *mailboxService) ownMailbox(ctx context.Context, user string, typed Operation) (Operation, string) {
	if c.cfg.People == nil {
		return Operation{}, "Self-service is not available here: mailbot cannot read who you are."
	}
	p, err := c.cfg.People.Person(ctx, user)
	if err != nil {
		c.logger.Warn("person not read for self-service", zap.String("user_id", user), zap.Error(err))
		return Operation{}, "mailbot could not read your Slack profile. Try again in a minute."
	}
	if p.NotVisible {
		return Operation{}, "Slack does not let mailbot see your profile, so it cannot tell which mailbox is your own or reach you."
	}
	op, why := c.mailboxOf(p)
	if why != "" {
		return Operation{}, why
	}
	if typed.Login != "" && (!strings.EqualFold(typed.Login, op.Login) || typed.Domain != op.Domain) {
		return Operation{}, fmt.Sprintf("%s is not your own mailbox: yours is the address of your Slack profile.", typed.Target())
	}
	if why := p.notMember(); why != "" {
		return Operation{}, why
	}
	if ue := c.policy.checkOp(op); ue != nil {
		return Operation{}, ue.Problem
	}
	return op, ""
}

// mailboxOf is the mailbox of p's confirmed e-mail address.
func (c *mailboxService) mailboxOf(p Person) (Operation, string) {
	if p.Unknown || p.Email == "" || !p.EmailConfirmed {
		return Operation{}, "Slack has not confirmed an e-mail address of yours, so mailbot cannot tell which mailbox is your own."
	}
	user, domain, ok := cutAddress(p.Email)
	login, err := normalizeLogin(ActionResetPassword, user)
	d, derr := NormalizeDomain(domain)
	if !ok || err != nil || derr != nil {
		return Operation{}, "The e-mail address of your Slack profile is not a mailbox mailbot can reset."
	}
	return Operation{Action: ActionResetPassword, Domain: d, Login: login}, ""
}

// notMember says why p may not reset a password alone, or "".
func (p Person) notMember() string {
	switch {
	case p.Deleted, p.Bot, p.OtherWorkspace:
		return "Only full members of this workspace may reset their own password."
	case p.Guest:
		return "Guests may not reset their own password: ask an admin."
	}
	return ""
}
