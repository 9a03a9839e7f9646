package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// Begin records an operation about to run and returns its entry's ID. An
// entry without a time gets the store's clock.
func (s *Store) Begin(ctx context.Context, e commands.AuditEntry) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(e), nil
}

// Complete sets the outcome fields of entry id.
func (s *Store) Complete(ctx context.Context, id int64, e commands.AuditEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.auditIndex(id)
	if !ok {
		return fmt.Errorf("%w: %d", errNoEntry, id)
	}
	a := &s.audit[i]
	a.Outcome, a.Status, a.Stage, a.UID, a.Code = e.Outcome, e.Status, e.Stage, e.UID, e.Code
	return nil
}

// auditIndex is the index of entry id in s.audit. The trail's IDs are
// consecutive (append numbers them in order, pruning drops the oldest),
// so that id's place is known from the first; a binary search is the
// fallback. The caller holds s.mu.
func (s *Store) auditIndex(id int64) (int, bool) {
	if len(s.audit) > 0 {
		if i := id - s.audit[0].ID; i >= 0 && i < int64(len(s.audit)) && s.audit[i].ID == id {
			return int(i), true
		}
	}
	return slices.BinarySearchFunc(s.audit, id, func(a commands.AuditEntry, id int64) int {
		return cmp.Compare(a.ID, id)
	})
}

// AppendAudit adds a finished entry to the audit trail.
func (s *Store) AppendAudit(ctx context.Context, e commands.AuditEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.append(e)
	return nil
}

// Audit lists entries at or after since, by time and then ID, oldest or
// newest first, at most limit (0: all).
func (s *Store) Audit(ctx context.Context, since time.Time, limit int, newestFirst bool) ([]commands.AuditEntry, error) {
	s.mu.Lock()
	var out []commands.AuditEntry
	for _, a := range s.audit {
		if !a.Time.Before(since) {
			a.Deciders = slices.Clone(a.Deciders)
			out = append(out, a)
		}
	}
	s.mu.Unlock()
	slices.SortStableFunc(out, func(a, b commands.AuditEntry) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if newestFirst {
		slices.Reverse(out)
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// append adds e with the next ID and trims the trail. The caller holds
// s.mu.
func (s *Store) append(e commands.AuditEntry) int64 {
	s.nextID++
	e.ID = s.nextID
	if e.Time.IsZero() {
		e.Time = s.opts.Now()
	}
	e.Deciders = slices.Clone(e.Deciders)
	s.room()
	s.audit = append(s.audit, e)
	s.pruneAudit()
	return e.ID
}

// pruneAudit forgets the entries beyond MaxAudit and, when the oldest is
// older than the retention, those older than it. The caller holds s.mu.
func (s *Store) pruneAudit() {
	drop := max(len(s.audit)-s.opts.MaxAudit, 0)
	if len(s.audit) > 0 {
		old := s.opts.Now().Add(-s.opts.Retention)
		for drop < len(s.audit) && s.audit[drop].Time.Before(old) {
			drop++
		}
	}
	if drop > 0 {
		// Reslice, not copy: room moves the live entries once the
		// window reaches the end of its array.
		clear(s.audit[:drop])
		s.audit = s.audit[drop:]
	}
}

// room makes space for one more entry after the audit window. When the
// window has reached the end of auditBuf, its entries move to the front
// of auditBuf if that leaves room for half as many again, else to a new
// array that does: a full trail (MaxAudit entries, one dropped per entry
// added) then takes no allocation, and each entry is copied about twice.
// The caller holds s.mu.
func (s *Store) room() {
	n := len(s.audit)
	if n < cap(s.audit) {
		return
	}
	want := n + max(n/2, 8)
	if len(s.auditBuf) < want {
		s.auditBuf = make([]commands.AuditEntry, want)
	}
	copy(s.auditBuf, s.audit) // may overlap: copy moves
	clear(s.auditBuf[n:])     // no stale copies keep what was dropped alive
	s.audit = s.auditBuf[:n]
}

// pruneRequests forgets final requests past their expiry that have been
// final for the retention, and, when there are MaxRequests or more, the
// oldest final requests past their expiry, down to 7/8 of MaxRequests.
// The caller holds s.mu.
func (s *Store) pruneRequests() {
	s.writes = 0
	now := s.opts.Now()
	old := now.Add(-s.opts.Retention)
	full := len(s.reqs) >= s.opts.MaxRequests
	var spare []*commands.Record // final, past expiry, within the retention
	for id, r := range s.reqs {
		if !r.State.Final() || now.Before(r.Expires) {
			continue
		}
		if r.DecidedAt.Before(old) && r.Expires.Before(old) {
			delete(s.reqs, id)
			continue
		}
		if full {
			spare = append(spare, r)
		}
	}
	if !full || len(s.reqs) < s.opts.MaxRequests {
		return
	}
	// Down to seven eighths of the limit, so that the next pruning for
	// the count is MaxRequests/8 new requests away.
	over := len(s.reqs) - (s.opts.MaxRequests - s.opts.MaxRequests/8)
	if over <= 0 {
		return
	}
	slices.SortFunc(spare, func(a, b *commands.Record) int { return a.DecidedAt.Compare(b.DecidedAt) })
	for _, r := range spare[:min(over, len(spare))] {
		delete(s.reqs, r.ID)
	}
}
