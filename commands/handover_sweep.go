package commands

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// sweepHandovers expires the hand-overs past their deadline: each is
// claimed in the store, so that with any number of replicas its message
// says so once.
func (c *handoverService) sweepHandovers(ctx context.Context, now time.Time) {
	recs, err := c.store.ClaimExpiredHandovers(ctx, now, sweepBatch)
	if c.storeFailed(err, "claim expired hand-overs") {
		return
	}
	for _, rec := range recs {
		c.announceHandoverExpiry(ctx, rec)
	}
}

// announceHandoverExpiry records that rec expired unshown and says so in
// its message, which loses its button.
func (c *handoverService) announceHandoverExpiry(ctx context.Context, rec HandoverRecord) {
	rec.State = HandoverStateExpired
	ectx, cancel := detach(ctx)
	defer cancel()
	e := c.entry(EventHandoverExpired, rec.ID, rec.Requester, rec.Action, rec.Domain, rec.Login)
	e.HandedTo = rec.Owner
	if err := c.store.AppendAudit(ectx, e); err != nil {
		c.logger.Error("hand-over expiry not recorded in the audit trail", zap.String("handover_id", rec.ID), zap.Error(err))
	}
	c.updateHandover(ectx, rec)
	c.observe(HandoverExpired)
	c.logger.Info("hand-over expired", zap.String("handover_id", rec.ID), zap.String("owner", rec.Owner), zap.String("target", rec.Target()))
}
