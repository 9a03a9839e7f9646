package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands"
)

var _ commands.ImportStore = (*Store)(nil)

// SaveImport records imp and its rows, every row new, in one transaction
// (the rows by COPY).
func (s *Store) SaveImport(ctx context.Context, imp commands.Import) error {
	return s.call(ctx, "save import", func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO imports (id, requester, channel, reason, digest, created) VALUES ($1, $2, $3, $4, $5, $6)`,
				imp.ID, imp.Requester, imp.Channel, imp.Reason, imp.Digest, imp.Created); err != nil {
				return err
			}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"import_rows"}, []string{"import_id", "idx", "line", "domain", "login", "owner", "given", "family"},
				pgx.CopyFromSlice(len(imp.Rows), func(i int) ([]any, error) {
					r := imp.Rows[i]
					return []any{imp.ID, i, r.Line, r.Domain, r.Login, r.Owner, r.Given, r.Family}, nil
				}))
			return err
		})
	})
}

const importList = `id, requester, channel, reason, digest, created, state, runner, renewed, done_at,
	progress_channel, progress_ts, notice_channel, notice_ts`

func scanImport(row pgx.CollectableRow) (commands.ImportRecord, error) {
	var r commands.ImportRecord
	var state string
	var renewed, done *time.Time
	err := row.Scan(&r.ID, &r.Requester, &r.Channel, &r.Reason, &r.Digest, &r.Created, &state, &r.Runner, &renewed, &done,
		&r.Progress.Channel, &r.Progress.TS, &r.Notice.Channel, &r.Notice.TS)
	r.State = commands.ImportState(state)
	if renewed != nil {
		r.Renewed = *renewed
	}
	if done != nil {
		r.Done = *done
	}
	return r, err
}

func scanRow(row pgx.CollectableRow) (commands.RowRecord, error) {
	var r commands.RowRecord
	var state string
	err := row.Scan(&r.Line, &r.Domain, &r.Login, &r.Owner, &r.Given, &r.Family, &state, &r.Runner, &r.Detail)
	r.State = commands.RowState(state)
	return r, err
}

// readImport reads the import's row of imports (rec's head) and its rows.
func (s *Store) readImport(ctx context.Context, q pgx.Rows) (commands.ImportRecord, bool, error) {
	rec, err := pgx.CollectExactlyOneRow(q, scanImport)
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT line, domain, login, owner, given, family, state, runner, detail
		FROM import_rows WHERE import_id = $1 ORDER BY idx`, rec.ID)
	rec.States, err = pgx.CollectRows(rows, scanRow)
	rec.Rows = make([]commands.ImportRow, len(rec.States))
	for i, r := range rec.States {
		rec.Rows[i] = r.ImportRow
	}
	return rec, err == nil, err
}

// GetImport returns the import with the ID and its rows.
func (s *Store) GetImport(ctx context.Context, id string) (rec commands.ImportRecord, ok bool, err error) {
	err = s.call(ctx, "get import", func(ctx context.Context) error {
		q, _ := s.pool.Query(ctx, "SELECT "+importList+" FROM imports WHERE id = $1", id)
		rec, ok, err = s.readImport(ctx, q)
		return err
	})
	return rec, ok, err
}

// LeaseImport gives runner the lease by one UPDATE whose WHERE is the
// compare-and-set.
func (s *Store) LeaseImport(ctx context.Context, id, runner string, now, stale time.Time) (rec commands.ImportRecord, ok bool, err error) {
	err = s.call(ctx, "lease import", func(ctx context.Context) error {
		q, _ := s.pool.Query(ctx, `UPDATE imports SET state = 'running', runner = $2, renewed = $3
			WHERE id = $1 AND state <> 'done' AND (runner = '' OR runner = $2 OR renewed <= $4) RETURNING `+importList, id, runner, now, stale)
		rec, ok, err = s.readImport(ctx, q)
		return err
	})
	return rec, ok, err
}

// RenewImport renews runner's lease.
func (s *Store) RenewImport(ctx context.Context, id, runner string, now time.Time) (ok bool, err error) {
	err = s.call(ctx, "renew import", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE imports SET renewed = $3 WHERE id = $1 AND runner = $2 AND state = 'running'`, id, runner, now)
		ok = tag.RowsAffected() == 1
		return err
	})
	return ok, err
}

// ClaimRow claims row i by one UPDATE whose WHERE is the compare-and-set
// (a new row, or one claimed by another runner, while runner holds the
// lease); taken_over says which it was.
func (s *Store) ClaimRow(ctx context.Context, id string, i int, runner string) (st commands.RowState, err error) {
	err = s.call(ctx, "claim import row", func(ctx context.Context) error {
		var over bool
		err := s.pool.QueryRow(ctx, `UPDATE import_rows SET taken_over = (state = 'claimed'), state = 'claimed', runner = $3
			WHERE import_id = $1 AND idx = $2 AND (state = 'new' OR (state = 'claimed' AND runner <> $3))
			AND EXISTS (SELECT 1 FROM imports WHERE id = $1 AND runner = $3 AND state = 'running')
			RETURNING taken_over`, id, i, runner).Scan(&over)
		switch {
		case err == nil && over:
			st = commands.RowClaimed
			return nil
		case err == nil:
			st = commands.RowNew
			return nil
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		var cur string
		if err := s.pool.QueryRow(ctx, `SELECT state FROM import_rows WHERE import_id = $1 AND idx = $2`, id, i).Scan(&cur); err != nil {
			return err
		}
		if st = commands.RowState(cur); !st.Final() {
			return fmt.Errorf("row %d of import %s is not for %s to claim", i, id, runner)
		}
		return nil
	})
	return st, err
}

// FinishRow records the outcome of runner's claimed row i.
func (s *Store) FinishRow(ctx context.Context, id string, i int, runner string, to commands.RowState, detail string) error {
	return s.call(ctx, "finish import row", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE import_rows SET state = $4, detail = $5
			WHERE import_id = $1 AND idx = $2 AND runner = $3 AND state = 'claimed'`, id, i, runner, string(to), detail)
		if err == nil && tag.RowsAffected() == 0 {
			return fmt.Errorf("row %d of import %s is not claimed by %s", i, id, runner)
		}
		return err
	})
}

// AttachImport records where the import's messages are.
func (s *Store) AttachImport(ctx context.Context, id string, progress, notice commands.MessageRef) error {
	return s.call(ctx, "attach import", func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `UPDATE imports SET progress_channel = $2, progress_ts = $3, notice_channel = $4, notice_ts = $5 WHERE id = $1`,
			id, progress.Channel, progress.TS, notice.Channel, notice.TS)
		return err
	})
}

// FinishImport marks runner's import done once every row has its outcome.
func (s *Store) FinishImport(ctx context.Context, id, runner string, now time.Time) (ok bool, err error) {
	err = s.call(ctx, "finish import", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE imports SET state = 'done', done_at = $3 WHERE id = $1 AND runner = $2 AND state = 'running'
			AND NOT EXISTS (SELECT 1 FROM import_rows WHERE import_id = $1 AND state IN ('new', 'claimed'))`, id, runner, now)
		ok = tag.RowsAffected() == 1
		return err
	})
	return ok, err
}

// StaleImports lists running imports whose lease is stale.
func (s *Store) StaleImports(ctx context.Context, stale time.Time, limit int) (ids []string, err error) {
	err = s.call(ctx, "stale imports", func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, `SELECT id FROM imports WHERE state = 'running' AND renewed <= $1 ORDER BY renewed, id LIMIT $2`, stale, limit)
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return ids, err
}

// pruneImports deletes, with their rows, the imports done before cutoff
// and those saved before cutoff and never run (their request was denied,
// cancelled or expired).
func (s *Store) pruneImports(ctx context.Context, cutoff time.Time) (int64, error) {
	return s.pruneBatches(ctx, "prune imports", `DELETE FROM imports WHERE id IN (SELECT id FROM imports
		WHERE (state = 'done' AND done_at < $1) OR (state = 'saved' AND created < $1) LIMIT $2)`, cutoff)
}
