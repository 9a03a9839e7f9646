package commands

import (
	"context"

	"go.uber.org/zap"
)

// write is one change at a provider as the run sequence carries it out:
// what its audit entry says, the notice a failure describes, and the call.
type write struct {
	entry  AuditEntry
	notice Notice
	// perform makes the call; it is given notice (passed, not captured,
	// so that the notice stays off the heap)
	perform func(ctx context.Context, n Notice) (Result, error)
	// cut: a failure once ctx has ended may have happened at the provider
	// all the same, and says so (cutOff)
	cut bool
}

// runWrite is the one run sequence of every write: begin (w's audit entry
// recorded before anything is sent), perform (the provider call, a
// failure described), record (the outcome in the same entry) and complete
// (the one log line of the operation). With begun false the entry could
// not be recorded (err is the store's) and nothing was sent.
func (c *shared) runWrite(ctx context.Context, w write) (res Result, begun bool, err error) {
	id, err := c.begin(ctx, w.entry)
	if err != nil {
		return Result{}, false, err
	}
	res, err = w.perform(ctx, w.notice)
	if err != nil {
		res = c.failure(w.notice, err)
		if w.cut {
			res = cutOff(ctx, res)
		}
	}
	c.complete(ctx, id, w.entry, res.Notice)
	c.logResult(res.Notice, err)
	return res, true, err
}

// begin records e in the audit trail before its operation (or an
// offboarding's step) runs, and returns its ID to complete.
func (c *shared) begin(ctx context.Context, e AuditEntry) (int64, error) {
	id, err := c.store.Begin(ctx, e)
	if c.storeFailed(err, "begin") {
		return 0, err
	}
	return id, nil
}

// complete records the outcome of the audit entry id.
func (c *shared) complete(ctx context.Context, id int64, e AuditEntry, n Notice) {
	e.Outcome, e.Status, e.Stage, e.Code = OutcomeOK, n.Status, n.Stage, n.Code
	e.UID = n.UID
	switch {
	case n.Uncertain:
		e.Outcome = OutcomeUnknown
	case !n.OK:
		e.Outcome = OutcomeError
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.store.Complete(ectx, id, e); err != nil {
		c.logger.Error("audit entry not completed", zap.Int64("audit_id", id), zap.Error(err))
	}
}
