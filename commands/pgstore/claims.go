package pgstore

import (
	"context"
	"slices"
	"strings"
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

// query runs sql and collects the Records of its rows.
func (s *Store) query(ctx context.Context, op, sql string, args ...any) ([]commands.Record, error) {
	var out []commands.Record
	err := s.call(ctx, op, func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, sql, args...)
		var err error
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (commands.Record, error) { return scan(row) })
		return err
	})
	return out, err
}

// Pending lists pending requests, oldest first; limit <= 0 lists all.
func (s *Store) Pending(ctx context.Context, requester string, limit int) ([]commands.Record, error) {
	return s.query(ctx, "pending", `SELECT `+columns+` FROM requests
		WHERE state = 'pending' AND ($1 = '' OR requester = $1)
		ORDER BY created, id LIMIT $2`, requester, limitArg(limit))
}

// ClaimExpired moves pending requests due at now to expired; of replicas
// claiming at once, each gets different rows (SKIP LOCKED).
func (s *Store) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	recs, err := s.query(ctx, "claim expired", `UPDATE requests r
		SET state = 'expired', decided_at = $1, decided_by = '', updated = now()
		FROM (SELECT id FROM requests WHERE state = 'pending' AND expires <= $1
			ORDER BY expires, id LIMIT $2 FOR UPDATE SKIP LOCKED) due
		WHERE r.id = due.id
		RETURNING `+prefixed("r"), now, limitArg(limit))
	slices.SortFunc(recs, func(a, b commands.Record) int { return a.Expires.Compare(b.Expires) })
	return recs, err
}

// ClaimReminders marks pending requests created at or before cutoff, not
// expired at now and not reminded, as reminded; of replicas claiming at
// once, each gets different rows (SKIP LOCKED).
func (s *Store) ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]commands.Record, error) {
	recs, err := s.query(ctx, "claim reminders", `UPDATE requests r
		SET reminded = true, updated = now()
		FROM (SELECT id FROM requests WHERE state = 'pending' AND NOT reminded AND created <= $1 AND expires > $2
			ORDER BY created, id LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE r.id = due.id
		RETURNING `+prefixed("r"), cutoff, now, limitArg(limit))
	slices.SortFunc(recs, func(a, b commands.Record) int { return a.Created.Compare(b.Created) })
	return recs, err
}

// prefixed returns columns, each qualified with the table alias.
func prefixed(alias string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}
