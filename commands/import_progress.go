package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
)

// progressEvery is how often, at most, the progress message is updated.
var progressEvery = 2 * time.Second

// progressTicks wakes the import's progress updates every d; each wake-up
// writes only when rows ended and progressEvery has passed by the core's
// clock since the last write, so a late tick never brings two writes
// closer than that.
var progressTicks = func(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// ImportMessenger is what an import needs of a transport besides
// Messenger: a progress message in the requester's direct message, and an
// ops notice, both updated in place. Without it, the requester gets the
// summary alone and the ops channel one notice at the end.
type ImportMessenger interface {
	// PostProgress sends r to user in a direct message and says where.
	PostProgress(ctx context.Context, user string, r Reply) (MessageRef, error)
	// UpdateProgress replaces the message at ref with r.
	UpdateProgress(ctx context.Context, ref MessageRef, r Reply) error
	// PostNotice tells the ops channel text and says where; a zero
	// reference and no error when there is no ops channel.
	PostNotice(ctx context.Context, text string) (MessageRef, error)
	// UpdateNotice replaces the ops notice at ref with text.
	UpdateNotice(ctx context.Context, ref MessageRef, text string) error
}

// counts are an import's rows by outcome.
type counts struct{ created, existing, failed, left int }

func (r *importRun) counts() (n counts) {
	for _, s := range r.states {
		switch s {
		case RowCreated:
			n.created++
		case RowExisting:
			n.existing++
		case RowFailed:
			n.failed++
		default:
			n.left++
		}
	}
	return n
}

// progressReply is the progress message: done, failed, left and a bar.
func (r *importRun) progressReply(n counts) Reply {
	total := len(r.states)
	done := total - n.left
	const width = 20
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	return Reply{Title: fmt.Sprintf("Import %s: %d of %s", r.rec.ID, done, mailboxes(total)),
		Text: fmt.Sprintf("%s  %d%%", bar, done*100/max(total, 1)),
		Fields: []Field{{Label: "Done", Value: fmt.Sprint(n.created + n.existing)}, {Label: "Failed", Value: fmt.Sprint(n.failed)},
			{Label: "Left", Value: fmt.Sprint(n.left)}}}
}

// startProgress posts the progress message and the ops notice, unless a
// runner before this one did.
func (r *importRun) startProgress(ctx context.Context) {
	im, ok := r.c.msgr.(ImportMessenger)
	if !ok {
		return
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	rec := &r.rec
	if rec.Progress.IsZero() {
		r.mu.Lock()
		r.progressAt = r.c.cfg.Now()
		reply := r.progressReply(r.counts())
		r.mu.Unlock()
		ref, err := im.PostProgress(ectx, rec.Requester, reply)
		if err != nil {
			r.c.logger.Warn("import progress not posted", zap.String("request_id", rec.ID), zap.Error(err))
		}
		rec.Progress = ref
	}
	if rec.Notice.IsZero() {
		ref, err := im.PostNotice(ectx, r.noticeText(false))
		if err != nil {
			r.c.logger.Warn("import notice not posted", zap.String("request_id", rec.ID), zap.Error(err))
		}
		rec.Notice = ref
	}
	if err := r.is.AttachImport(ectx, rec.ID, rec.Progress, rec.Notice); err != nil {
		r.c.logger.Warn("import messages not recorded", zap.String("request_id", rec.ID), zap.Error(err))
	}
}

// updateProgress updates the progress message when rows ended since the
// last update and that update is progressEvery old by the core's clock.
func (r *importRun) updateProgress(ctx context.Context) {
	im, ok := r.c.msgr.(ImportMessenger)
	if !ok || r.rec.Progress.IsZero() {
		return
	}
	r.mu.Lock()
	now := r.c.cfg.Now()
	due := r.changed && now.Sub(r.progressAt) >= progressEvery
	if due {
		r.changed, r.progressAt = false, now
	}
	reply := r.progressReply(r.counts())
	r.mu.Unlock()
	if !due {
		return
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := im.UpdateProgress(ectx, r.rec.Progress, reply); err != nil {
		r.c.logger.Warn("import progress not updated", zap.String("request_id", r.rec.ID), zap.Error(err))
	}
}

// noticeText is the ops notice of the import; no secret.
func (r *importRun) noticeText(done bool) string {
	m := r.c.cfg.Mention
	head := fmt.Sprintf("%s imports %s in %s (import %s)", m(r.rec.Requester), mailboxes(len(r.rec.Rows)), importDomains(r.rec.Rows), r.rec.ID)
	if len(r.deciders) > 0 {
		head += ", approved by " + r.c.requests.mentionAll(r.deciders)
	}
	if !done {
		return head + ": running."
	}
	n := r.counts()
	return fmt.Sprintf("%s: %d created, %d already existing, %d failed.", head, n.created, n.existing, n.failed)
}

// finish ends an import whose rows all have an outcome: once, on any
// replica, the summary, the ops notice, the requester's hand-over of the
// rows without an owner, and the import's audit entry.
func (r *importRun) finish(ctx context.Context) string {
	c := r.c
	ectx, cancel := detach(ctx)
	defer cancel()
	won, err := r.is.FinishImport(ectx, r.rec.ID, r.runner, c.cfg.Now())
	if err != nil || !won {
		return LabelError
	}
	n := r.counts()
	summary := r.summary(n)
	if ho := r.ownerless(); ho > 0 {
		h := Handover{ID: "i" + r.rec.ID, Owner: r.rec.Requester, Requester: r.rec.Requester, RequestID: r.rec.ID,
			Action: ActionImport, Login: r.rec.ID, Created: c.now()}
		h.Expires = h.Created.Add(c.cfg.HandoverTTL)
		if c.handovers.offer(ctx, h) {
			summary.Note = fmt.Sprintf("The passwords of the %s without an owner are yours: click Show my password in your direct message with mailbot before %s. Each owner got their own in a direct message.",
				mailboxes(ho), fmtTime(h.Expires))
		} else {
			summary.Error = true
			summary.Note = fmt.Sprintf("The direct message with the passwords of the %s without an owner could not be sent: nobody knows them. Reset them with /mailbox reset.", mailboxes(ho))
		}
	}
	r.sendSummary(ectx, summary)
	r.notifyEnd(ectx)
	e := c.entry(EventRun, r.rec.ID, r.rec.Requester, ActionImport, trunc(importDomains(r.rec.Rows), 200), "")
	e.Deciders, e.Provider, e.Reason = r.deciders, c.importProviders(r.rec.Rows), r.rec.Reason
	e.Outcome, e.Code = OutcomeOK, fmt.Sprintf("created=%d existing=%d failed=%d", n.created, n.existing, n.failed)
	if n.failed > 0 {
		e.Outcome = OutcomeError
	}
	if err := c.store.AppendAudit(ectx, e); err != nil {
		c.logger.Error("import not recorded in the audit trail", zap.String("request_id", r.rec.ID), zap.Error(err))
	}
	c.logger.Info("import done", zap.String("request_id", r.rec.ID), zap.Int("created", n.created), zap.Int("existing", n.existing), zap.Int("failed", n.failed))
	if n.failed > 0 {
		return LabelError
	}
	return LabelOK
}

// ownerless counts the created rows whose credentials go to the requester.
func (r *importRun) ownerless() int {
	k := 0
	for i, s := range r.states {
		if s == RowCreated && r.rec.Rows[i].Owner == "" {
			k++
		}
	}
	return k
}

// summary is the requester's account of the import: created, already
// existing, failed, each failure with its reason in words.
func (r *importRun) summary(n counts) Reply {
	rep := Reply{Title: fmt.Sprintf("Import %s done: %d created, %d already existing, %d failed", r.rec.ID, n.created, n.existing, n.failed),
		Fields: []Field{{Label: "Created", Value: fmt.Sprint(n.created)}, {Label: "Already existing", Value: fmt.Sprint(n.existing)},
			{Label: "Failed", Value: fmt.Sprint(n.failed)}},
		Error: n.failed > 0}
	var lines []string
	for i, s := range r.states {
		if s != RowFailed {
			continue
		}
		if len(lines) == maxShownProblems {
			lines = append(lines, fmt.Sprintf("…and %d more.", n.failed-maxShownProblems))
			break
		}
		lines = append(lines, fmt.Sprintf("%s (line %d): %s", r.rec.Rows[i].Target(), r.rec.Rows[i].Line, r.details[i]))
	}
	rep.Steps = lines
	return rep
}

func (r *importRun) sendSummary(ctx context.Context, summary Reply) {
	if im, ok := r.c.msgr.(ImportMessenger); ok && !r.rec.Progress.IsZero() {
		if err := im.UpdateProgress(ctx, r.rec.Progress, summary); err == nil {
			return
		}
	}
	r.c.deliver(ctx, Route{User: r.rec.Requester, Channel: r.rec.Channel}, summary)
}

func (r *importRun) notifyEnd(ctx context.Context) {
	text := r.noticeText(true)
	if im, ok := r.c.msgr.(ImportMessenger); ok && !r.rec.Notice.IsZero() {
		if err := im.UpdateNotice(ctx, r.rec.Notice, text); err == nil {
			return
		}
	}
	r.c.notify(ctx, text)
}
