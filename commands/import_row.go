package commands

import (
	"context"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
)

// rowAttempts is how many times a row is tried when the provider is
// temporarily unavailable (each attempt with the adapter's own retries);
// between them the whole import pauses.
const rowAttempts = 4

// rowPause is the first shared pause after a temporary failure; it
// doubles at each attempt.
var rowPause = time.Second

// row claims row i and runs it: once, on any replica.
func (r *importRun) row(ctx context.Context, i int) {
	st, err := r.is.ClaimRow(ctx, r.rec.ID, i, r.runner)
	if err != nil {
		r.c.logger.Warn("import row not claimed", zap.String("request_id", r.rec.ID), zap.Int("row", i), zap.Error(err))
		return // left without an outcome: the import is resumed
	}
	if st.Final() {
		r.set(i, st, "")
		return
	}
	row := r.rec.Rows[i]
	op := Operation{Action: ActionAddMailbox, Domain: row.Domain, Login: row.Login, For: row.Owner, Reason: r.rec.Reason,
		Person: apiclient.PersonName{Given: row.Given, Family: row.Family}}
	op.Name = op.Person.Full()
	// The row's hand-over has the same ID on every run of the row, so that
	// a run resumed after a stop does not post it again.
	hid := r.rec.ID + "-" + strconv.Itoa(i)
	if st == RowClaimed && r.maybeSent(ctx, op) { // claimed by a runner that stopped: its answer may be lost
		if to, detail, done := r.lookUp(ctx, op, hid); done {
			r.finishRow(ctx, i, to, detail)
			return
		}
	}
	to, detail := r.add(ctx, op, hid)
	if to == "" {
		return // cut off: the row stays claimed and is looked up on resume
	}
	r.finishRow(ctx, i, to, detail)
}

func (r *importRun) finishRow(ctx context.Context, i int, to RowState, detail string) {
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := r.is.FinishRow(ectx, r.rec.ID, i, r.runner, to, detail); err != nil {
		r.c.logger.Error("import row outcome not recorded", zap.String("request_id", r.rec.ID), zap.Int("row", i), zap.Error(err))
	}
	r.set(i, to, detail)
}

// lookUp finds out whether a row claimed before a stop was created:
// found, it counts as created (and its owner gets the hand-over); not
// found, it is run; unknown, it fails in words.
func (r *importRun) lookUp(ctx context.Context, op Operation, hid string) (RowState, string, bool) {
	c := r.c
	_, err := c.at(op.Domain).LookupMailbox(ctx, op.Domain, op.Login)
	switch {
	case err == nil:
		e := r.entry(op)
		e.Outcome, e.Code = OutcomeOK, "found_after_restart"
		ectx, cancel := detach(ctx)
		defer cancel()
		if err := c.store.AppendAudit(ectx, e); err != nil {
			c.logger.Error("import row not recorded in the audit trail", zap.String("target", op.Target()), zap.Error(err))
		}
		if op.For != "" {
			n := Notice{Actor: r.rec.Requester, Op: op, OK: true, Provider: c.nameAt(op.Domain), ProviderTitle: c.titleAt(op.Domain), HandedTo: op.For}
			c.handovers.handOver(ctx, Result{Notice: n}, r.rec.ID, hid)
		}
		return RowCreated, "", true
	case apiclient.ReasonOf(err) == apiclient.ReasonNotFound:
		return "", "", false
	case ctx.Err() != nil:
		return "", "", false
	}
	return RowFailed, "mailbot stopped while creating it and could not check afterwards whether it exists: check before trying again", true
}

// maybeSent reports whether the add of a row claimed by a runner that
// stopped may have been sent: its audit entry was begun, as it is before
// every add (or the audit trail cannot be read). A row never sent is run
// as a new one, so that a mailbox that existed before the import counts
// as existing and is handed to nobody.
func (r *importRun) maybeSent(ctx context.Context, op Operation) bool {
	entries, err := r.c.store.Audit(ctx, r.rec.Created, 0, false)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.RequestID == r.rec.ID && e.Event == EventRun && e.Action == ActionAddMailbox && e.Domain == op.Domain && e.Login == op.Login {
			return true
		}
	}
	return false
}

// add runs the add of one row with the guarantees of add: audited before
// and after, a lost answer looked up. A temporary failure pauses the whole
// import and is tried again. An empty state means it was cut off.
func (r *importRun) add(ctx context.Context, op Operation, hid string) (RowState, string) {
	c := r.c
	for attempt := 1; ; attempt++ {
		r.pause.wait(ctx)
		if ctx.Err() != nil {
			return "", ""
		}
		if why := r.reachable(ctx, op.For); why != "" {
			return RowFailed, why
		}
		n := Notice{Actor: r.rec.Requester, Approvers: r.deciders, Op: op, Provider: c.nameAt(op.Domain), ProviderTitle: c.titleAt(op.Domain), HandedTo: op.For}
		e := r.entry(op)
		res, begun, err := c.runWrite(ctx, write{entry: e, notice: n, cut: true,
			perform: func(ctx context.Context, n Notice) (Result, error) { return c.mailboxes.addMailbox(ctx, n) }})
		switch {
		case !begun:
			return RowFailed, codeWords[CodeStore]
		case err == nil:
			if op.For != "" {
				c.handovers.handOver(ctx, res, r.rec.ID, hid)
			}
			return RowCreated, ""
		case apiclient.ReasonOf(err) == apiclient.ReasonExists:
			return RowExisting, ""
		case res.Notice.Uncertain && ctx.Err() != nil:
			return "", ""
		case res.Notice.NothingDone && attempt < rowAttempts && ctx.Err() == nil:
			r.pause.set(rowPause << (attempt - 1))
			continue
		}
		return RowFailed, rowWhy(res.Notice)
	}
}

// entry is the audit entry of a row's add.
func (r *importRun) entry(op Operation) AuditEntry {
	e := r.c.entry(EventRun, r.rec.ID, r.rec.Requester, ActionAddMailbox, op.Domain, op.Login)
	e.Deciders, e.Reason, e.HandedTo = r.deciders, op.Reason, op.For
	return e
}

// rowWhy is why a row failed, in words.
func rowWhy(n Notice) string {
	if n.Detail != "" {
		return n.Code + ": " + n.Why()
	}
	return n.Why()
}

// reachable says why a direct message cannot reach owner ("" for none, or
// when it can), read once per owner in a run: many rows share an owner.
func (r *importRun) reachable(ctx context.Context, owner string) string {
	if owner == "" {
		return ""
	}
	r.mu.Lock()
	why, ok := r.owners[owner]
	r.mu.Unlock()
	if ok {
		return why
	}
	why = r.c.handovers.reachable(ctx, owner)
	r.mu.Lock()
	r.owners[owner] = why
	r.mu.Unlock()
	return why
}
