package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// Begin records an operation about to run and returns its entry's ID. An
// entry without a time gets the current time.
func (s *Store) Begin(ctx context.Context, e commands.AuditEntry) (int64, error) {
	var id int64
	err := s.call(ctx, "audit begin", func(ctx context.Context) error {
		rows, _, err := s.exec(ctx, insertEntry+" RETURNING id", entryArgs(e)...)
		if err == nil {
			id, err = strconv.ParseInt(rows[0][0], 10, 64)
		}
		return err
	})
	return id, err
}

// Complete sets the outcome fields of entry id.
func (s *Store) Complete(ctx context.Context, id int64, e commands.AuditEntry) error {
	return s.call(ctx, "audit complete", func(ctx context.Context) error {
		_, n, err := s.exec(ctx, `UPDATE audit SET outcome = $2, status = $3, stage = $4, uid = $5, code = $6
			WHERE id = $1`, id, e.Outcome, e.Status, e.Stage, e.UID, e.Code)
		if err == nil && n == 0 {
			return fmt.Errorf("no audit entry %d", id)
		}
		return err
	})
}

// Record adds a finished entry.
func (s *Store) Record(ctx context.Context, e commands.AuditEntry) error {
	return s.call(ctx, "audit record", func(ctx context.Context) error {
		_, _, err := s.exec(ctx, insertEntry, entryArgs(e)...)
		return err
	})
}

// insertEntry adds an audit entry; $1..$14 as entryArgs returns.
const insertEntry = `INSERT INTO audit (time, request_id, event, actor, deciders, action, domain, login, reason,
	outcome, status, stage, uid, code) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

// entryArgs returns insertEntry's arguments for e.
func entryArgs(e commands.AuditEntry) []any {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	return []any{e.Time, e.RequestID, string(e.Event), e.Actor, e.Deciders, string(e.Action),
		e.Domain, e.Login, e.Reason, e.Outcome, e.Status, e.Stage, e.UID, e.Code}
}

// Audit lists entries at or after since, by time and then ID, oldest or
// newest first, at most limit (0: all).
func (s *Store) Audit(ctx context.Context, since time.Time, limit int, newestFirst bool) ([]commands.AuditEntry, error) {
	order := "time, id"
	if newestFirst {
		order = "time DESC, id DESC"
	}
	var out []commands.AuditEntry
	err := s.call(ctx, "audit", func(ctx context.Context) error {
		rows, _, err := s.exec(ctx, `SELECT id, time, request_id, event, actor, array_to_json(deciders), action,
			domain, login, reason, outcome, status, stage, uid, code FROM audit WHERE time >= $1
			ORDER BY `+order+` LIMIT $2`, since, limitArg(limit))
		out = make([]commands.AuditEntry, 0, len(rows))
		for _, row := range rows {
			if err != nil {
				break
			}
			var e commands.AuditEntry
			e, err = scanEntry(row)
			out = append(out, e)
		}
		return err
	})
	return out, err
}

// scanEntry reads one audit row.
func scanEntry(row []string) (commands.AuditEntry, error) {
	e := commands.AuditEntry{RequestID: row[2], Event: commands.Event(row[3]), Actor: row[4],
		Action: commands.Action(row[6]), Domain: row[7], Login: row[8], Reason: row[9], Outcome: row[10],
		Status: row[11], Stage: row[12], Code: row[14]}
	var errs [4]error
	e.ID, errs[0] = strconv.ParseInt(row[0], 10, 64)
	e.Time, errs[1] = parseTime(row[1])
	e.Deciders, errs[2] = parseArray(row[5])
	e.UID, errs[3] = strconv.ParseInt(row[13], 10, 64)
	return e, errors.Join(errs[:]...)
}
