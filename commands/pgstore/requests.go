package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// columns are the requests columns that make a Record, in scanRecord's
// order; approvers is read as JSON.
var columns = []string{"id", "requester", "channel", "action", "domain", "login", "reason", "created",
	"expires", "state", "approvers", "decided_by", "decided_at", "outcome", "message_channel", "message_ts", "reminded"}

// selectList returns columns for a SELECT or RETURNING, qualified with
// alias when it is not empty.
func selectList(alias string) string {
	cols := make([]string, len(columns))
	for i, c := range columns {
		if alias != "" {
			c = alias + "." + c
		}
		if strings.HasSuffix(c, "approvers") {
			c = "array_to_json(" + c + ")"
		}
		cols[i] = c
	}
	return strings.Join(cols, ", ")
}

// insert records a new pending request; $1..$9 as args returns.
const insert = `INSERT INTO requests (id, requester, channel, action, domain, login, reason, created, expires)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// args returns the insert's arguments for p.
func args(p commands.Pending) []any {
	return []any{p.ID, p.Requester, p.Channel, string(p.Op.Action), p.Op.Domain, p.Op.Login, p.Op.Reason, p.Created, p.Expires}
}

// scanRecord reads one row of selectList.
func scanRecord(row []string) (commands.Record, error) {
	if len(row) != len(columns) {
		return commands.Record{}, fmt.Errorf("a row of %d columns, want %d", len(row), len(columns))
	}
	r := commands.Record{
		Pending: commands.Pending{ID: row[0], Requester: row[1], Channel: row[2],
			Op: commands.Operation{Action: commands.Action(row[3]), Domain: row[4], Login: row[5], Reason: row[6]}},
		State: commands.State(row[9]), DecidedBy: row[11], Outcome: row[13],
		Message: commands.MessageRef{Channel: row[14], TS: row[15]}, Reminded: row[16] == "t",
	}
	var errs [4]error
	r.Created, errs[0] = parseTime(row[7])
	r.Expires, errs[1] = parseTime(row[8])
	r.Approvers, errs[2] = parseArray(row[10])
	r.DecidedAt, errs[3] = parseTime(row[12])
	return r, errors.Join(errs[:]...)
}

// scanRecords reads rows of selectList.
func scanRecords(rows [][]string) ([]commands.Record, error) {
	out := make([]commands.Record, 0, len(rows))
	for _, row := range rows {
		r, err := scanRecord(row)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Submit records p as a new pending request. A request with the same ID
// is an error.
func (s *Store) Submit(ctx context.Context, p commands.Pending) error {
	return s.call(ctx, "submit", func(ctx context.Context) error {
		_, _, err := s.exec(ctx, insert, args(p)...)
		return err
	})
}

// Attach records where the request's message is.
func (s *Store) Attach(ctx context.Context, id string, ref commands.MessageRef) error {
	return s.call(ctx, "attach", func(ctx context.Context) error {
		_, n, err := s.exec(ctx, `UPDATE requests SET message_channel = $2, message_ts = $3, updated = now()
			WHERE id = $1`, id, ref.Channel, ref.TS)
		if err == nil && n == 0 {
			return fmt.Errorf("no request %s", id)
		}
		return err
	})
}

// Get returns the request with the ID.
func (s *Store) Get(ctx context.Context, id string) (rec commands.Record, ok bool, err error) {
	err = s.call(ctx, "get", func(ctx context.Context) error {
		rows, _, err := s.exec(ctx, "SELECT "+selectList("")+" FROM requests WHERE id = $1", id)
		if err != nil || len(rows) == 0 {
			ok = false
			return err
		}
		rec, err = scanRecord(rows[0])
		ok = err == nil
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
		c, err := s.pool.acquire(ctx)
		if err != nil {
			return err
		}
		defer s.pool.release(c) // closed, and so rolled back, unless committed
		var b batch
		rows, err := b.add("BEGIN").add(insert+" ON CONFLICT (id) DO NOTHING", args(p)...).
			add("SELECT "+selectList("")+" FROM requests WHERE id = $1 FOR UPDATE", p.ID).run(ctx, c)
		if err != nil {
			return err
		}
		if len(rows[2]) != 1 {
			return fmt.Errorf("request %s: %d rows", p.ID, len(rows[2]))
		}
		if rec, err = scanRecord(rows[2][0]); err != nil {
			return err
		}
		var end batch
		if decide(&rec) {
			end.add(`UPDATE requests SET state = $2, approvers = $3, decided_by = $4, decided_at = $5,
				updated = now() WHERE id = $1`,
				rec.ID, string(rec.State), rec.Approvers, rec.DecidedBy, nullTime(rec.DecidedAt))
		}
		_, err = end.add("COMMIT").run(ctx, c)
		return err
	})
	return rec, err
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
func (s *Store) Finish(ctx context.Context, id string, to commands.State, outcome string, now time.Time) error {
	switch to {
	case commands.StateDone, commands.StateFailed, commands.StateUncertain:
		return s.call(ctx, "finish", func(ctx context.Context) error {
			_, _, err := s.exec(ctx, `UPDATE requests SET state = $2, outcome = $3, updated = $4
				WHERE id = $1 AND state = 'running'`, id, string(to), outcome, now)
			return err
		})
	case commands.StatePending:
		return s.call(ctx, "finish", func(ctx context.Context) error {
			_, _, err := s.exec(ctx, `UPDATE requests SET state = 'pending', outcome = $2, approvers = '{}',
				decided_by = '', decided_at = NULL, updated = $3 WHERE id = $1 AND state = 'running'`, id, outcome, now)
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
