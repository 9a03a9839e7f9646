package commands

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"
)

// mayClick says why k.User may not make this click, or "" when they may.
func (c *approvalService) mayClick(k Click, p Pending) string {
	switch k.Kind {
	case ButtonCancel:
		if k.User != p.Requester {
			return "Only the person who made the request may cancel it."
		}
		return ""
	case ButtonApprove, ButtonDeny:
		if !c.access.mayDecide(k.User, p.Op) {
			if c.access.isDomainAdmin(k.User) {
				return "You are an admin of some domains only, and this request touches others: a mailbot admin or an admin of its domains must decide it."
			}
			return "Only mailbot admins may approve or deny requests."
		}
		if c.cfg.Approvals == ApprovalsAll && k.User == p.Requester {
			return "You made this request yourself: another admin must decide it."
		}
		return ""
	}
	return "mailbot does not know this button."
}

// confirmPending makes sure that a click acts on its own request, and
// not on one decided before a restart. A value is honoured only on the
// message of the request it carries: the store's record of that message,
// or, when the store has none, the clicked message read back. Without a
// database a request the store does not know may have been decided before
// a restart, so its message is read back and nothing runs when it shows
// a decision. When the store cannot be read, the clicked message is
// dropped unchecked (the store's own answer comes next, with the message
// it knows). It answers the clicker and returns false when the click must
// go no further.
func (c *approvalService) confirmPending(ctx context.Context, k *Click, p Pending) (bool, string) {
	rec, known, err := c.store.Get(ctx, p.ID)
	switch {
	case c.storeFailed(err, "get"):
		k.Message = MessageRef{}
		return true, ""
	case known && !rec.Message.IsZero():
		if k.Message.IsZero() || k.Message == rec.Message {
			return true, ""
		}
		return false, c.refuseMoved(ctx, *k, p)
	case !k.Message.IsZero():
		return c.readBack(ctx, *k, p)
	case known || c.store.Durable():
		return true, ""
	}
	advice := "use the buttons of the request message in the ops channel."
	if k.Kind == ButtonCancel {
		advice = "ask an admin to deny it, or let it expire."
	}
	c.deliver(ctx, k.Route, Reply{Title: "Cannot confirm this request", Error: true,
		Text: "mailbot restarted since this request was made and cannot tell from here whether it is still pending. Nothing was done: " + advice})
	return false, LabelInvalid
}

// readBack reads the clicked message back: the click goes on only when
// the message still offers the buttons of p itself.
func (c *approvalService) readBack(ctx context.Context, k Click, p Pending) (bool, string) {
	value, err := c.msgr.RequestValue(ctx, k.Message)
	if err != nil {
		c.logger.Warn("request message not read back", zap.String("request_id", p.ID), zap.Error(err))
		c.deliver(ctx, k.Route, Reply{Title: "Cannot confirm this request", Error: true,
			Text: "mailbot could not read the request message back to check that nobody decided it before. Nothing was done; try again in a minute."})
		return false, LabelError
	}
	if value == "" {
		c.deliver(ctx, k.Route, Reply{Title: "Already decided",
			Text: fmt.Sprintf("The request to %s by %s was decided before; its message shows the decision. Nothing more was done.", p.Op, c.cfg.Mention(p.Requester))})
		return false, LabelDecided
	}
	if shown, err := c.requests.DecodePending(value); err != nil || shown.ID != p.ID {
		return false, c.refuseMoved(ctx, k, p)
	}
	return true, ""
}

// refuseMoved refuses a value clicked on a message that is not its
// request's: a genuine Slack client never sends that, so it is logged.
func (c *approvalService) refuseMoved(ctx context.Context, k Click, p Pending) string {
	c.logger.Warn("button value refused: it belongs to another message", zap.String("request_id", p.ID), zap.String("user_id", k.User),
		zap.String("button", string(k.Kind)), zap.String("channel", k.Message.Channel), zap.String("message_ts", k.Message.TS))
	c.deliver(ctx, k.Route, Reply{Title: "This button is not valid here", Error: true,
		Text: "It carries another request than the message it was clicked on. Nothing was done, to either request."})
	return LabelInvalid
}

// approve counts an approval and, on the last one, runs the operation.
func (c *approvalService) approve(ctx context.Context, k Click, p Pending) string {
	if ue := c.policy.checkOp(p.Op); ue != nil {
		c.deliver(ctx, k.Route, Reply{Title: "Request no longer valid", Error: true, Text: ue.Problem + " Nothing was sent to " + c.titleAt(p.Op.Domain) + "."})
		return LabelInvalid
	}
	rec, res, err := c.store.Approve(ctx, p, k.User, c.cfg.ApprovalsRequired, c.cfg.Now())
	if c.storeFailed(err, "approve") {
		c.deliver(ctx, k.Route, replyStoreDown)
		return LabelStoreDown
	}
	rec.Message = c.messageOf(ctx, rec, k)
	switch res {
	case ApproveDuplicate:
		c.deliver(ctx, k.Route, Reply{Title: "Already counted",
			Text: fmt.Sprintf("You approved this request already. %s; another admin must approve it too.", c.requests.approvalsLine(rec.Approvers))})
		return LabelDecided
	case ApproveClosed:
		c.deliver(ctx, k.Route, c.alreadyDecided(rec))
		return LabelDecided
	case ApproveExpired:
		c.announceExpiry(ctx, rec)
		c.deliver(ctx, k.Route, c.expiredReply(rec.Pending))
		return LabelExpired
	case ApproveCounted:
		c.record(ctx, rec, EventApproval, rec.Approvers)
		c.requests.updateRequest(ctx, rec)
		c.deliver(ctx, k.Route, Reply{Title: "Approval counted",
			Text: fmt.Sprintf("You approved the request to %s by %s. %s: it runs when %d admins have approved.",
				p.Op, c.cfg.Mention(p.Requester), c.requests.approvalsLine(rec.Approvers), c.cfg.ApprovalsRequired)})
		return LabelCounted
	}
	c.record(ctx, rec, EventApproved, rec.Approvers)
	if p.Op.Action == ActionImport {
		return c.imports.runApprovedImport(ctx, k, rec, p)
	}
	return c.runApproved(ctx, k, rec)
}

// messageOf is where rec's message is: as the store knows it, or else
// the message clicked (confirmPending found it is rec's), which the store
// is then told.
func (c *approvalService) messageOf(ctx context.Context, rec Record, k Click) MessageRef {
	if !rec.Message.IsZero() || k.Message.IsZero() {
		return rec.Message
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	c.requests.attach(ectx, rec.ID, k.Message)
	return k.Message
}

// runApproved runs the operation of a request that Approve moved to
// running, records how it ended, updates the request message (the ops
// notice of the operation) and gives the result to the requester.
func (c *approvalService) runApproved(ctx context.Context, k Click, rec Record) string {
	p := rec.Pending
	if !c.markRunning(ctx, k, rec) {
		return LabelError
	}
	res := c.runs.run(ctx, p.Requester, rec.Approvers, p.ID, p.Op)
	n := res.Notice
	bare := n
	bare.Approvers = nil // said first
	to, summary := StateDone, bare.Summary(storedMention)
	switch {
	case !n.OK && n.NothingDone:
		return c.reopen(ctx, k, rec, n)
	case n.Uncertain:
		to = StateUncertain
	case !n.OK:
		to = StateFailed
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	c.requests.finish(ectx, p.ID, to, summary)
	rec.State, rec.RunText = to, summary
	c.requests.updateRequest(ctx, rec)
	c.deliverResult(ctx, Route{User: p.Requester, Channel: p.Channel}, res)
	outcome := "It succeeded; " + c.cfg.Mention(p.Requester) + " gets the result."
	switch {
	case n.Uncertain:
		outcome = "Whether it happened is unknown (" + n.Code + "): it may have. " + c.cfg.Mention(p.Requester) + " is told to check before asking again."
	case !n.OK:
		outcome = "It failed: " + n.Code + " (" + n.Why() + "). " + c.cfg.Mention(p.Requester) + " is told."
	}
	c.deliver(ctx, k.Route, Reply{Title: "Request approved", Error: !n.OK,
		Text: fmt.Sprintf("You approved the request to %s by %s. %s", p.Op, c.cfg.Mention(p.Requester), outcome)})
	return res.label()
}

// markRunning makes the decision durable before the PDD API is called,
// when the store alone cannot: without a database the request message is
// the only record that outlives the process, so it must show the
// decision (no buttons) before the run. When that update fails, nothing
// runs: the request is pending again and the clicker is told. With a
// database the store's compare-and-set is the record.
func (c *approvalService) markRunning(ctx context.Context, k Click, rec Record) bool {
	if c.store.Durable() || rec.Message.IsZero() {
		return true
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	err := c.msgr.UpdateRequest(ectx, rec.Message, c.requests.requestView(rec))
	if err == nil {
		return true
	}
	c.logger.Warn("request message not marked running: nothing runs", zap.String("request_id", rec.ID), zap.Error(err))
	text := "mailbot could not mark the request as approved in its message, the only record of the decision it keeps, so nothing was done: the request can be approved again."
	c.backToPending(ectx, rec, text)
	c.deliver(ctx, k.Route, Reply{Title: "The approved operation did not run", Error: true,
		Text: fmt.Sprintf("You approved the request to %s, but %s Try again in a minute.", rec.Op, text)})
	return false
}

// reopen returns a request whose run certainly did nothing to pending:
// the approval is not used up, and the message offers the buttons again.
func (c *approvalService) reopen(ctx context.Context, k Click, rec Record, n Notice) string {
	why := fmt.Sprintf("%s (%s)", n.Code, n.Why())
	approvers := make([]string, len(rec.Approvers))
	for i, a := range rec.Approvers {
		approvers[i] = storedMention(a)
	}
	text := fmt.Sprintf("Approved by %s, but the run failed at %s: %s. Nothing was done: the request can be approved again.",
		strings.Join(approvers, ", "), fmtTime(c.cfg.Now()), why)
	c.backToPending(ctx, rec, text)
	c.deliver(ctx, k.Route, Reply{Title: "The approved operation failed", Error: true,
		Text: fmt.Sprintf("You approved the request to %s, but it failed: %s. Nothing was done, and the request waits for approval again: try again later.", rec.Op, why)})
	return LabelError
}

// backToPending returns a running request whose run did nothing to
// pending, its approvals cleared, and shows that, with text, in its
// message: the approval is not used up.
func (c *approvalService) backToPending(ctx context.Context, rec Record, text string) {
	ectx, cancel := detach(ctx)
	defer cancel()
	c.requests.finish(ectx, rec.ID, StatePending, text)
	rec.State, rec.Approvers, rec.RunText = StatePending, nil, text
	c.requests.updateRequest(ctx, rec)
}

// end denies or cancels p.
func (c *approvalService) end(ctx context.Context, k Click, p Pending, to State) string {
	now := c.cfg.Now()
	if !now.Before(p.Expires) {
		to = StateExpired
	}
	rec, ended, err := c.store.End(ctx, p, to, k.User, now)
	if c.storeFailed(err, "end") {
		c.deliver(ctx, k.Route, replyStoreDown)
		return LabelStoreDown
	}
	rec.Message = c.messageOf(ctx, rec, k)
	switch {
	case !ended:
		c.deliver(ctx, k.Route, c.alreadyDecided(rec))
		return LabelDecided
	case to == StateExpired:
		c.announceExpiry(ctx, rec)
		c.deliver(ctx, k.Route, c.expiredReply(p))
		return LabelExpired
	case to == StateDenied:
		c.record(ctx, rec, EventDenied, []string{k.User})
		c.requests.updateRequest(ctx, rec)
		c.deliver(ctx, Route{User: p.Requester, Channel: p.Channel}, Reply{Title: "Request denied", Error: true,
			Text: fmt.Sprintf("%s denied your request to %s. Nothing was done.", c.cfg.Mention(k.User), p.Op)})
		c.deliver(ctx, k.Route, Reply{Title: "Request denied",
			Text: fmt.Sprintf("You denied the request to %s by %s. Nothing was sent to %s.", p.Op, c.cfg.Mention(p.Requester), c.titleAt(p.Op.Domain))})
		return LabelDenied
	}
	c.record(ctx, rec, EventCancelled, []string{k.User})
	c.requests.updateRequest(ctx, rec)
	c.deliver(ctx, k.Route, Reply{Title: "Request cancelled",
		Text: fmt.Sprintf("You cancelled your request to %s. Nothing was done.", p.Op)})
	return LabelCancelled
}

// alreadyDecided tells a clicker what became of a request decided before.
func (c *approvalService) alreadyDecided(rec Record) Reply {
	var what string
	switch rec.State {
	case StateRunning:
		what = "was approved by " + c.requests.mentionAll(rec.Approvers) + " and is running"
	case StateDone, StateFailed, StateUncertain:
		what = fmt.Sprintf("was approved by %s at %s (%s)", c.requests.mentionAll(rec.Approvers), fmtTime(rec.DecidedAt), rec.State)
	case StateDenied:
		what = fmt.Sprintf("was denied by %s at %s", c.cfg.Mention(rec.DecidedBy), fmtTime(rec.DecidedAt))
	case StateCancelled:
		what = fmt.Sprintf("was cancelled by the requester at %s", fmtTime(rec.DecidedAt))
	case StateExpired:
		what = "expired without a decision"
	default:
		what = "was decided before"
	}
	return Reply{Title: "Already decided", Text: fmt.Sprintf("The request to %s by %s %s. Nothing more was done.", rec.Op, c.cfg.Mention(rec.Requester), what)}
}

// expiredReply tells a clicker that p expired.
func (c *approvalService) expiredReply(p Pending) Reply {
	return Reply{Title: "Request expired", Error: true,
		Text: fmt.Sprintf("The request to %s by %s expired at %s and can no longer be decided. Nothing was sent to %s; %s may ask again.",
			p.Op, c.cfg.Mention(p.Requester), fmtTime(p.Expires), c.titleAt(p.Op.Domain), c.cfg.Mention(p.Requester))}
}

// record adds a decision to the audit trail; a failure is logged.
func (c *approvalService) record(ctx context.Context, rec Record, ev Event, deciders []string) {
	ectx, cancel := detach(ctx)
	defer cancel()
	e := c.entry(ev, rec.ID, rec.Requester, rec.Op.Action, rec.Op.Domain, rec.Op.Login)
	e.Deciders, e.Reason, e.To, e.HandedTo = deciders, rec.Op.Reason, rec.Op.To, rec.Op.For
	if err := c.store.AppendAudit(ectx, e); err != nil {
		c.logger.Error("decision not recorded in the audit trail", zap.String("request_id", rec.ID), zap.String("event", string(ev)), zap.Error(err))
	}
}
