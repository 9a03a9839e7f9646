package commands

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
)

// An import's lease: renewed every importRenew while it runs; another
// runner may take it over once it is importLease old (its process ended).
var (
	importRenew = 10 * time.Second
	importLease = 45 * time.Second
)

// importStore is the store's ImportStore, or nil when it keeps no imports.
func (c *importService) importStore() ImportStore {
	is, _ := c.store.(ImportStore)
	return is
}

// executeImport keeps a checked import and runs it, or asks the admins
// to approve it. Nothing reaches the provider before that.
func (c *importService) executeImport(ctx context.Context, to Route, d Decision) string {
	is := c.importStore()
	if is == nil {
		c.deliver(ctx, to, Reply{Title: "Import not available", Error: true, Text: "This mailbot's store cannot keep imports. Nothing was done."})
		return LabelError
	}
	if err := is.SaveImport(ctx, *d.Import); err != nil {
		c.logger.Warn("import not recorded", zap.String("request_id", d.Import.ID), zap.Error(err))
		c.deliver(ctx, to, replyStoreDown)
		return LabelStoreDown
	}
	c.rememberPreview(*d.Import)
	if d.Step == StepApproval {
		return c.requests.submit(ctx, to, *d.Pending)
	}
	c.deliver(ctx, to, Reply{Title: "Import started", Text: fmt.Sprintf("mailbot is creating %s (%s). Progress follows in your direct message with mailbot.",
		mailboxes(len(d.Import.Rows)), d.Op.Domain), Fields: []Field{{Label: "Import", Value: d.Import.ID}}})
	return c.runImport(ctx, d.Import.ID, nil)
}

// runApprovedImport runs an import whose request got its last approval:
// the signed request's digest must be that of the rows the store keeps.
func (c *importService) runApprovedImport(ctx context.Context, k Click, rec Record, p Pending) string {
	is := c.importStore()
	var got ImportRecord
	ok := false
	if is != nil {
		var err error
		got, ok, err = is.GetImport(ctx, p.ID)
		// A value signed from the store's own record (the Home tab's, with
		// a database that keeps no digest) carries none: the rows of an ID
		// never change once saved.
		signed := p.Op.Digest == "" || got.Digest == p.Op.Digest && len(got.Rows) == p.Op.Rows
		ok = ok && err == nil && signed
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if !ok {
		text := "mailbot no longer has the rows of this import (it restarted without a database, or they changed): nothing was done. Ask for the import again."
		c.requests.finish(ectx, rec.ID, StateFailed, text)
		rec.State, rec.RunText = StateFailed, text
		c.requests.updateRequest(ctx, rec)
		c.deliver(ctx, k.Route, Reply{Title: "Import not run", Error: true, Text: text})
		return LabelError
	}
	if !c.approvals.markRunning(ctx, k, rec) {
		return LabelError
	}
	forgetPreview(rec.ID) // the message no longer shows the rows
	text := fmt.Sprintf("Approved by %s: the import of %s runs; %s follows its progress in a direct message.",
		c.storedMentions(rec.Approvers), mailboxes(len(got.Rows)), storedMention(rec.Requester))
	c.requests.finish(ectx, rec.ID, StateDone, text)
	rec.State, rec.RunText, rec.DecidedAt = StateDone, text, c.cfg.Now()
	c.requests.updateRequest(ctx, rec)
	c.deliver(ctx, k.Route, Reply{Title: "Request approved",
		Text: fmt.Sprintf("You approved the import of %s by %s: it runs now.", mailboxes(len(got.Rows)), c.cfg.Mention(rec.Requester))})
	return c.runImport(ctx, rec.ID, rec.Approvers)
}

func (c *importService) storedMentions(ids []string) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += storedMention(id)
	}
	return s
}

// importRun is one runner's turn at an import.
type importRun struct {
	c        *importService
	is       ImportStore
	rec      ImportRecord
	runner   string
	deciders []string
	pause    *pause

	mu       sync.Mutex
	states   []RowState
	details  []string
	owners   map[string]string // owner -> why a DM cannot reach them ("": it can)
	changed  bool
	leaseOff bool
	// progressAt is when the progress message was last written, by the
	// core's clock: the next update waits until progressEvery after it.
	progressAt time.Time
}

// runImport runs import id's rows that have no outcome yet, under a lease,
// and, when every row has one, sends the summary once. It returns a label
// for metrics.
func (c *importService) runImport(ctx context.Context, id string, deciders []string) string {
	is := c.importStore()
	runner := newID()
	now := c.cfg.Now()
	rec, ok, err := is.LeaseImport(ctx, id, runner, now, now.Add(-importLease))
	if c.storeFailed(err, "lease import") || !ok {
		return LabelError // another runner has it, or the sweep tries again
	}
	r := &importRun{c: c, is: is, rec: rec, runner: runner, deciders: deciders, pause: &pause{}, owners: map[string]string{}}
	r.states = make([]RowState, len(rec.States))
	r.details = make([]string, len(rec.States))
	for i, s := range rec.States {
		r.states[i], r.details[i] = s.State, s.Detail
	}
	c.logger.Info("import running", zap.String("request_id", id), zap.Int("rows", len(rec.Rows)), zap.String("runner", runner))
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var bg sync.WaitGroup
	bg.Add(1)
	go func() { defer bg.Done(); r.keep(rctx, cancel) }()
	r.startProgress(rctx)
	r.rows(rctx)
	cancel()
	bg.Wait()
	if ctx.Err() != nil || r.lost() {
		return LabelError // cut off: the sweep resumes it
	}
	return r.finish(ctx)
}

// rows runs the rows without an outcome at the configured concurrency.
func (r *importRun) rows(ctx context.Context) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < r.c.cfg.ImportConcurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r.row(ctx, i)
			}
		}()
	}
	for i, s := range r.states {
		if s.Final() {
			continue
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
}

// keep renews the lease until ctx ends; losing it stops the run.
func (r *importRun) keep(ctx context.Context, stop context.CancelFunc) {
	progress, stopProgress := progressTicks(progressEvery / 4)
	renew := time.NewTicker(importRenew)
	defer stopProgress()
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-progress:
			r.updateProgress(ctx)
		case <-renew.C:
			ok, err := r.is.RenewImport(ctx, r.rec.ID, r.runner, r.c.cfg.Now())
			if err == nil && !ok {
				r.c.logger.Warn("import lease lost: another runner has it", zap.String("request_id", r.rec.ID))
				r.mu.Lock()
				r.leaseOff = true
				r.mu.Unlock()
				stop()
				return
			}
		}
	}
}

func (r *importRun) lost() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leaseOff
}

// set records row i's outcome in the run's counts.
func (r *importRun) set(i int, s RowState, detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states[i], r.details[i], r.changed = s, detail, true
}

// pause is a wait shared by the rows of an import: a provider's
// rate limit slows the whole import down instead of failing rows.
type pause struct {
	mu    sync.Mutex
	until time.Time
}

func (p *pause) set(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := time.Now().Add(d); t.After(p.until) {
		p.until = t
	}
}

func (p *pause) wait(ctx context.Context) {
	p.mu.Lock()
	d := time.Until(p.until)
	p.mu.Unlock()
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// sweepImports resumes the imports whose runner stopped reporting (its
// process ended): a runner on any replica takes the lease over.
func (c *importService) sweepImports(ctx context.Context, now time.Time) {
	is := c.importStore()
	if is == nil {
		return
	}
	ids, err := is.StaleImports(ctx, now.Add(-importLease), sweepBatch)
	if c.storeFailed(err, "stale imports") {
		return
	}
	for _, id := range ids {
		var deciders []string
		if rec, ok, err := c.store.Get(ctx, id); err == nil && ok {
			deciders = rec.Approvers
		}
		c.logger.Info("import resumed", zap.String("request_id", id))
		c.runImport(ctx, id, deciders)
	}
}
