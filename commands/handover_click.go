package commands

import (
	"context"
	"fmt"

	"strings"

	"go.uber.org/zap"
)

// Labels of the clicks on Show my password, for metrics.
const (
	LabelShown = "handover_shown"
)

// clickShow carries out a click on Show my password: only its owner,
// before its deadline, once on any number of replicas. The claim is taken
// in the store before the provider is called; a click that changes
// nothing at the provider gives the claim back, and the button stays.
func (c *handoverService) clickShow(ctx context.Context, k Click) string {
	h, err := c.DecodeHandover(k.Value)
	if err != nil {
		c.logger.Warn("hand-over value rejected", zap.String("user_id", k.User), zap.Error(err))
		return c.refuseShow(ctx, k, LabelInvalid, "This button is not valid", "mailbot cannot read it. Nothing was done.")
	}
	if k.User != h.Owner {
		c.logger.Warn("hand-over clicked by someone else", zap.String("handover_id", h.ID), zap.String("user_id", k.User))
		return c.refuseShow(ctx, k, LabelRefused, "Not yours",
			fmt.Sprintf("These credentials are for %s alone. Nothing was done.", c.cfg.Mention(h.Owner)))
	}
	if ok, label := c.confirmHandover(ctx, &k, h); !ok {
		return label
	}
	rec, res, err := c.store.ClaimHandover(ctx, h, c.cfg.Now())
	if c.storeFailed(err, "claim hand-over") {
		c.observe(HandoverRefused)
		c.deliver(ctx, k.Route, replyStoreDown)
		return LabelStoreDown
	}
	if rec.Message.IsZero() {
		rec.Message = k.Message
	}
	switch res {
	case ClaimExpired:
		c.announceHandoverExpiry(ctx, rec)
		return c.refuseShow(ctx, k, LabelExpired, "Expired", fmt.Sprintf("This offer expired at %s. Nothing was done: ask %s for a new one.", fmtTime(h.Expires), c.askWhom(h)))
	case ClaimClosed:
		if rec.State == HandoverStateVoided {
			c.updateHandover(ctx, rec)
			return c.refuseShow(ctx, k, LabelDecided, "No longer valid", voidedText(rec)+" Nothing was done.")
		}
		return c.refuseShow(ctx, k, LabelDecided, "Already used", c.closedText(rec))
	}
	if !c.markShowing(ctx, k, rec) {
		return LabelError
	}
	return c.show(ctx, k, rec)
}

// refuseShow answers a click that is not honoured.
func (c *handoverService) refuseShow(ctx context.Context, k Click, label, title, text string) string {
	c.observe(HandoverRefused)
	c.deliver(ctx, k.Route, Reply{Title: title, Text: text, Error: true})
	return label
}

// closedText says why a claimed hand-over cannot be shown again.
func (c *handoverService) closedText(rec HandoverRecord) string {
	switch rec.State {
	case HandoverStateShown:
		return fmt.Sprintf("This password was shown at %s, and is shown once only. Nothing was done: if you lost it, ask for a reset.", fmtTime(rec.DoneAt))
	case HandoverStateExpired:
		return fmt.Sprintf("This offer expired at %s. Nothing was done.", fmtTime(rec.Expires))
	}
	return "Your password is being set by your other click: its answer follows. Nothing more was done."
}

// confirmHandover makes sure a click acts on its own direct message and,
// without a database, that the message read back still offers the
// button (the store of a restarted process does not know the hand-over).
func (c *handoverService) confirmHandover(ctx context.Context, k *Click, h Handover) (bool, string) {
	rec, known, err := c.store.GetHandover(ctx, h.ID)
	switch {
	case c.storeFailed(err, "get hand-over"):
		return true, "" // the claim's own answer comes next
	case known && !rec.Message.IsZero() && !k.Message.IsZero() && rec.Message != k.Message:
		return false, c.refuseShow(ctx, *k, LabelInvalid, "This button is not valid here", "It carries another offer than the message it was clicked on. Nothing was done.")
	case known || c.store.Durable() || k.Message.IsZero():
		return true, ""
	}
	value, err := c.msgr.HandoverValue(ctx, k.Message)
	if err != nil {
		c.logger.Warn("hand-over message not read back", zap.String("handover_id", h.ID), zap.Error(err))
		return false, c.refuseShow(ctx, *k, LabelError, "Try again in a minute", "mailbot could not read its message back to check that the password was not shown before. Nothing was done.")
	}
	if value == "" {
		return false, c.refuseShow(ctx, *k, LabelDecided, "Already used", "This offer was used, replaced or expired before; its message says which. Nothing was done.")
	}
	if shown, err := c.DecodeHandover(value); err != nil || shown.ID != h.ID {
		return false, c.refuseShow(ctx, *k, LabelInvalid, "This button is not valid here", "It carries another offer than the message it was clicked on. Nothing was done.")
	}
	return true, ""
}

// markShowing takes the button off the message before the provider is
// called when the store alone cannot record the claim beyond this
// process (no database): the message is then the record. When that
// fails, nothing is set and the claim is given back.
func (c *handoverService) markShowing(ctx context.Context, k Click, rec HandoverRecord) bool {
	if c.store.Durable() || rec.Message.IsZero() {
		return true
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.msgr.UpdateHandover(ectx, rec.Message, c.handoverView(rec)); err == nil {
		return true
	}
	c.release(ectx, rec)
	c.refuseShow(ctx, k, LabelError, "Try again in a minute", "mailbot could not mark its message as used, the only record it keeps, so nothing was done.")
	return false
}

// show sets a new password for the owner's mailbox and shows it to them
// alone. A failure that certainly changed nothing gives the claim back;
// an unconfirmed reset shows the password sent, with a warning.
func (c *handoverService) show(ctx context.Context, k Click, rec HandoverRecord) string {
	if rec.Action == ActionImport {
		return c.imports.showImport(ctx, k, rec)
	}
	h := rec.Handover
	n := Notice{Actor: h.Owner, Op: Operation{Action: ActionResetPassword, Domain: h.Domain, Login: h.Login}, Provider: c.nameAt(h.Domain)}
	res, begun := c.resetShown(ctx, h.ID, n)
	if !begun {
		c.release(ctx, rec)
		c.deliver(ctx, k.Route, replyStoreDown)
		return LabelStoreDown
	}
	if !res.Notice.OK && !res.Notice.Uncertain {
		return c.showFailed(ctx, k, rec, res)
	}
	return c.shown(ctx, k, rec, res)
}

// resetShown sets a new password on the mailbox of n, a reset for the
// owner of a hand-over (n.Actor), and audits it under requestID as the
// hand-over shown. begun is false when the audit store could not begin
// the entry: then nothing was changed.
func (c *handoverService) resetShown(ctx context.Context, requestID string, n Notice) (res Result, begun bool) {
	e := c.entry(EventHandoverShown, requestID, n.Actor, ActionResetPassword, n.Op.Domain, n.Op.Login)
	e.Provider, e.HandedTo = n.Provider, n.Actor
	res, begun, _ = c.runWrite(ctx, write{entry: e, notice: n,
		perform: func(ctx context.Context, n Notice) (Result, error) { return c.mailboxes.resetPassword(ctx, n, nil) }})
	return res, begun
}

// showFailed gives the claim back after a click that set nothing.
func (c *handoverService) showFailed(ctx context.Context, k Click, rec HandoverRecord, res Result) string {
	c.release(ctx, rec)
	r := withoutSecrets(res.Reply)
	r.Note = "Nothing was changed: your button still works. Try again later."
	if res.Notice.Code == CodeInvalid { // refused as it is: trying again changes nothing
		r.Note = "Nothing was changed. Ask an admin: " + c.titleOf(res.Notice) + " holds this mailbox as one mailbot may not change."
		c.deliver(ctx, k.Route, r)
		return LabelRefused
	}
	c.deliver(ctx, k.Route, r)
	return LabelError
}

// shown gives the owner the password and records that it was shown. When
// no route reaches them, the claim is given back: a password nobody was
// given is replaced at their next click.
func (c *handoverService) shown(ctx context.Context, k Click, rec HandoverRecord, res Result) string {
	r := res.Reply
	if res.Notice.OK {
		r.Title = "Your password for " + rec.Target()
		r.Note = strings.Replace(r.Note, "Pass it on privately: mailbot does not keep it.", "It is shown once: mailbot keeps no copy.", 1)
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.msgr.Deliver(ectx, k.Route, r); err != nil {
		c.logger.Error("handed-over password not delivered: the offer stays open", zap.String("handover_id", rec.ID), zap.Error(err))
		c.release(ectx, rec)
		return LabelError
	}
	c.markShown(ectx, rec)
	c.logger.Info("hand-over shown", zap.String("handover_id", rec.ID), zap.String("owner", rec.Owner), zap.String("target", rec.Target()))
	return LabelShown
}

// release gives a claim back, and the message its button.
func (c *handoverService) release(ctx context.Context, rec HandoverRecord) {
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.store.ReleaseHandover(ectx, rec.ID); err != nil {
		c.logger.Error("hand-over claim not given back", zap.String("handover_id", rec.ID), zap.Error(err))
	}
	rec.State = HandoverStateOffered
	c.updateHandover(ectx, rec)
}

// updateHandover shows rec's state in its message, if it has one.
func (c *handoverService) updateHandover(ctx context.Context, rec HandoverRecord) {
	if rec.Message.IsZero() {
		if cur, ok, err := c.store.GetHandover(ctx, rec.ID); err == nil && ok {
			rec.Message = cur.Message
		}
	}
	if rec.Message.IsZero() {
		return
	}
	if err := c.msgr.UpdateHandover(ctx, rec.Message, c.handoverView(rec)); err != nil {
		c.logger.Warn("hand-over message not updated", zap.String("handover_id", rec.ID), zap.Error(err))
	}
}

// markShown records the hand-over rec as shown, now. ctx is detached from
// the click's: the password is out, so the record must follow.
func (c *handoverService) markShown(ctx context.Context, rec HandoverRecord) {
	now := c.cfg.Now()
	if err := c.store.ShownHandover(ctx, rec.ID, now); err != nil {
		c.logger.Error("hand-over not recorded as shown", zap.String("handover_id", rec.ID), zap.Error(err))
	}
	rec.State, rec.DoneAt = HandoverStateShown, now
	// Counted before the message loses its button, which is what a reader
	// of the message (and of the metric) sees last.
	c.observe(HandoverShown)
	c.updateHandover(ctx, rec)
}
