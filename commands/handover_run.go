package commands

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"
)

// runEvent is the audit event of running op.
func runEvent(op Operation) Event {
	if op.SelfService {
		return EventSelfService
	}
	return EventRun
}

// refuseHandover refuses, before anything reaches the provider, a
// hand-over to a person whom a direct message cannot reach.
func (c *handoverService) refuseHandover(ctx context.Context, n Notice) (Result, bool) {
	if n.Op.For == "" {
		return Result{}, false
	}
	why := c.reachable(ctx, n.Op.For)
	if why == "" {
		return Result{}, false
	}
	n.Code, n.Detail, n.NothingDone = CodeInvalid, "the person cannot be reached by a direct message", true
	c.logResult(n, nil)
	return Result{Notice: n, Reply: Reply{Title: "Could not " + n.Op.String(), Error: true,
		Text: why + " Nothing was sent to " + c.titleOf(n) + "."}}, true
}

// handOver follows a run whose credentials go to n.Op.For. The run never
// wrote the password it set into its reply (credentials), and it is
// dropped unseen; withoutSecrets still guards the reply, and words a
// failure's note. The owner is sent a direct message with Show my
// password, and the requester's reply says where the credentials went,
// never what they are. id names the hand-over: "" for a new one, or an
// ID that a run resumed after a stop gives again, so that the direct
// message is posted at most once.
func (c *handoverService) handOver(ctx context.Context, res Result, reqID, id string) Result {
	n := res.Notice
	res.Reply = withoutSecrets(res.Reply)
	offer := n.OK || (n.Uncertain && n.Op.Action == ActionResetPassword)
	if !offer {
		return res
	}
	if id == "" {
		id = newID()
	}
	h := Handover{ID: id, Owner: n.Op.For, Requester: n.Actor, RequestID: reqID, Action: n.Op.Action,
		Domain: n.Op.Domain, Login: n.Op.Login, SelfService: n.Op.SelfService}
	h.Created = c.now()
	h.Expires = h.Created.Add(c.cfg.HandoverTTL)
	sent := c.offer(ctx, h)
	res.Reply = c.handedReply(n, h, sent, res.Reply)
	return res
}

// offer records h and sends its owner the direct message; it reports
// whether the message went out.
func (c *handoverService) offer(ctx context.Context, h Handover) bool {
	ectx, cancel := detach(ctx)
	defer cancel()
	voided, err := c.store.OfferHandover(ectx, h)
	switch {
	case errors.Is(err, ErrHandoverExists):
		rec, posted := c.offeredBefore(ectx, h.ID)
		if posted {
			return true
		}
		h, voided, err = rec.Handover, nil, nil
	case err != nil && c.store.Durable():
		// Not recorded, it could neither be voided by what comes after
		// nor be known after a restart: it is not posted.
		c.logger.Error("hand-over not recorded, so not posted", zap.String("handover_id", h.ID), zap.Error(err))
		return false
	case err != nil:
		// The click records it when the store knows it not.
		c.logger.Warn("hand-over not recorded", zap.String("handover_id", h.ID), zap.Error(err))
	}
	if c.showVoided(ectx, voided, h.ID) {
		c.logger.Warn("hand-over not posted: a later one of its mailbox is open", zap.String("handover_id", h.ID))
		return false
	}
	ref, err := c.msgr.OfferHandover(ectx, c.handoverView(HandoverRecord{Handover: h, State: HandoverStateOffered}))
	if err != nil {
		c.logger.Error("hand-over message not sent", zap.String("handover_id", h.ID), zap.String("owner", h.Owner), zap.Error(err))
		return false
	}
	if err := c.store.AttachHandover(ectx, h.ID, ref); err != nil {
		c.logger.Warn("hand-over message not recorded", zap.String("handover_id", h.ID), zap.Error(err))
	}
	c.observe(HandoverOffered)
	c.logger.Info("hand-over offered", zap.String("handover_id", h.ID), zap.String("owner", h.Owner), zap.String("target", h.Target()))
	return true
}

// offeredBefore is the hand-over id that a run before a restart recorded;
// posted is true unless it is still open and no message of it was
// recorded: then the process stopped between recording it and posting its
// message (or between Slack's answer and recording where the message is),
// and it is posted now, so that its owner is never left without it. In the
// second case the owner sees the button twice; both carry the one
// hand-over, whose password only one click can show.
func (c *handoverService) offeredBefore(ctx context.Context, id string) (rec HandoverRecord, posted bool) {
	rec, ok, err := c.store.GetHandover(ctx, id)
	if err != nil || !ok || !rec.Message.IsZero() || rec.State != HandoverStateOffered {
		c.logger.Info("hand-over offered before: not posted again", zap.String("handover_id", id))
		return rec, true
	}
	c.logger.Info("hand-over recorded before a stop and its message not: posted now", zap.String("handover_id", id))
	return rec, false
}

// handedReply tells the requester where the credentials went.
func (c *handoverService) handedReply(n Notice, h Handover, sent bool, r Reply) Reply {
	who := c.cfg.Mention(h.Owner)
	if n.OK {
		r.Title = "Mailbox " + h.Target() + " created"
		if h.Action == ActionResetPassword {
			r.Title = "Password of " + h.Target() + " reset"
		}
		r.Text = ""
	}
	r.Fields = append([]Field{{Label: "Address", Value: h.Target()}, {Label: "Credentials for", Value: who}}, dropField(r.Fields, "Address")...)
	switch {
	case !sent:
		r.Error = true
		r.Note = fmt.Sprintf("The direct message to %s could not be sent, so nobody knows the password. Run /mailbox reset %s for %s to try again.", who, h.Target(), who)
	case h.SelfService:
		r.Note = fmt.Sprintf("Your password is waiting in your direct message with mailbot: click Show my password there before %s.", fmtTime(h.Expires))
	default:
		r.Note = fmt.Sprintf("The password went to %s alone, in a direct message with a Show my password button that works once, until %s. Nobody else, you included, can see it.",
			who, fmtTime(h.Expires))
	}
	return r
}

// withoutSecrets is r without a password or secret.
func withoutSecrets(r Reply) Reply {
	fields := make([]Field, 0, len(r.Fields))
	for _, f := range r.Fields {
		if !f.Secret {
			fields = append(fields, f)
		}
	}
	r.Fields = fields
	if r.Note != "" && r.Error {
		r.Note = "No password was shown to you: the person it is for sets a new one with their Show my password button."
	}
	return r
}

// dropField is fs without the fields labelled label.
func dropField(fs []Field, label string) []Field {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Label != label {
			out = append(out, f)
		}
	}
	return out
}
