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
	recs map[string]*commands.HandoverRecord
	self map[string]time.Time // user ID -> their last self-service request
}

// handover returns the record of id, creating the maps on first use.
func (s *Store) handover(id string) (*commands.HandoverRecord, bool) {
	if s.ho.recs == nil {
		s.ho.recs = map[string]*commands.HandoverRecord{}
		s.ho.self = map[string]time.Time{}
	}
	r, ok := s.ho.recs[id]
	return r, ok
}

// OfferHandover records h as offered.
func (s *Store) OfferHandover(ctx context.Context, h commands.Handover) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.handover(h.ID); ok {
		return fmt.Errorf("memstore: hand-over %s exists", h.ID)
	}
	s.offer(h)
	return nil
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
	return r.State == commands.HandoverStateShown || r.State == commands.HandoverStateExpired
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
