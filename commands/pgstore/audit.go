package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mailbot/mailbot/commands"
)

// Begin records an operation about to run and returns its entry's ID. An
// entry without a time gets the current time.
func (s *Store) Begin(ctx context.Context, e commands.AuditEntry) (int64, error) {
	var id int64
	err := s.call(ctx, "audit begin", func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, insertEntry+" RETURNING id", entryArgs(e)...).Scan(&id)
	})
	return id, err
}

// Complete sets the outcome fields of entry id.
func (s *Store) Complete(ctx context.Context, id int64, e commands.AuditEntry) error {
	return s.call(ctx, "audit complete", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE audit SET outcome = $2, status = $3, stage = $4, uid = $5, code = $6
			WHERE id = $1`, id, e.Outcome, e.Status, e.Stage, e.UID, e.Code)
		if err == nil && tag.RowsAffected() == 0 {
			return fmt.Errorf("no audit entry %d", id)
		}
		return err
	})
}

// AppendAudit adds a finished entry to the audit trail.
func (s *Store) AppendAudit(ctx context.Context, e commands.AuditEntry) error {
	return s.call(ctx, "audit record", func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, insertEntry, entryArgs(e)...)
		return err
	})
}

// insertEntry adds an audit entry; $1..$16 as entryArgs returns.
const insertEntry = `INSERT INTO audit (time, request_id, event, actor, deciders, action, domain, login, reason,
	outcome, status, stage, uid, code, provider, handed_to, to_address, source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`

// entryArgs returns insertEntry's arguments for e.
func entryArgs(e commands.AuditEntry) []any {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	return []any{e.Time, e.RequestID, string(e.Event), e.Actor, nonNil(e.Deciders), string(e.Action),
		e.Domain, e.Login, e.Reason, e.Outcome, e.Status, e.Stage, e.UID, e.Code, e.Provider, e.HandedTo, e.To, e.Source}
}

// entryList is the audit columns that make an AuditEntry, in scanEntry's
// order.
const entryList = `id, time, request_id, event, actor, deciders, action, domain, login, reason, outcome,
	status, stage, uid, code, provider, handed_to, to_address, source`

// Audit lists entries at or after since, by time and then ID, oldest or
// newest first, at most limit (0: all).
func (s *Store) Audit(ctx context.Context, since time.Time, limit int, newestFirst bool) ([]commands.AuditEntry, error) {
	order := "time, id"
	if newestFirst {
		order = "time DESC, id DESC"
	}
	var out []commands.AuditEntry
	err := s.call(ctx, "audit", func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, `SELECT `+entryList+` FROM audit WHERE time >= $1
			ORDER BY `+order+` LIMIT $2`, since, limitArg(limit))
		var err error
		out, err = pgx.CollectRows(rows, scanEntry)
		return err
	})
	return out, err
}

// AuditPageSize is how many entries [Store.AuditPages] reads at a time.
const AuditPageSize = 1000

// AuditPages calls page with the entries at or after since, oldest
// first, AuditPageSize at a time, until there are no more or page returns
// an error. Each page is read by a query of its own under the call
// timeout, starting after the last entry of the page before (by time,
// then ID, as the index audit_time orders them), so that any window is
// read in constant memory and time per page. The slice is reused: page
// must not keep it.
func (s *Store) AuditPages(ctx context.Context, since time.Time, page func([]commands.AuditEntry) error) error {
	after, afterID := since, int64(0)
	buf := make([]commands.AuditEntry, 0, AuditPageSize)
	for {
		buf = buf[:0]
		err := s.call(ctx, "audit", func(ctx context.Context) error {
			rows, _ := s.pool.Query(ctx, `SELECT `+entryList+` FROM audit WHERE (time, id) > ($1, $2)
				ORDER BY time, id LIMIT $3`, after, afterID, AuditPageSize)
			var err error
			buf, err = pgx.AppendRows(buf, rows, scanEntry)
			return err
		})
		if err != nil || len(buf) == 0 {
			return explainRead(err)
		}
		if err := page(buf); err != nil {
			return err
		}
		if len(buf) < AuditPageSize {
			return nil
		}
		last := buf[len(buf)-1]
		after, afterID = last.Time, last.ID
	}
}

// explainRead says in one line what a refusal to read the audit trail
// means for the operator: no schema yet, an older one, or a role without
// the right to read it.
func explainRead(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case "42P01": // undefined_table
		return errors.New("the database has no audit trail (no table audit): mailbot serve creates it when it first starts on this database")
	case "42703": // undefined_column
		return errors.New("the database's schema is older than this mailbot (the table audit lacks a column): start this version's mailbot serve on it once to migrate it")
	case "42501": // insufficient_privilege
		return errors.New("the database role may not read the audit trail: GRANT SELECT ON audit, requests TO the role")
	}
	return err
}

// scanEntry reads one row of entryList.
func scanEntry(row pgx.CollectableRow) (commands.AuditEntry, error) {
	var e commands.AuditEntry
	var event, action string
	err := row.Scan(&e.ID, &e.Time, &e.RequestID, &event, &e.Actor, &e.Deciders, &action, &e.Domain,
		&e.Login, &e.Reason, &e.Outcome, &e.Status, &e.Stage, &e.UID, &e.Code, &e.Provider, &e.HandedTo, &e.To, &e.Source)
	e.Event, e.Action = commands.Event(event), commands.Action(action)
	return e, err
}
