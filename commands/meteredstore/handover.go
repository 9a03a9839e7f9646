package meteredstore

import (
	"context"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// The hand-over methods of the metered store.

func (s *Store) OfferHandover(ctx context.Context, h commands.Handover) ([]commands.HandoverRecord, error) {
	voided, err := s.st.OfferHandover(ctx, h)
	return voided, s.seen(err)
}

func (s *Store) VoidHandovers(ctx context.Context, domain, login string, by commands.Action, now time.Time) ([]commands.HandoverRecord, error) {
	voided, err := s.st.VoidHandovers(ctx, domain, login, by, now)
	return voided, s.seen(err)
}

func (s *Store) AttachHandover(ctx context.Context, id string, ref commands.MessageRef) error {
	return s.seen(s.st.AttachHandover(ctx, id, ref))
}

func (s *Store) GetHandover(ctx context.Context, id string) (commands.HandoverRecord, bool, error) {
	rec, ok, err := s.st.GetHandover(ctx, id)
	return rec, ok, s.seen(err)
}

func (s *Store) ClaimHandover(ctx context.Context, h commands.Handover, now time.Time) (commands.HandoverRecord, commands.ClaimResult, error) {
	rec, res, err := s.st.ClaimHandover(ctx, h, now)
	return rec, res, s.seen(err)
}

func (s *Store) ReleaseHandover(ctx context.Context, id string) error {
	return s.seen(s.st.ReleaseHandover(ctx, id))
}

func (s *Store) ShownHandover(ctx context.Context, id string, now time.Time) error {
	return s.seen(s.st.ShownHandover(ctx, id, now))
}

func (s *Store) ClaimExpiredHandovers(ctx context.Context, now time.Time, limit int) ([]commands.HandoverRecord, error) {
	recs, err := s.st.ClaimExpiredHandovers(ctx, now, limit)
	return recs, s.seen(err)
}

func (s *Store) ClaimSelfService(ctx context.Context, user string, now time.Time, window time.Duration) (bool, time.Time, error) {
	ok, next, err := s.st.ClaimSelfService(ctx, user, now, window)
	return ok, next, s.seen(err)
}
