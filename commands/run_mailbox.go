package commands

import (
	"context"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// resetPassword gives the mailbox a new generated password. The provider
// retries an attempt whose answer was lost as it is, with the same
// password; when it never confirms, the requester still gets that
// password, with the warning that it may not be set, so that no password
// is set that nobody was given. Without a target from the resolve step
// (a hand-over's click), it resolves the mailbox first.
func (c *mailboxService) resetPassword(ctx context.Context, n Notice, target *apiclient.Resolved) (Result, error) {
	n, _, refused, err := c.lookupTarget(ctx, n, target)
	if refused != nil || err != nil {
		return deref(refused), err
	}
	return c.setPassword(ctx, n)
}

// setPassword sets the new password of n's mailbox.
func (c *mailboxService) setPassword(ctx context.Context, n Notice) (Result, error) {
	pw, err := c.newPassword(n.Op.Login, n.Op.Domain)
	if err != nil {
		return Result{}, err
	}
	m, err := c.of(n).SetPassword(ctx, n.Op.Domain, n.Op.Login, pw, c.cfg.ForcePasswordChange)
	if apiclient.MayHaveHappened(err) {
		res := cutOff(ctx, c.failure(n, err))
		res.Reply.Title = "The new password of " + n.Op.Target() + " may not be set"
		res.Reply.Fields = append(res.Reply.Fields, credentials(n, pw)...)
		res.Reply.Note = "mailbot sent this password and never heard whether " + c.titleOf(n) +
			" set it. Try to log in with it; if that fails, reset the password again. Only you can see it."
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	n.OK, n.UID, n.Warnings = true, m.UID, m.Warnings
	r := Reply{
		Title:  "New password for " + n.Op.Target(),
		Fields: credentials(n, pw),
		Note:   "Only you can see this password. Pass it on privately: mailbot does not keep it." + c.forceNote(n, m),
		Steps:  warningSteps(n.Warnings),
	}
	return Result{Reply: r, Notice: n}, nil
}

// setLogin blocks or unblocks the mailbox's logins, and says what the
// provider does with its mail meanwhile.
func (c *mailboxService) setLogin(ctx context.Context, n Notice, target *apiclient.Resolved) (Result, error) {
	enable := n.Op.Action == ActionUnblock
	n, m, refused, err := c.lookupTarget(ctx, n, target)
	if refused != nil || err != nil {
		return deref(refused), err
	}
	if enable == (m.State == apiclient.StateActive) {
		return c.loginUnchanged(n, m), nil
	}
	m, err = c.of(n).SetLoginEnabled(ctx, n.Op.Domain, n.Op.Login, enable)
	if err != nil {
		return Result{}, err
	}
	n.OK, n.UID, n.Status, n.Warnings = true, m.UID, string(m.State), m.Warnings
	r := Reply{
		Title:  "Mailbox " + n.Op.Target() + " " + map[bool]string{true: "unblocked", false: "blocked"}[enable],
		Fields: []Field{{Label: "Address", Value: n.Op.Target()}, {Label: "State", Value: stateWords(m.State)}},
		Text:   c.loginText(c.of(n), enable),
		Steps:  warningSteps(n.Warnings),
	}
	return Result{Reply: r, Notice: n}, nil
}

// loginUnchanged is the result of a block or unblock of a mailbox that
// already was as asked: nothing was sent. Block never loosens: an
// inactive mailbox (no logins, mail refused) stays inactive.
func (c *mailboxService) loginUnchanged(n Notice, m *apiclient.Mailbox) Result {
	n.OK, n.Unchanged, n.Code, n.UID, n.Status = true, true, CodeUnchanged, m.UID, string(m.State)
	r := Reply{
		Title:  "Mailbox " + n.Op.Target() + " already " + string(m.State),
		Text:   "Nothing was changed.",
		Fields: []Field{{Label: "Address", Value: n.Op.Target()}, {Label: "State", Value: stateWords(m.State)}},
	}
	return Result{Reply: r, Notice: n}
}

// loginText says what blocking or unblocking means at p.
func (c *mailboxService) loginText(p Provider, enabled bool) string {
	who := capitalise(p.Capabilities().Title)
	switch {
	case enabled:
		return "It can log in again, with its current password."
	case p.Capabilities().KeepsMailWhenBlocked:
		return "It can no longer log in. " + who + " keeps accepting mail for it, so nothing is lost: unblock it to read it."
	case p.Capabilities().NoMailWhenBlocked:
		return "It can no longer log in, and it receives no new mail while it is blocked: " + who + " delivers no mail to a suspended user. Unblock it to receive mail again."
	}
	return "It can no longer log in. " + who + " does not say whether it keeps accepting mail for a blocked mailbox."
}

// stateWords describes a mailbox's state.
func stateWords(s apiclient.MailboxState) string {
	switch s {
	case apiclient.StateActive:
		return "active"
	case apiclient.StateBlocked:
		return "blocked (no logins)"
	case apiclient.StateInactive:
		return "inactive (no logins, mail refused)"
	}
	return string(s)
}

// lookupTarget is the mailbox of n that the resolve step found (target),
// or, without one, the resolve step run now: a refusal (an alias, an
// administrator) is the result, with nothing changed.
func (c *mailboxService) lookupTarget(ctx context.Context, n Notice, target *apiclient.Resolved) (Notice, *apiclient.Mailbox, *Result, error) {
	if target != nil {
		return n, &target.Mailbox, nil, nil
	}
	r, err := c.runs.resolve(ctx, n.Op)
	if err != nil {
		return n, nil, nil, err
	}
	if r.refusal != nil {
		res := c.runs.refusedTarget(n, r, nil)
		return n, nil, &res, nil
	}
	n.Op = r.op
	return n, &r.mailbox.Mailbox, nil, nil
}

// checkNewAddress asks a provider that chooses a new mailbox's address
// (AddressChooser) which it will be, and refuses the add, with nothing
// created, when the allow-list does not have it.
func (c *mailboxService) checkNewAddress(ctx context.Context, n *Notice) (*Result, error) {
	p := c.of(*n)
	ac, ok := p.(AddressChooser)
	if !ok || !p.Capabilities().OwnAddresses {
		return nil, nil
	}
	addr, err := ac.NewAddress(ctx, n.Op.Domain, n.Op.Login)
	if err != nil {
		return nil, err
	}
	own := ownAddress(n.Op, &apiclient.Mailbox{Address: addr})
	if ue := c.access.checkAllowed(CmdMailbox, own.Domain, own.Target()); ue != nil {
		n.Code, n.Detail = CodeInvalid, "the new mailbox's own address is outside the allow-list"
		return &Result{Reply: usageReply(ue), Notice: *n}, nil
	}
	return nil, nil
}

// ownAddress is op naming m's own address, where the provider gives one
// that is a valid address; else op as it is.
func ownAddress(op Operation, m *apiclient.Mailbox) Operation {
	at := strings.LastIndexByte(m.Address, '@')
	if at < 1 {
		return op
	}
	d, err := NormalizeDomain(m.Address[at+1:])
	if err != nil {
		return op
	}
	op.Login, op.Domain = strings.ToLower(m.Address[:at]), d
	return op
}

func deref(r *Result) Result {
	if r == nil {
		return Result{}
	}
	return *r
}
