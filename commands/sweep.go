package commands

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// SweepEvery is how often a transport should call [Core.Sweep]: expiries
// happen within a minute of the deadline.
const SweepEvery = 20 * time.Second

// sweepBatch bounds the requests one sweep claims of each kind.
const sweepBatch = 50

// StaleRun is how long an approved run may go without reporting back
// before the sweep declares its outcome unknown: far longer than a run's
// own deadline (the PDD attempts and their backoff), so that only a run
// whose process ended, or lost its database as it finished, is taken.
const StaleRun = 15 * time.Minute

// staleRunText is what a run that never reported back did, in words.
const staleRunText = "the run did not report back (mailbot stopped or lost its database while it ran): it may or may not have happened"

// Sweep expires the requests past their deadline and reminds the admins
// of the requests waiting longer than Config.RemindAfter. Each request is
// claimed in the store, so that with any number of replicas each expiry
// and each reminder happens once. It returns how many of each it did.
func (c *Core) Sweep(ctx context.Context) (expired, reminded int) {
	now := c.cfg.Now()
	c.requests.retryAttaches(ctx)
	recs, err := c.store.ClaimExpired(ctx, now, sweepBatch)
	if c.storeFailed(err, "claim expired") {
		c.logger.Warn("expiry sweep skipped", zap.Error(err))
	}
	for _, rec := range recs {
		c.approvals.announceExpiry(ctx, rec)
	}
	c.requests.retryFinishes(ctx)
	c.handovers.sweepHandovers(ctx, now)
	c.approvals.sweepStale(ctx, now)
	c.imports.sweepImports(ctx, now)
	c.approvals.prune(ctx, now)
	if c.cfg.RemindAfter <= 0 {
		return len(recs), 0
	}
	due, err := c.store.ClaimReminders(ctx, now.Add(-c.cfg.RemindAfter), now, sweepBatch)
	if c.storeFailed(err, "claim reminders") {
		c.logger.Warn("reminder sweep skipped", zap.Error(err))
	}
	for _, rec := range due {
		c.approvals.remind(ctx, rec)
	}
	return len(recs), len(due)
}

// maxKept bounds the ends of runs, and the request message references,
// kept in the process for another try.
const maxKept = 1000

// unfinished is the end of a run that the store did not take.
type unfinished struct {
	to      State
	runText string
}

// finish records the end of a run. When the store cannot take it (its
// database is away), the end is kept in the process and tried again at
// every sweep, so that a request whose run certainly did nothing becomes
// decidable again by itself once the database is back.
func (c *requestService) finish(ctx context.Context, id string, to State, runText string) {
	err := c.store.Finish(ctx, id, to, runText, c.cfg.Now())
	if err == nil {
		return
	}
	c.logger.Error("end of a run not recorded: trying again at the next sweeps", zap.String("request_id", id), zap.String("state", string(to)), zap.Error(err))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unfinished) < maxKept {
		c.unfinished[id] = unfinished{to: to, runText: runText}
	}
}

// retryFinishes tries again the ends of runs the store did not take, and
// shows each taken one in its request message.
func (c *requestService) retryFinishes(ctx context.Context) {
	c.mu.Lock()
	todo := maps.Clone(c.unfinished)
	c.mu.Unlock()
	for id, u := range todo {
		if err := c.store.Finish(ctx, id, u.to, u.runText, c.cfg.Now()); err != nil {
			c.logger.Debug("end of a run still not recorded", zap.String("request_id", id), zap.Error(err))
			continue
		}
		c.mu.Lock()
		delete(c.unfinished, id)
		c.mu.Unlock()
		if rec, ok, err := c.store.Get(ctx, id); err == nil && ok {
			c.updateRequest(ctx, rec)
		}
	}
}

// retryAttaches records again the request message references the store
// did not take. Once one is taken, its message is updated when the
// request moved on meanwhile without this process showing it there (a
// decision on another replica, whose record had no message): the request
// is read after the reference is recorded, so that whichever of the two
// comes last finds the other.
func (c *requestService) retryAttaches(ctx context.Context) {
	c.mu.Lock()
	todo := maps.Clone(c.unattached)
	c.mu.Unlock()
	for id, ref := range todo {
		err := c.store.Attach(ctx, id, ref)
		if errors.Is(err, ErrStoreUnavailable) {
			c.logger.Debug("request message still not recorded", zap.String("request_id", id), zap.Error(err))
			continue
		}
		if err != nil {
			c.logger.Warn("request message reference dropped: the store does not know the request", zap.String("request_id", id), zap.Error(err))
			c.forgetRef(id)
			continue
		}
		rec, known, err := c.store.Get(ctx, id)
		if err != nil {
			continue // attached: read it at the next sweep
		}
		c.forgetRef(id)
		if known && movedOn(rec) {
			rec.Message = ref
			c.updateRequest(ctx, rec)
		}
	}
}

// movedOn reports whether rec is no longer as its message was posted
// (pending, with no approval), and not running: a running request's
// message is updated by its run when it ends.
func movedOn(rec Record) bool {
	if rec.State == StatePending {
		return len(rec.Approvers) > 0 || rec.RunText != ""
	}
	return rec.State != StateRunning
}

// sweepStale ends the runs that never reported back as uncertain, and
// tells the request message and the requester.
func (c *approvalService) sweepStale(ctx context.Context, now time.Time) {
	recs, err := c.store.ClaimStale(ctx, now.Add(-StaleRun), staleRunText, sweepBatch)
	if c.storeFailed(err, "claim stale") {
		return
	}
	for _, rec := range recs {
		c.logger.Warn("approved run never reported back: its outcome is unknown", zap.String("request_id", rec.ID),
			zap.String("action", string(rec.Op.Action)), zap.String("target", rec.Op.Target()))
		c.requests.updateRequest(ctx, rec)
		c.deliver(ctx, Route{User: rec.Requester, Channel: rec.Channel}, Reply{Title: "Outcome unknown", Error: true,
			Text: fmt.Sprintf("Your approved request to %s started but never reported back: it may or may not have happened. Check before you ask again.", rec.Op)})
	}
}

// prune asks a store that keeps history to delete what is past its
// retention.
func (c *approvalService) prune(ctx context.Context, now time.Time) {
	p, ok := c.store.(Pruner)
	if !ok {
		return
	}
	requests, entries, err := p.Prune(ctx, now)
	if err != nil {
		c.logger.Warn("old history not deleted: trying again later", zap.Error(err))
	}
	if requests+entries > 0 {
		c.logger.Info("old history deleted", zap.Int64("requests", requests), zap.Int64("audit_entries", entries))
	}
}

// announceExpiry tells everyone, once, that rec expired: the audit trail,
// the request message (without buttons) and the requester.
func (c *approvalService) announceExpiry(ctx context.Context, rec Record) {
	rec.State = StateExpired
	c.record(ctx, rec, EventExpired, nil)
	c.logger.Info("request expired", zap.String("request_id", rec.ID), zap.String("actor", rec.Requester))
	c.requests.updateRequest(ctx, rec)
	c.deliver(ctx, Route{User: rec.Requester, Channel: rec.Channel}, Reply{Title: "Request expired", Error: true,
		Text: fmt.Sprintf("Your request to %s expired at %s: no admin decided it in time. Nothing was done; you may ask again.", rec.Op, fmtTime(rec.Expires))})
}

// remind posts one reminder in rec's thread, mentioning the admins.
func (c *approvalService) remind(ctx context.Context, rec Record) {
	if rec.Message.IsZero() {
		rec.Message, _ = c.requests.messageRef(ctx, rec.ID)
	}
	if rec.Message.IsZero() {
		return
	}
	text := fmt.Sprintf("Reminder: this request has waited %s for a decision and expires at %s (%s). %s, please approve or deny it.",
		fmtDuration(c.cfg.RemindAfter), fmtTime(rec.Expires), rec.Summary(c.cfg.Mention), c.adminMentions(rec.Op))
	if len(rec.Approvers) > 0 {
		text += " " + c.requests.approvalsLine(rec.Approvers) + "."
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.msgr.Remind(ectx, rec.Message, text); err != nil {
		c.logger.Warn("reminder not posted", zap.String("request_id", rec.ID), zap.Error(err))
		return
	}
	c.logger.Info("reminder posted", zap.String("request_id", rec.ID))
}

// adminMentions mentions every admin who may decide a request on op:
// users by ID, user groups as groups; the admins of its domains too.
func (c *approvalService) adminMentions(op Operation) string {
	ids := slices.Clone(c.cfg.Admins)
	for _, da := range c.cfg.DomainAdmins {
		if coversAll(da.Pattern, c.access.opDomains(op)) {
			ids = append(ids, da.IDs...)
		}
	}
	parts := make([]string, 0, len(ids))
	for _, a := range slices.Compact(ids) {
		if IsGroupID(a) {
			parts = append(parts, c.cfg.MentionGroup(a))
		} else {
			parts = append(parts, c.cfg.Mention(a))
		}
	}
	return strings.Join(parts, " ")
}
