package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands"
)

// The retention: what Prune deletes, and how.
const (
	// RequestRetention is how long a decided request is kept after its
	// decision and after its expiry: a stale click on a request the
	// store no longer knows would record it again as pending.
	RequestRetention = 7 * 24 * time.Hour
	// DefaultAuditRetention is how long audit entries are kept unless
	// WithAuditRetention says otherwise.
	DefaultAuditRetention = 365 * 24 * time.Hour
	// PruneEvery is the least time between two prunings by one Store.
	PruneEvery = time.Hour
	// pruneBatch bounds the rows one statement deletes, so that no
	// transaction holds many row locks or runs long.
	pruneBatch = 1000
)

// pruneLock is the advisory lock's key of the pruning: "mbprune" in ASCII.
const pruneLock = 0x6d6270_72756e65

// WithAuditRetention sets how long audit entries are kept
// (DefaultAuditRetention by default); 0 keeps them for ever.
func WithAuditRetention(d time.Duration) Option { return func(o *options) { o.auditRetention = d } }

var _ commands.Pruner = (*Store)(nil)

// Prune deletes the decided requests whose decision and expiry are both
// older than RequestRetention at now, and the audit entries older than
// the audit retention, a batch at a time. It does so at most once per
// PruneEvery (by now) on one Store, and on one replica at a time: each
// batch runs under a transaction-level advisory lock, and a replica that
// finds it taken leaves the work to the one that holds it.
func (s *Store) Prune(ctx context.Context, now time.Time) (requests, entries int64, err error) {
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	if !s.lastPrune.IsZero() && now.Sub(s.lastPrune) < PruneEvery {
		return 0, 0, nil
	}
	s.lastPrune = now
	cutoff := now.Add(-RequestRetention)
	requests, err = s.pruneBatches(ctx, "prune requests", `DELETE FROM requests WHERE id IN (SELECT id FROM requests
		WHERE state NOT IN ('pending', 'running') AND decided_at < $1 AND expires < $1 LIMIT $2)`, cutoff)
	if err == nil {
		var n int64
		n, err = s.pruneHandovers(ctx, cutoff)
		requests += n
	}
	if err == nil {
		var n int64
		n, err = s.pruneImports(ctx, cutoff)
		requests += n
	}
	if err != nil || s.auditRetention <= 0 {
		return requests, 0, err
	}
	entries, err = s.pruneBatches(ctx, "prune audit", `DELETE FROM audit WHERE id IN (SELECT id FROM audit
		WHERE time < $1 ORDER BY time LIMIT $2)`, now.Add(-s.auditRetention))
	return requests, entries, err
}

// pruneBatches runs the DELETE sql with cutoff and the batch size, each
// batch in a transaction under the pruning's lock, until a batch deletes
// fewer than a full batch or another replica holds the lock.
func (s *Store) pruneBatches(ctx context.Context, op, sql string, cutoff time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.call(ctx, op, func(ctx context.Context) error {
			return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
				var locked bool
				if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", int64(pruneLock)).Scan(&locked); err != nil || !locked {
					n = 0
					return err
				}
				tag, err := tx.Exec(ctx, sql, cutoff, pruneBatch)
				n = tag.RowsAffected()
				return err
			})
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}
