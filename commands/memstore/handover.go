package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// maxHandovers bounds the hand-overs kept: past it, those shown or
// expired longer ago than the retention go first, then the oldest ended.
const maxHandovers = 10000

// handovers are the hand-overs and the self-service counts; Store.mu
// guards them.
type handovers struct {
	recs  map[string]*commands.HandoverRecord
	self  map[string]time.Time // user ID -> their last self-service request
	voids map[string]voidMark  // login@domain -> its last void
}

// handover returns the record of id, creating the maps on first use.
func (s *Store) handover(id string) (*commands.HandoverRecord, bool) {
	if s.ho.recs == nil {
		s.ho.recs = map[string]*commands.HandoverRecord{}
		s.ho.self = map[string]time.Time{}
		s.ho.voids = map[string]voidMark{}
	}
	r, ok := s.ho.recs[id]
	return r, ok
}

// OfferHandover records h as offered and voids the open hand-overs of
// its mailbox that come before it.
func (s *Store) OfferHandover(ctx context.Context, h commands.Handover) ([]commands.HandoverRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.handover(h.ID); ok {
		return nil, fmt.Errorf("memstore: hand-over %s: %w", h.ID, commands.ErrHandoverExists)
	}
	s.offer(h)
	if h.Action == commands.ActionImport {
		return nil, nil
	}
	latest := h
	for _, r := range s.ho.recs {
		if r.State.Open() && sameMailbox(r.Handover, h) && before(latest, r.Handover) {
			latest = r.Handover
		}
	}
	return s.void(h.Domain, h.Login, h.Action, h.Created, func(r *commands.HandoverRecord) bool { return r.ID != latest.ID }), nil
}

// VoidHandovers voids the open hand-overs of a mailbox created at or
// before now.
func (s *Store) VoidHandovers(ctx context.Context, domain, login string, by commands.Action, now time.Time) ([]commands.HandoverRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handover("")
	return s.void(domain, login, by, now, func(r *commands.HandoverRecord) bool { return !r.Created.After(now) }), nil
}

// void voids the open hand-overs of the mailbox that match, by the action
// by at now, and remembers the void for hand-overs that this process
// learns of later (a click on one offered before a restart).
func (s *Store) void(domain, login string, by commands.Action, now time.Time, match func(*commands.HandoverRecord) bool) []commands.HandoverRecord {
	var out []commands.HandoverRecord
	for _, r := range s.ho.recs {
		if r.State.Open() && r.Action != commands.ActionImport && r.Domain == domain && r.Login == login && match(r) {
			r.State, r.DoneAt, r.VoidedBy = commands.HandoverStateVoided, now, by
			out = append(out, *r)
		}
	}
	s.remember(login+"@"+domain, voidMark{at: now, by: by})
	return out
}

// voidMark is the last void of a mailbox: a hand-over created before it
// that this process did not know is void too.
type voidMark struct {
	at time.Time
	by commands.Action
}

// remember keeps the last void of a mailbox, bounded as hand-overs are.
func (s *Store) remember(mailbox string, m voidMark) {
	if len(s.ho.voids) >= maxHandovers {
		clear(s.ho.voids)
	}
	if cur, ok := s.ho.voids[mailbox]; !ok || cur.at.Before(m.at) {
		s.ho.voids[mailbox] = m
	}
}

// sameMailbox reports whether a and b hand over the same mailbox.
func sameMailbox(a, b commands.Handover) bool {
	return a.Action != commands.ActionImport && a.Domain == b.Domain && a.Login == b.Login
}

// before reports whether a was offered before b: by Created, then ID.
func before(a, b commands.Handover) bool {
	return a.Created.Before(b.Created) || a.Created.Equal(b.Created) && a.ID < b.ID
}

func (s *Store) offer(h commands.Handover) *commands.HandoverRecord {
	if len(s.ho.recs) >= maxHandovers {
		s.forgetHandovers()
	}
	r := &commands.HandoverRecord{Handover: h, State: commands.HandoverStateOffered}
	s.ho.recs[h.ID] = r
	return r
}

// forgetHandovers drops ended hand-overs, those ended before the
// retention first, down to seven eighths of the bound.
func (s *Store) forgetHandovers() {
	cutoff := s.opts.Now().Add(-s.opts.Retention)
	for id, r := range s.ho.recs {
		if ended(r) && r.DoneAt.Before(cutoff) {
			delete(s.ho.recs, id)
		}
	}
	for id, r := range s.ho.recs {
		if len(s.ho.recs) < maxHandovers*7/8 {
			return
		}
		if ended(r) {
			delete(s.ho.recs, id)
		}
	}
}

func ended(r *commands.HandoverRecord) bool {
	return !r.State.Open()
}

// AttachHandover records where the hand-over's message is.
func (s *Store) AttachHandover(ctx context.Context, id string, ref commands.MessageRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.handover(id)
	if !ok {
		return fmt.Errorf("memstore: no hand-over %s", id)
	}
	r.Message = ref
	return nil
}

// GetHandover returns a copy of the hand-over with the ID.
func (s *Store) GetHandover(ctx context.Context, id string) (commands.HandoverRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.handover(id)
	if !ok {
		return commands.HandoverRecord{}, false, nil
	}
	return *r, true, nil
}

// ClaimHandover claims h as [commands.HandoverStore] says.
func (s *Store) ClaimHandover(ctx context.Context, h commands.Handover, now time.Time) (commands.HandoverRecord, commands.ClaimResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.handover(h.ID)
	if !ok {
		r = s.offer(h)
		if m, voided := s.ho.voids[h.Target()]; voided && h.Action != commands.ActionImport && h.Created.Before(m.at) {
			r.State, r.DoneAt, r.VoidedBy = commands.HandoverStateVoided, m.at, m.by
		}
	}
	stale := r.State == commands.HandoverStateShowing && !r.ClaimedAt.After(now.Add(-commands.StaleClaim))
	switch {
	case r.State != commands.HandoverStateOffered && !stale:
		return *r, commands.ClaimClosed, nil
	case !now.Before(r.Expires):
		if stale {
			return *r, commands.ClaimClosed, nil
		}
		r.State, r.DoneAt = commands.HandoverStateExpired, now
		return *r, commands.ClaimExpired, nil
	}
	r.State, r.ClaimedAt = commands.HandoverStateShowing, now
	return *r, commands.ClaimTaken, nil
}

// ReleaseHandover returns a showing hand-over to offered.
func (s *Store) ReleaseHandover(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.handover(id); ok && r.State == commands.HandoverStateShowing {
		r.State, r.ClaimedAt = commands.HandoverStateOffered, time.Time{}
	}
	return nil
}

// ShownHandover records that a showing hand-over was shown.
func (s *Store) ShownHandover(ctx context.Context, id string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.handover(id); ok && r.State == commands.HandoverStateShowing {
		r.State, r.DoneAt = commands.HandoverStateShown, now
	}
	return nil
}

// ClaimExpiredHandovers expires the offered hand-overs past their expiry.
func (s *Store) ClaimExpiredHandovers(ctx context.Context, now time.Time, limit int) ([]commands.HandoverRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []commands.HandoverRecord
	for _, r := range s.ho.recs {
		if len(out) >= limit {
			break
		}
		if r.State == commands.HandoverStateOffered && !now.Before(r.Expires) {
			r.State, r.DoneAt = commands.HandoverStateExpired, now
			out = append(out, *r)
		}
	}
	return out, nil
}

// ClaimSelfService counts a self-service request of user at now.
func (s *Store) ClaimSelfService(ctx context.Context, user string, now time.Time, window time.Duration) (bool, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handover("")
	if last, ok := s.ho.self[user]; ok && now.Before(last.Add(window)) {
		return false, last.Add(window), nil
	}
	s.ho.self[user] = now
	if len(s.ho.self) > maxHandovers {
		for u, t := range s.ho.self {
			if !now.Before(t.Add(window)) {
				delete(s.ho.self, u)
			}
		}
	}
	return true, time.Time{}, nil
}
