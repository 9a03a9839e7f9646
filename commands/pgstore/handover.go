package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands"
)

// handoverList is the handovers columns that make a HandoverRecord, in
// scanHandover's order.
const handoverList = `id, owner, requester, request_id, action, domain, login, self_service, created, expires,
	state, claimed_at, done_at, message_channel, message_ts, voided_by`

// insertHandover records an offered hand-over; $1..$10 as handoverArgs returns.
const insertHandover = `INSERT INTO handovers (id, owner, requester, request_id, action, domain, login, self_service, created, expires)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

func handoverArgs(h commands.Handover) []any {
	return []any{h.ID, h.Owner, h.Requester, h.RequestID, string(h.Action), h.Domain, h.Login, h.SelfService, h.Created, h.Expires}
}

// scanHandover reads one row of handoverList.
func scanHandover(row pgx.CollectableRow) (commands.HandoverRecord, error) {
	var r commands.HandoverRecord
	var action, state, voidedBy string
	var claimed, done *time.Time
	err := row.Scan(&r.ID, &r.Owner, &r.Requester, &r.RequestID, &action, &r.Domain, &r.Login, &r.SelfService,
		&r.Created, &r.Expires, &state, &claimed, &done, &r.Message.Channel, &r.Message.TS, &voidedBy)
	r.Action, r.State, r.VoidedBy = commands.Action(action), commands.HandoverState(state), commands.Action(voidedBy)
	if claimed != nil {
		r.ClaimedAt = *claimed
	}
	if done != nil {
		r.DoneAt = *done
	}
	return r, err
}

// OfferHandover records h as offered and voids the open hand-overs of its
// mailbox that come before it, in one transaction under an advisory lock
// on the mailbox, so that of concurrent offers on any replicas the latest
// alone stays open.
func (s *Store) OfferHandover(ctx context.Context, h commands.Handover) ([]commands.HandoverRecord, error) {
	var voided []commands.HandoverRecord
	err := s.call(ctx, "offer hand-over", func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := lockMailbox(ctx, tx, h.Domain, h.Login); err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, insertHandover+" ON CONFLICT (id) DO NOTHING", handoverArgs(h)...)
			switch {
			case err != nil:
				return err
			case tag.RowsAffected() == 0:
				return commands.ErrHandoverExists
			case h.Action == commands.ActionImport:
				return nil
			}
			rows, _ := tx.Query(ctx, `UPDATE handovers SET state = 'voided', done_at = $3, voided_by = $4
				WHERE `+openOf+` AND (created, id COLLATE "C") < (SELECT created, id COLLATE "C" FROM handovers
					WHERE `+openOf+` ORDER BY created DESC, id COLLATE "C" DESC LIMIT 1)
				RETURNING `+handoverList, h.Domain, h.Login, h.Created, string(h.Action))
			voided, err = pgx.CollectRows(rows, scanHandover)
			return err
		})
	})
	return voided, err
}

// openOf is the condition of the open hand-overs of the mailbox $2@$1.
const openOf = `domain = $1 AND login = $2 AND state IN ('offered', 'showing') AND action <> 'import'`

// lockMailbox takes, for the transaction, the advisory lock of the
// hand-overs of the mailbox login@domain.
func lockMailbox(ctx context.Context, tx pgx.Tx, domain, login string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "handover "+login+"@"+domain)
	return err
}

// VoidHandovers voids the open hand-overs of a mailbox created at or
// before now, under the mailbox's lock.
func (s *Store) VoidHandovers(ctx context.Context, domain, login string, by commands.Action, now time.Time) ([]commands.HandoverRecord, error) {
	var voided []commands.HandoverRecord
	err := s.call(ctx, "void hand-overs", func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := lockMailbox(ctx, tx, domain, login); err != nil {
				return err
			}
			rows, _ := tx.Query(ctx, `UPDATE handovers SET state = 'voided', done_at = $3, voided_by = $4
				WHERE `+openOf+` AND created <= $3 RETURNING `+handoverList, domain, login, now, string(by))
			var err error
			voided, err = pgx.CollectRows(rows, scanHandover)
			return err
		})
	})
	return voided, err
}

// AttachHandover records where the hand-over's message is.
func (s *Store) AttachHandover(ctx context.Context, id string, ref commands.MessageRef) error {
	return s.call(ctx, "attach hand-over", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `UPDATE handovers SET message_channel = $2, message_ts = $3 WHERE id = $1`, id, ref.Channel, ref.TS)
		if err == nil && tag.RowsAffected() == 0 {
			return fmt.Errorf("no hand-over %s", id)
		}
		return err
	})
}

// GetHandover returns the hand-over with the ID.
func (s *Store) GetHandover(ctx context.Context, id string) (rec commands.HandoverRecord, ok bool, err error) {
	err = s.call(ctx, "get hand-over", func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, "SELECT "+handoverList+" FROM handovers WHERE id = $1", id)
		rec, err = pgx.CollectExactlyOneRow(rows, scanHandover)
		ok = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return rec, ok, err
}

// ClaimHandover claims h as [commands.HandoverStore] says: the row is
// recorded if missing, then changed by one UPDATE whose WHERE is the
// compare-and-set, so that of concurrent claims on any replicas one wins.
func (s *Store) ClaimHandover(ctx context.Context, h commands.Handover, now time.Time) (commands.HandoverRecord, commands.ClaimResult, error) {
	var rec commands.HandoverRecord
	res := commands.ClaimClosed
	err := s.call(ctx, "claim hand-over", func(ctx context.Context) error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, insertHandover+" ON CONFLICT (id) DO NOTHING", handoverArgs(h)...); err != nil {
				return err
			}
			rows, _ := tx.Query(ctx, `UPDATE handovers SET
				state = CASE WHEN state = 'offered' AND expires <= $2 THEN 'expired' ELSE 'showing' END,
				done_at = CASE WHEN state = 'offered' AND expires <= $2 THEN $2 ELSE done_at END,
				claimed_at = CASE WHEN state = 'offered' AND expires <= $2 THEN claimed_at ELSE $2 END
				WHERE id = $1 AND (state = 'offered' OR (state = 'showing' AND claimed_at <= $3 AND expires > $2))
				RETURNING `+handoverList, h.ID, now, now.Add(-commands.StaleClaim))
			got, err := pgx.CollectRows(rows, scanHandover)
			switch {
			case err != nil:
				return err
			case len(got) == 1 && got[0].State == commands.HandoverStateExpired:
				rec, res = got[0], commands.ClaimExpired
				return nil
			case len(got) == 1:
				rec, res = got[0], commands.ClaimTaken
				return nil
			}
			rows, _ = tx.Query(ctx, "SELECT "+handoverList+" FROM handovers WHERE id = $1", h.ID)
			rec, err = pgx.CollectExactlyOneRow(rows, scanHandover)
			res = commands.ClaimClosed
			return err
		})
	})
	return rec, res, err
}

// ReleaseHandover returns a showing hand-over to offered.
func (s *Store) ReleaseHandover(ctx context.Context, id string) error {
	return s.call(ctx, "release hand-over", func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `UPDATE handovers SET state = 'offered', claimed_at = NULL WHERE id = $1 AND state = 'showing'`, id)
		return err
	})
}

// ShownHandover records that a showing hand-over was shown at now.
func (s *Store) ShownHandover(ctx context.Context, id string, now time.Time) error {
	return s.call(ctx, "hand-over shown", func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `UPDATE handovers SET state = 'shown', done_at = $2 WHERE id = $1 AND state = 'showing'`, id, now)
		return err
	})
}

// ClaimExpiredHandovers expires the offered hand-overs due at now; of
// replicas claiming at once, each gets different rows (SKIP LOCKED).
func (s *Store) ClaimExpiredHandovers(ctx context.Context, now time.Time, limit int) ([]commands.HandoverRecord, error) {
	var out []commands.HandoverRecord
	err := s.call(ctx, "claim expired hand-overs", func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, `UPDATE handovers h SET state = 'expired', done_at = $1
			WHERE h.id IN (SELECT id FROM handovers WHERE state = 'offered' AND expires <= $1
				ORDER BY expires, id LIMIT $2 FOR UPDATE SKIP LOCKED)
			AND h.state = 'offered'
			RETURNING `+qualifiedHandover("h"), now, limitArg(limit))
		var err error
		out, err = pgx.CollectRows(rows, scanHandover)
		return err
	})
	return out, err
}

// qualifiedHandover returns handoverList qualified with alias.
func qualifiedHandover(alias string) string {
	return qualifiedList(handoverList, alias)
}

// ClaimSelfService counts a self-service request of user at now, by one
// upsert whose WHERE is the compare-and-set.
func (s *Store) ClaimSelfService(ctx context.Context, user string, now time.Time, window time.Duration) (bool, time.Time, error) {
	var ok bool
	var next time.Time
	err := s.call(ctx, "claim self-service", func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `INSERT INTO self_service (user_id, last_at) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET last_at = $2 WHERE self_service.last_at <= $3`, user, now, now.Add(-window))
		if err != nil {
			return err
		}
		if ok = tag.RowsAffected() == 1; ok {
			return nil
		}
		var last time.Time
		err = s.pool.QueryRow(ctx, `SELECT last_at FROM self_service WHERE user_id = $1`, user).Scan(&last)
		next = last.Add(window)
		return err
	})
	return ok, next, err
}

// pruneHandovers deletes the hand-overs no click can use any more (ended,
// or stuck in a click, and past their expiry) whose expiry is older than
// cutoff, and the self-service counts older than cutoff; it says how many
// hand-overs.
func (s *Store) pruneHandovers(ctx context.Context, cutoff time.Time) (int64, error) {
	n, err := s.pruneBatches(ctx, "prune hand-overs", `DELETE FROM handovers WHERE id IN (SELECT id FROM handovers
		WHERE state <> 'offered' AND expires < $1 LIMIT $2)`, cutoff)
	if err != nil {
		return n, err
	}
	_, err = s.pruneBatches(ctx, "prune self-service", `DELETE FROM self_service WHERE user_id IN (SELECT user_id FROM self_service
		WHERE last_at < $1 LIMIT $2)`, cutoff)
	return n, err
}
