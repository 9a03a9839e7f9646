package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands"
)

// selectList is the requests columns that make a Record, in
// scanRecord's order; qualify them with "r." where needed.
const selectList = `id, requester, channel, action, domain, login, reason, created, expires, state, approvers,
	decided_by, decided_at, outcome, message_channel, message_ts, reminded, handed_to, to_address`

// qualified returns selectList with every column qualified with alias.
func qualified(alias string) string { return qualifiedList(selectList, alias) }

// qualifiedList returns the column list with every column qualified with alias.
func qualifiedList(list, alias string) string {
	cols := strings.Split(list, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// insert records a new pending request; $1..$10 as args returns.
const insert = `INSERT INTO requests (id, requester, channel, action, domain, login, reason, created, expires, handed_to, to_address)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

// args returns the insert's arguments for p.
func args(p commands.Pending) []any {
	return []any{p.ID, p.Requester, p.Channel, string(p.Op.Action), p.Op.Domain, p.Op.Login, p.Op.Reason, p.Created, p.Expires, p.Op.For, p.Op.To}
}

// scanRecord reads one row of selectList.
func scanRecord(row pgx.CollectableRow) (commands.Record, error) {
	var r commands.Record
	var action, state string
	var decidedAt *time.Time
	err := row.Scan(&r.ID, &r.Requester, &r.Channel, &action, &r.Op.Domain, &r.Op.Login, &r.Op.Reason,
		&r.Created, &r.Expires, &state, &r.Approvers, &r.DecidedBy, &decidedAt, &r.RunText,
		&r.Message.Channel, &r.Message.TS, &r.Reminded, &r.Op.For, &r.Op.To)
	r.Op.Action, r.State = commands.Action(action), commands.State(state)
	if decidedAt != nil {
		r.DecidedAt = *decidedAt
	}
	return r, err
}

// Submit records p as a new pending request. A request with the same ID
// is an error.
func (s *Store) Submit(ctx context.Context, p commands.Pending) error {
	return s.call(ctx, "submit", func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			return submitOne(ctx, tx, p)
		})
	})
}

// submitOne records p in tx unless a request of its action on its target
// is pending and not past its expiry: a transaction-level advisory lock
// on the target makes the check and the insert one step for every
// replica.
func submitOne(ctx context.Context, tx pgx.Tx, p commands.Pending) error {
	target := string(p.Op.Action) + " " + p.Op.Login + "@" + p.Op.Domain
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, target); err != nil {
		return err
	}
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM requests WHERE state = 'pending' AND action = $1 AND domain = $2
		AND login = $3 AND expires > $4 ORDER BY created LIMIT 1`,
		string(p.Op.Action), p.Op.Domain, p.Op.Login, p.Created).Scan(&id)
	switch {
	case err == nil:
		return &commands.PendingExistsError{ID: id}
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	_, err = tx.Exec(ctx, insert, args(p)...)
	return err
}

// Attach records where the request's message is.
func (s *Store) Attach(ctx context.Context, id string, ref commands.MessageRef) error {
	return s.call(ctx, "attach", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE requests SET message_channel = $2, message_ts = $3, updated = now()
			WHERE id = $1`, id, ref.Channel, ref.TS)
		if err == nil && tag.RowsAffected() == 0 {
			return fmt.Errorf("no request %s", id)
		}
		return err
	})
}

// Get returns the request with the ID.
func (s *Store) Get(ctx context.Context, id string) (rec commands.Record, ok bool, err error) {
	err = s.call(ctx, "get", func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, "SELECT "+selectList+" FROM requests WHERE id = $1", id)
		rec, err = pgx.CollectExactlyOneRow(rows, scanRecord)
		ok = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return rec, ok, err
}

// change runs decide on the locked row of p, recording p first when the
// table lacks it, and writes the row back when decide changed it, in one
// transaction of two round trips.
func (s *Store) change(ctx context.Context, op string, p commands.Pending, decide func(r *commands.Record) bool) (commands.Record, error) {
	var rec commands.Record
	err := s.call(ctx, op, func(ctx context.Context) error {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer c.Release() // closed, and so rolled back, unless committed
		var b pgx.Batch
		b.Queue("BEGIN")
		b.Queue(insert+" ON CONFLICT (id) DO NOTHING", args(p)...)
		b.Queue("SELECT "+selectList+" FROM requests WHERE id = $1 FOR UPDATE", p.ID).Query(func(rows pgx.Rows) error {
			rec, err = pgx.CollectExactlyOneRow(rows, scanRecord)
			return err
		})
		if err := c.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
		var end pgx.Batch
		if decide(&rec) {
			end.Queue(`UPDATE requests SET state = $2, approvers = $3, decided_by = $4, decided_at = $5,
				updated = now() WHERE id = $1`,
				rec.ID, string(rec.State), nonNil(rec.Approvers), rec.DecidedBy, nullTime(rec.DecidedAt))
		}
		end.Queue("COMMIT")
		return c.SendBatch(ctx, &end).Close()
	})
	return rec, err
}

// nonNil returns ss, or an empty slice for nil (which pgx sends as NULL).
func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// Approve counts approver's approval of p as [commands.Store] says.
func (s *Store) Approve(ctx context.Context, p commands.Pending, approver string, need int, now time.Time) (commands.Record, commands.ApproveResult, error) {
	var res commands.ApproveResult
	rec, err := s.change(ctx, "approve", p, func(r *commands.Record) bool {
		switch {
		case r.State != commands.StatePending:
			res = commands.ApproveClosed
			return false
		case !now.Before(r.Expires):
			res = commands.ApproveExpired
			r.State, r.DecidedAt, r.DecidedBy = commands.StateExpired, now, ""
			return true
		case slices.Contains(r.Approvers, approver):
			res = commands.ApproveDuplicate
			return false
		}
		r.Approvers = append(r.Approvers, approver)
		res = commands.ApproveCounted
		if len(r.Approvers) >= max(need, 1) {
			res = commands.ApproveRun
			r.State, r.DecidedBy, r.DecidedAt = commands.StateRunning, approver, now
		}
		return true
	})
	return rec, res, err
}

// End moves the pending request p to the final state to.
func (s *Store) End(ctx context.Context, p commands.Pending, to commands.State, by string, now time.Time) (commands.Record, bool, error) {
	if to != commands.StateDenied && to != commands.StateCancelled && to != commands.StateExpired {
		return commands.Record{}, false, fmt.Errorf("pgstore: End to %q", to)
	}
	var ended bool
	rec, err := s.change(ctx, "end", p, func(r *commands.Record) bool {
		ended = r.State == commands.StatePending
		if ended {
			r.State, r.DecidedBy, r.DecidedAt = to, by, now
		}
		return ended
	})
	return rec, ended, err
}

// Finish records the end of a run; it changes only a running request.
func (s *Store) Finish(ctx context.Context, id string, to commands.State, runText string, now time.Time) error {
	switch to {
	case commands.StateDone, commands.StateFailed, commands.StateUncertain:
		return s.call(ctx, "finish", func(ctx context.Context) error {
			_, err := s.pool.Exec(ctx, `UPDATE requests SET state = $2, outcome = $3, updated = $4
				WHERE id = $1 AND state = 'running'`, id, string(to), runText, now)
			return err
		})
	case commands.StatePending:
		return s.call(ctx, "finish", func(ctx context.Context) error {
			_, err := s.pool.Exec(ctx, `UPDATE requests SET state = 'pending', outcome = $2, approvers = '{}',
				decided_by = '', decided_at = NULL, updated = $3 WHERE id = $1 AND state = 'running'`, id, runText, now)
			return err
		})
	}
	return fmt.Errorf("pgstore: Finish to %q", to)
}

// nullTime returns nil for the zero time, else t.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
