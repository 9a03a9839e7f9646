// Package meteredstore is a commands.Store that reports whether the
// database answers: it sets mailbot_database_up from every call.
package meteredstore

import (
	"context"
	"errors"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/metrics"
)

// NewGauge registers mailbot_database_up at 0: the database is not
// reached until the store opens.
func NewGauge(reg *metrics.Registry) *metrics.Gauge {
	return reg.NewGauge("mailbot_database_up", "1 while the last database call succeeded, 0 before the first connection and after a failure.")
}

// Store sets up from every call of the store: 0 when the call
// could not reach the database, 1 when it could.
// It embeds nothing, so that a method added to the Store is metered too,
// or does not compile.
type Store struct {
	st commands.Store
	up *metrics.Gauge
}

var _ commands.Store = (*Store)(nil)

// New wraps st, which has just opened (reached its database).
func New(st commands.Store, up *metrics.Gauge) *Store {
	up.Set(1)
	return &Store{st: st, up: up}
}

// seen records the outcome of a call and returns its error.
func (s *Store) seen(err error) error {
	if errors.Is(err, commands.ErrStoreUnavailable) {
		s.up.Set(0)
	} else {
		s.up.Set(1)
	}
	return err
}

func (s *Store) Durable() bool { return s.st.Durable() }

func (s *Store) Submit(ctx context.Context, p commands.Pending) error {
	return s.seen(s.st.Submit(ctx, p))
}

func (s *Store) Attach(ctx context.Context, id string, ref commands.MessageRef) error {
	return s.seen(s.st.Attach(ctx, id, ref))
}

func (s *Store) Get(ctx context.Context, id string) (commands.Record, bool, error) {
	rec, ok, err := s.st.Get(ctx, id)
	return rec, ok, s.seen(err)
}

func (s *Store) Approve(ctx context.Context, p commands.Pending, approver string, need int, now time.Time) (commands.Record, commands.ApproveResult, error) {
	rec, res, err := s.st.Approve(ctx, p, approver, need, now)
	return rec, res, s.seen(err)
}

func (s *Store) End(ctx context.Context, p commands.Pending, to commands.State, by string, now time.Time) (commands.Record, bool, error) {
	rec, ended, err := s.st.End(ctx, p, to, by, now)
	return rec, ended, s.seen(err)
}

func (s *Store) Finish(ctx context.Context, id string, to commands.State, runText string, now time.Time) error {
	return s.seen(s.st.Finish(ctx, id, to, runText, now))
}

func (s *Store) Pending(ctx context.Context, requester string, limit int) ([]commands.Record, error) {
	recs, err := s.st.Pending(ctx, requester, limit)
	return recs, s.seen(err)
}

func (s *Store) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	recs, err := s.st.ClaimExpired(ctx, now, limit)
	return recs, s.seen(err)
}

func (s *Store) ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]commands.Record, error) {
	recs, err := s.st.ClaimReminders(ctx, cutoff, now, limit)
	return recs, s.seen(err)
}

func (s *Store) ClaimStale(ctx context.Context, cutoff time.Time, runText string, limit int) ([]commands.Record, error) {
	recs, err := s.st.ClaimStale(ctx, cutoff, runText, limit)
	return recs, s.seen(err)
}

func (s *Store) Begin(ctx context.Context, e commands.AuditEntry) (int64, error) {
	id, err := s.st.Begin(ctx, e)
	return id, s.seen(err)
}

func (s *Store) Complete(ctx context.Context, id int64, e commands.AuditEntry) error {
	return s.seen(s.st.Complete(ctx, id, e))
}

func (s *Store) AppendAudit(ctx context.Context, e commands.AuditEntry) error {
	return s.seen(s.st.AppendAudit(ctx, e))
}

func (s *Store) Audit(ctx context.Context, since time.Time, limit int, newestFirst bool) ([]commands.AuditEntry, error) {
	entries, err := s.st.Audit(ctx, since, limit, newestFirst)
	return entries, s.seen(err)
}
