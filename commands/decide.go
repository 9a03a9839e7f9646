package commands

import (
	"errors"
	"fmt"
)

// Decide parses and validates req and decides, by the policy, whether it is
// answered at once, run now, or needs approval. It never calls the API.
// Validation comes before authorisation, so that a person learns what is
// wrong with the input whoever they are.
func (c *Core) Decide(req Request) Decision {
	inv, err := Parse(req.Command, req.Text)
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return Decision{Step: StepReply, Reply: usageReply(ue)}
		}
		return Decision{Step: StepReply, Reply: Help(req.Command)}
	}
	switch {
	case inv.Help:
		return Decision{Step: StepReply, Reply: c.help(inv.Command)}
	case inv.Check:
		return Decision{Step: StepCheck, Op: inv.Op}
	case inv.Bare && inv.Op.Action == ActionResetPassword && c.cfg.SelfService == SelfServiceReset:
		return Decision{Step: StepSelfService, Op: inv.Op}
	case inv.Bare:
		if outcome, why := c.authorise(req.UserID); outcome == StepReply {
			return c.notAllowed(why)
		}
		if inv.Op.Action == ActionImport {
			return Decision{Step: StepForm, Op: inv.Op, Form: c.importForm(req), Reply: c.help(inv.Command)}
		}
		return Decision{Step: StepForm, Op: inv.Op, Form: c.form(req, inv.Op.Action), Reply: c.help(inv.Command)}
	}
	op := inv.Op
	if inv.Read && op.Action == ActionListAliases {
		return c.decideAliasesRead(req.UserID, op)
	}
	if inv.Read {
		if !c.IsAdmin(req.UserID) {
			return c.notAllowed("Only mailbot admins may read what the provider holds.")
		}
		return c.decideRead(op)
	}
	op, aue := c.aliasDefaults(op)
	if aue != nil {
		return Decision{Step: StepReply, Reply: usageReply(aue)}
	}
	if op.Action.OnMailbox() && op.Domain == "" {
		if c.cfg.DefaultDomain == "" {
			return Decision{Step: StepReply, Reply: usageReply(&UsageError{Command: CmdMailbox,
				Problem: fmt.Sprintf("No domain given for %s, and mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).", op.Login),
				Fix:     fmt.Sprintf("/mailbox %s %s@example.com or /mailbox %s %s example.com", op.Action, op.Login, op.Action, op.Login)})}
		}
		op.Domain = c.cfg.DefaultDomain
	}
	ue := c.checkOp(op)
	if ue != nil {
		return Decision{Step: StepReply, Reply: usageReply(ue)}
	}
	return c.selfServiceOr(req, op, c.decideOp(req, op))
}

// decideOp decides, by the policy, what becomes of the valid operation op
// that req asks for.
func (c *Core) decideOp(req Request, op Operation) Decision {
	outcome, why := c.authorise(req.UserID)
	switch outcome {
	case StepReply:
		return c.notAllowed(why)
	case StepRun:
		return Decision{Step: StepRun, Op: op}
	}
	now := c.now()
	p := &Pending{ID: newID(), Requester: req.UserID, Channel: req.ChannelID, Op: op, Created: now, Expires: now.Add(c.cfg.ApprovalTTL)}
	return Decision{Step: StepApproval, Op: op, Pending: p}
}

// notAllowed refuses a person who may not run operations.
func (c *Core) notAllowed(why string) Decision {
	return Decision{Step: StepReply, Reply: Reply{Title: "Not allowed", Text: why,
		Note: "Ask a mailbot admin to do it for you.", Error: true}}
}

// decideRead reads op.Domain, or the default domain when none is given
// (list), once the allow-list has it.
func (c *Core) decideRead(op Operation) Decision {
	cmd := op.Action.Command()
	if op.Domain == "" {
		if c.cfg.DefaultDomain == "" {
			return Decision{Step: StepReply, Reply: usageReply(&UsageError{Command: cmd,
				Problem: "Give exactly one domain: mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).",
				Fix:     cmd + " " + string(op.Action) + " example.com", Usage: true})}
		}
		op.Domain = c.cfg.DefaultDomain
	}
	if ue := c.checkAllowed(cmd, op.Domain, op.Domain); ue != nil {
		return Decision{Step: StepReply, Reply: usageReply(ue)}
	}
	return Decision{Step: StepRead, Op: op}
}
