package pgstore

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands"
)

// limitArg returns limit for a LIMIT clause: NULL (no limit) when it is
// zero or less.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil
	}
	return limit
}

// records runs sql, which returns rows of selectList, and reads them.
func (s *Store) records(ctx context.Context, op, sql string, args ...any) ([]commands.Record, error) {
	var out []commands.Record
	err := s.call(ctx, op, func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, sql, args...)
		var err error
		out, err = pgx.CollectRows(rows, scanRecord)
		return err
	})
	return out, err
}

// Pending lists pending requests, oldest first; limit <= 0 lists all.
func (s *Store) Pending(ctx context.Context, requester string, limit int) ([]commands.Record, error) {
	return s.records(ctx, "pending", `SELECT `+selectList+` FROM requests
		WHERE state = 'pending' AND ($1 = '' OR requester = $1)
		ORDER BY created, id LIMIT $2`, requester, limitArg(limit))
}

// ClaimExpired moves pending requests due at now to expired; of replicas
// claiming at once, each gets different rows (SKIP LOCKED).
func (s *Store) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	recs, err := s.records(ctx, "claim expired", `UPDATE requests r
		SET state = 'expired', decided_at = $1, decided_by = '', updated = now()
		FROM (SELECT id FROM requests WHERE state = 'pending' AND expires <= $1
			ORDER BY expires, id LIMIT $2 FOR UPDATE SKIP LOCKED) due
		WHERE r.id = due.id
		RETURNING `+qualified("r"), now, limitArg(limit))
	slices.SortFunc(recs, func(a, b commands.Record) int { return a.Expires.Compare(b.Expires) })
	return recs, err
}

// ClaimReminders marks pending requests created at or before cutoff, not
// expired at now and not reminded, as reminded; of replicas claiming at
// once, each gets different rows (SKIP LOCKED).
func (s *Store) ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]commands.Record, error) {
	recs, err := s.records(ctx, "claim reminders", `UPDATE requests r
		SET reminded = true, updated = now()
		FROM (SELECT id FROM requests WHERE state = 'pending' AND NOT reminded AND created <= $1 AND expires > $2
			ORDER BY created, id LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE r.id = due.id
		RETURNING `+qualified("r"), cutoff, now, limitArg(limit))
	slices.SortFunc(recs, func(a, b commands.Record) int { return a.Created.Compare(b.Created) })
	return recs, err
}

// ClaimStale moves running requests started at or before cutoff to
// uncertain; of replicas claiming at once, each gets different rows.
func (s *Store) ClaimStale(ctx context.Context, cutoff time.Time, runText string, limit int) ([]commands.Record, error) {
	recs, err := s.records(ctx, "claim stale", `UPDATE requests r
		SET state = 'uncertain', outcome = $2, updated = now()
		FROM (SELECT id FROM requests WHERE state = 'running' AND decided_at <= $1
			ORDER BY decided_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE r.id = due.id
		RETURNING `+qualified("r"), cutoff, runText, limitArg(limit))
	slices.SortFunc(recs, func(a, b commands.Record) int { return a.Created.Compare(b.Created) })
	return recs, err
}
