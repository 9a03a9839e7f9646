package commands

import (
	"context"
	"fmt"

	"go.uber.org/zap"
)

// voids reports whether a run of action voids the open hand-overs of its
// mailbox: the mailbox's credentials changed hands, or no longer work.
func voids(action Action) bool {
	return action == ActionResetPassword || action == ActionBlock || action == ActionOffboard
}

// voidHandovers voids, after a run of n that may have changed the
// mailbox, every earlier open hand-over of it, and says so in each one's
// message. A hand-over's click then sets nothing.
func (c *handoverService) voidHandovers(ctx context.Context, n Notice) {
	if !voids(n.Op.Action) || !n.OK && !n.Uncertain {
		return
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	voided, err := c.store.VoidHandovers(ectx, n.Op.Domain, n.Op.Login, n.Op.Action, c.cfg.Now())
	if err != nil {
		c.logger.Error("earlier hand-overs not voided", zap.String("target", n.Op.Target()), zap.Error(err))
		return
	}
	c.showVoided(ectx, voided, "")
}

// showVoided updates the message of each voided hand-over but self, and
// reports whether self is among them.
func (c *handoverService) showVoided(ctx context.Context, voided []HandoverRecord, self string) (selfVoided bool) {
	for _, rec := range voided {
		c.observe(HandoverVoided)
		if rec.ID == self {
			selfVoided = true
			continue
		}
		c.updateHandover(ctx, rec)
		c.logger.Info("hand-over voided", zap.String("handover_id", rec.ID), zap.String("owner", rec.Owner),
			zap.String("target", rec.Target()), zap.String("by", string(rec.VoidedBy)))
	}
	return selfVoided
}

// voidedText says, in a voided hand-over's message or to a click on it,
// what voided it.
func voidedText(rec HandoverRecord) string {
	switch rec.VoidedBy {
	case ActionBlock:
		return fmt.Sprintf("The mailbox was blocked at %s, so this offer no longer works.", fmtTime(rec.DoneAt))
	case ActionOffboard:
		return fmt.Sprintf("The mailbox was offboarded at %s, so this offer no longer works.", fmtTime(rec.DoneAt))
	}
	return fmt.Sprintf("This offer was replaced at %s by a later password reset or hand-over of the mailbox, so it no longer works.", fmtTime(rec.DoneAt))
}
