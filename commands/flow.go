package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// effectTimeout bounds one answer or notice. It is not the work's
// deadline: answers go out even after the work ran out of time (docs/delivery.md).
const effectTimeout = 15 * time.Second

// detach returns a context for answers and notices that the work's end
// does not cancel.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), effectTimeout)
}

// replyStoreDown answers work that could not be recorded (docs/state.md).
var replyStoreDown = Reply{Title: "mailbot cannot reach its database", Error: true,
	Text: "mailbot cannot reach its database; nothing was done. Try again in a minute."}

// Labels that Execute and Click return, for metrics.
const (
	LabelOK        = "ok"
	LabelError     = "error"
	LabelRequested = "approval_requested"
	LabelAnswered  = "answered"
	LabelRefused   = "refused"
	LabelCounted   = "approval_counted"
	LabelApproved  = "approved"
	LabelDenied    = "denied"
	LabelCancelled = "cancelled"
	LabelExpired   = "expired"
	LabelDecided   = "already_decided"
	LabelInvalid   = "invalid"
	LabelStoreDown = "store_unavailable"
)

// Execute carries out d, which Decide returned for what to.User typed:
// it runs the operation, posts the approval request, or checks DNS, and
// answers to.User through the messenger. It returns a label for metrics.
func (c *Core) Execute(ctx context.Context, to Route, d Decision) string {
	if d.Import != nil {
		return c.imports.executeImport(ctx, to, d)
	}
	switch d.Step {
	case StepRun:
		return c.runs.runNow(ctx, to, d.Op, "")
	case StepApproval:
		if label, ok := c.runs.resolvePending(ctx, to, &d); !ok {
			return label
		}
		if d.Op.For != "" {
			if why := c.handovers.reachable(ctx, d.Op.For); why != "" {
				c.deliver(ctx, to, Reply{Title: "Not allowed", Text: why + " Nothing was asked of the admins.", Error: true})
				return LabelRefused
			}
		}
		return c.requests.submit(ctx, to, *d.Pending)
	case StepSelfService:
		label, fallBack := c.mailboxes.selfService(ctx, to, d)
		if fallBack {
			return c.Execute(ctx, to, *d.Fallback)
		}
		return label
	case StepCheck:
		c.deliver(ctx, to, c.reads.checkDNS(ctx, d.Op.Domain))
		return LabelAnswered
	case StepRead:
		c.deliver(ctx, to, c.reads.read(ctx, to.User, d.Op, ""))
		return LabelAnswered
	}
	c.deliver(ctx, to, d.Reply)
	if d.Reply.Error {
		return LabelRefused
	}
	return LabelAnswered
}

// submit records a new request, posts it for the admins and tells the
// requester it waits, with a Cancel button. Nothing reaches the PDD API.
func (c *requestService) submit(ctx context.Context, to Route, p Pending) string {
	if err := c.store.Submit(ctx, p); err != nil {
		var pe *PendingExistsError
		if errors.As(err, &pe) {
			c.deliver(ctx, to, Reply{Title: "A request for this is waiting already", Error: true,
				Text: fmt.Sprintf("Request %s to %s is pending: nothing more was asked. It can be decided, or cancelled by its requester, before another is made.", pe.ID, p.Op)})
			return LabelRefused
		}
		c.logger.Warn("request not recorded", zap.String("request_id", p.ID), zap.Error(err))
		if !errors.Is(err, ErrStoreUnavailable) {
			c.deliver(ctx, to, Reply{Title: "Your request could not be recorded", Error: true, Text: "Nothing was done. Try again."})
			return LabelError
		}
		c.deliver(ctx, to, replyStoreDown)
		return LabelStoreDown
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	ref, err := c.msgr.PostRequest(ectx, c.requestView(Record{Pending: p, State: StatePending}))
	if err != nil {
		c.logger.Error("approval request not posted", zap.String("request_id", p.ID), zap.Error(err))
		if _, _, err := c.store.End(ectx, p, StateCancelled, p.Requester, c.cfg.Now()); err != nil {
			c.logger.Warn("unposted request not ended", zap.String("request_id", p.ID), zap.Error(err))
		}
		c.deliver(ctx, to, Reply{Title: "Your request could not be sent to the admins", Error: true,
			Text: "Nothing was done. Try again later, or ask an admin."})
		return LabelError
	}
	c.attach(ectx, p.ID, ref)
	c.logger.Info("approval requested", zap.String("request_id", p.ID), zap.String("actor", p.Requester),
		zap.String("action", string(p.Op.Action)), zap.String("target", p.Op.Target()))
	c.deliver(ctx, to, c.pendingReply(p))
	return LabelRequested
}

// deliver gives r to to.User; a failure is logged.
func (c *shared) deliver(ctx context.Context, to Route, r Reply) {
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.msgr.Deliver(ectx, to, r); err != nil {
		c.logger.Warn("answer not delivered", zap.String("user_id", to.User), zap.String("title", r.Title), zap.Error(err))
	}
}

// deliverResult gives an operation's result to to.User. When no route
// reaches them, the ops channel is told that the result of that operation
// could not be delivered, with the target and never the secret (docs/delivery.md).
func (c *shared) deliverResult(ctx context.Context, to Route, res Result) {
	ectx, cancel := detach(ctx)
	defer cancel()
	err := c.msgr.Deliver(ectx, to, res.Reply)
	if err == nil {
		return
	}
	c.logger.Error("result not delivered", zap.String("user_id", to.User), zap.String("action", string(res.Notice.Op.Action)),
		zap.String("target", res.Notice.Op.Target()), zap.Bool("ok", res.Notice.OK), zap.Error(err))
	c.notify(ctx, fmt.Sprintf("The result of %s for %s could not be delivered to them: mailbot found no way to reach them privately. Nothing secret is shown here; %s",
		res.Notice.Op, c.cfg.Mention(to.User), undeliveredAdvice(res.Notice)))
}

func undeliveredAdvice(n Notice) string {
	switch {
	case n.Uncertain && n.Op.Action == ActionAddMailbox:
		return "whether it happened is unknown: " + n.ProviderTitle + " gave no usable answer, so the mailbox may exist; check before trying again."
	case n.Uncertain && n.Op.Action == ActionRegisterDomain:
		return "whether it happened is unknown: " + n.ProviderTitle + " gave no usable answer, so the domain may be registered; /maildomain register again is harmless and shows its status."
	case n.Uncertain:
		return "whether it happened is unknown: " + n.ProviderTitle + " gave no usable answer; running it again is harmless."
	case n.OK && n.Op.Action.GivesPassword():
		return "the mailbox has a password nobody was given: an admin should run /mailbox reset " + n.Op.Target() + " and pass the new one on."
	case n.OK && n.Op.Action == ActionRegisterDomain:
		return "the domain is registered: run /maildomain register again to see its verification secrets."
	case n.OK:
		return "it was done: the mailbox is " + n.Status + "."
	}
	return "the operation did not succeed (" + n.Code + ")."
}

// notify tells the ops channel, if there is one; a failure is logged.
func (c *shared) notify(ctx context.Context, text string) {
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.msgr.Notify(ectx, text); err != nil {
		c.logger.Warn("ops notice not posted", zap.Error(err))
	}
}

// updateRequest shows rec's state in its message, if it has one. An
// update that leaves the request pending is checked against the store
// afterwards: when a later decision's update landed first, the message is
// updated again with the state the store holds, so that it never offers
// buttons for a request already decided.
func (c *requestService) updateRequest(ctx context.Context, rec Record) {
	ectx, cancel := detach(ctx)
	defer cancel()
	kept := false
	if rec.Message.IsZero() {
		rec.Message, kept = c.messageRef(ectx, rec.ID)
	}
	if rec.Message.IsZero() {
		return
	}
	err := c.msgr.UpdateRequest(ectx, rec.Message, c.requestView(rec))
	switch {
	case err != nil:
		c.logger.Warn("request message not updated", zap.String("request_id", rec.ID), zap.Error(err))
	case kept && rec.State.Final():
		c.forgetRef(rec.ID) // its message shows the end: nothing needs the reference any more
	}
	if rec.State != StatePending {
		return
	}
	cur, ok, err := c.store.Get(ectx, rec.ID)
	if err != nil || !ok || (cur.State == StatePending && slices.Equal(cur.Approvers, rec.Approvers)) {
		return
	}
	cur.Message = rec.Message
	if err := c.msgr.UpdateRequest(ectx, cur.Message, c.requestView(cur)); err != nil {
		c.logger.Warn("request message not updated", zap.String("request_id", rec.ID), zap.Error(err))
	}
}

// attach records where request id's message is. When the store cannot
// take it (its database is away), the reference is kept in the process
// and tried again at every sweep; meanwhile this process still finds the
// message to update (messageRef).
func (c *requestService) attach(ctx context.Context, id string, ref MessageRef) {
	err := c.store.Attach(ctx, id, ref)
	if err == nil {
		return
	}
	c.logger.Warn("request message not recorded: trying again at the next sweeps", zap.String("request_id", id), zap.Error(err))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unattached) < maxKept {
		c.unattached[id] = ref
	}
}

// messageRef is where request id's message is, for a record that does
// not say: kept in this process until the store takes it (kept is true),
// or recorded in the store since the record was read (by another
// replica). It is zero when neither knows.
func (c *requestService) messageRef(ctx context.Context, id string) (ref MessageRef, kept bool) {
	c.mu.Lock()
	ref, kept = c.unattached[id]
	c.mu.Unlock()
	if kept {
		return ref, true
	}
	rec, known, err := c.store.Get(ctx, id)
	if err != nil || !known {
		return MessageRef{}, false
	}
	return rec.Message, false
}

// forgetRef drops the kept reference of request id's message.
func (c *requestService) forgetRef(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.unattached, id)
}

// requestView is rec as its message shows it.
func (c *requestService) requestView(rec Record) RequestView {
	v := RequestView{Pending: rec.Pending, State: rec.State, Approvers: rec.Approvers, Need: c.cfg.ApprovalsRequired,
		Text: c.stateText(rec), AdminGroups: c.access.adminGroupNames()}
	if rec.State == StatePending {
		v.Value = c.EncodePending(rec.Pending)
		v.Text = strings.TrimSpace(v.Text + " " + c.access.decidersText(rec.Op))
		if rec.Op.Action == ActionImport {
			v.Text = strings.TrimSpace(c.imports.importPreview(context.Background(), rec.ID) + " " + v.Text)
		}
	}
	return v
}

// stateText says in words what became of rec, for its message; no secret.
func (c *requestService) stateText(rec Record) string {
	m := c.cfg.Mention
	switch rec.State {
	case StatePending:
		text := c.unstore(rec.RunText) // what a failed run said, if any
		if len(rec.Approvers) > 0 {
			text = c.approvalsLine(rec.Approvers)
		}
		switch {
		case rec.Op.For != "":
			text = strings.TrimSpace(text + " If approved, the credentials go to " + m(rec.Op.For) + " alone, in a direct message; nobody else sees the password.")
		case rec.Op.Action == ActionResetPassword:
			text = strings.TrimSpace(text + " If approved, the new password goes to " + m(rec.Requester) + " alone.")
		}
		return text
	case StateRunning:
		return fmt.Sprintf("Running, approved by %s: the outcome follows here.", c.mentionAll(rec.Approvers))
	case StateDone, StateFailed, StateUncertain:
		return fmt.Sprintf("Approved by %s at %s: %s", c.mentionAll(rec.Approvers), fmtTime(rec.DecidedAt), c.unstore(rec.RunText))
	case StateDenied:
		return fmt.Sprintf("Denied by %s at %s: %s", m(rec.DecidedBy), fmtTime(rec.DecidedAt), rec.Summary(m))
	case StateCancelled:
		return fmt.Sprintf("Cancelled by the requester, %s, at %s: %s", m(rec.DecidedBy), fmtTime(rec.DecidedAt), rec.Summary(m))
	case StateExpired:
		return fmt.Sprintf("Expired at %s without a decision: %s. Nothing was done.", fmtTime(rec.Expires), rec.Summary(m))
	}
	return ""
}

// storedMention marks a user ID in text the store keeps (a run's outcome):
// plain text, with no byte a database refuses. The reasons in such text
// went through CleanReason, which lets no "<@" through, so a mark there
// is always mailbot's own.
func storedMention(id string) string { return "<@" + id + ">" }

// unstore renders the marks of storedMention in s with Config.Mention.
func (c *requestService) unstore(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "<@")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '>')
		id := ""
		if j > 2 {
			id = s[i+2 : i+j]
		}
		if id == "" || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			b.WriteString(s[:i+2])
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(c.cfg.Mention(id))
		s = s[i+j+1:]
	}
}

// approvalsLine says how many approvals a request has: "1 of 2 approvals: Ada".
func (c *requestService) approvalsLine(approvers []string) string {
	return fmt.Sprintf("%d of %d approvals: %s", len(approvers), c.cfg.ApprovalsRequired, c.mentionAll(approvers))
}

// mentionAll lists user IDs as mentions: "A, B and C".
func (c *requestService) mentionAll(ids []string) string {
	s := ""
	for i, id := range ids {
		switch {
		case i == 0:
		case i == len(ids)-1:
			s += " and "
		default:
			s += ", "
		}
		s += c.cfg.Mention(id)
	}
	return s
}

// storeFailed reports whether err is the store's failure to reach its
// database, logging it.
func (c *shared) storeFailed(err error, what string) bool {
	if err == nil {
		return false
	}
	if !errors.Is(err, ErrStoreUnavailable) {
		c.logger.Error("store failed", zap.String("during", what), zap.Error(err))
	}
	return true
}
