package commands

import (
	"context"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// The resolve step: before the allow-list has its last word, before an
// approval request is posted and before anything is written, the core
// asks the provider which mailbox each address of an operation on an
// existing mailbox names (Provider.ResolveMailbox). An address that is
// only an alias or another name of a mailbox is refused in words naming
// that mailbox; an administrator, and the account mailbot acts as, are
// refused for what would lock them out or take their password (reset,
// block, offboard, hand-overs). What follows names the mailbox by its own
// address.

// resolution is what the resolve step found for an operation.
type resolution struct {
	p       Provider            // the provider of op's domain: chosen once, here
	op      Operation           // the operation, naming each mailbox by its own address
	mailbox *apiclient.Resolved // the mailbox op acts on; nil where none is resolved
	refusal *Reply              // why op is refused, with nothing done; nil if it is not
}

// resolves reports whether op acts on an existing mailbox, which the
// resolve step finds before anything else.
func resolves(op Operation) bool {
	switch op.Action {
	case ActionResetPassword, ActionBlock, ActionUnblock, ActionOffboard:
		return true
	}
	return op.Action == ActionAliasAdd && op.To != ""
}

// locksOut reports whether op would take a mailbox from its owner (a new
// password, no logins): what mailbot never does to an administrator.
func locksOut(op Operation) bool {
	switch op.Action {
	case ActionResetPassword, ActionBlock, ActionOffboard:
		return true
	}
	return false
}

// resolve is the resolve step for op. A look-up that fails is the error,
// never a guess: nothing was done.
func (c *runService) resolve(ctx context.Context, op Operation) (resolution, error) {
	res := resolution{p: c.at(op.Domain), op: op}
	if !resolves(op) {
		return res, nil
	}
	if op.Action != ActionAliasAdd {
		m, refusal, err := c.resolveAddress(ctx, res.p, op.Login, op.Domain, locksOut(op))
		if err != nil || refusal != nil {
			res.refusal = refusal
			return res, err
		}
		res.mailbox = m
		res.op = ownAddress(res.op, &m.Mailbox)
		if ue := c.access.checkAllowed(CmdMailbox, res.op.Domain, res.op.Target()); ue != nil {
			r := usageReply(ue)
			res.refusal = &r
			return res, nil
		}
	}
	if op.To == "" {
		return res, nil
	}
	login, domain, _ := cutAddress(op.To)
	to, refusal, err := c.resolveAddress(ctx, c.at(domain), login, domain, false)
	if err != nil || refusal != nil {
		res.refusal = refusal
		return res, err
	}
	res.op.To = strings.ToLower(to.Address)
	return res, nil
}

// resolveAddress finds the mailbox login@domain names, refused when the
// address is only another name of it, or, where admins are refused, when
// it is an administrator or the account mailbot acts as; p is domain's
// provider.
func (c *runService) resolveAddress(ctx context.Context, p Provider, login, domain string, admins bool) (*apiclient.Resolved, *Reply, error) {
	m, err := p.ResolveMailbox(ctx, domain, login)
	if err != nil {
		return nil, nil, err
	}
	typed := login + "@" + domain
	var why string
	switch {
	case m.Alias && p.Capabilities().OwnAddresses:
		why = typed + " is another name of " + m.Address + ", whose own address that is: mailbot acts on a mailbox by its own address only."
	case m.Alias:
		why = typed + " is an alias of " + m.Address + ", not a mailbox of its own: mailbot acts on a mailbox by its own address only."
	case admins && m.ActsAs:
		why = m.Address + " is the account mailbot acts as: change it in the provider's console."
	case admins && m.Admin:
		why = m.Address + " is an administrator: change it in the provider's console."
	default:
		return m, nil, nil
	}
	return nil, &Reply{Title: "Not a mailbox mailbot may change", Text: why + " Nothing was done.", Error: true}, nil
}

// refusedTarget is the result of an operation that the resolve step
// refused, or whose look-up failed: nothing was done, and no audit entry
// was begun.
func (c *runService) refusedTarget(n Notice, r resolution, err error) Result {
	n.NothingDone = true
	if r.refusal != nil {
		n.Code, n.Detail = CodeInvalid, "the address does not name a mailbox mailbot may change"
		c.logResult(n, nil)
		return Result{Reply: *r.refusal, Notice: n}
	}
	res := c.failure(n, err)
	res.Notice.NothingDone, res.Notice.Uncertain = true, false
	if apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
		res.Reply.Note = "Nothing was done: mailbot could not find out which mailbox " + n.Op.Target() + " is. Try again later."
	}
	c.logResult(res.Notice, err)
	return res
}

// resolvePending runs the resolve step on a request before it is posted
// for approval, so that the admins are asked about the mailbox's own
// address; a refusal or a failed look-up is the answer, with nothing
// asked of the admins.
func (c *runService) resolvePending(ctx context.Context, to Route, d *Decision) (string, bool) {
	r, err := c.resolve(ctx, d.Op)
	if err == nil && r.refusal == nil {
		d.Op, d.Pending.Op = r.op, r.op
		return "", true
	}
	res := c.refusedTarget(c.noticeOf(to.User, d.Op), r, err)
	res.Reply.Text += " Nothing was asked of the admins."
	c.deliver(ctx, to, res.Reply)
	if r.refusal != nil {
		return LabelRefused, false
	}
	return LabelError, false
}

// resolveOwn runs the resolve step on a self-service reset before it is
// counted: the caller's e-mail must be the own address of a mailbox that
// mailbot may reset, never a shared alias or an administrator's.
func (c *runService) resolveOwn(ctx context.Context, to Route, op Operation) (string, bool) {
	r, err := c.resolve(ctx, op)
	if err == nil && r.refusal == nil {
		return "", true
	}
	res := c.refusedTarget(c.noticeOf(to.User, op), r, err)
	if r.refusal == nil {
		c.deliver(ctx, to, res.Reply)
		return LabelError, false
	}
	c.deliver(ctx, to, Reply{Title: "No self-service reset", Error: true,
		Text: r.refusal.Text + " Self-service resets only the mailbox whose own address is the e-mail of your Slack profile.",
		Note: "An admin can reset a mailbox for you: /mailbox reset alice@example.com for @alice."})
	return LabelRefused, false
}

// noticeOf is the notice of actor's op, before it runs, at its domain's
// provider.
func (c *runService) noticeOf(actor string, op Operation) Notice {
	p := c.at(op.Domain)
	return Notice{Actor: actor, Op: op, Provider: p.Name(), ProviderTitle: p.Capabilities().Title}
}
