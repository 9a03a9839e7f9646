package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// statement is one statement a store sent, with its arguments.
type statement struct {
	sql  string
	args []any
}

// recorder is a pgx tracer that keeps the statements sent, batches too.
type recorder struct {
	mu   sync.Mutex
	sent []statement
}

func (r *recorder) add(sql string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, statement{sql, args})
}

// take returns the statements sent since the last take.
func (r *recorder) take() []statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

func (r *recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL, d.Args)
	return ctx
}
func (r *recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *recorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}
func (r *recorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.add(d.SQL, d.Args)
}
func (r *recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// year is the history of a year or more of use that the issue measured.
var year = pgtest.History{Decided: 100_000, Pending: 300, Audit: 1_000_000}

// TestPlansOnAYearOfHistory fills the tables with a year of history and
// fails when a query of the sweep, of the Home tab or of a decision, as
// the store sends it, would read requests or audit sequentially
// (EXPLAIN (FORMAT JSON) of each, with its arguments).
func TestPlansOnAYearOfHistory(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	var rec recorder
	s := open(t, dsn, pgstore.WithTracer(&rec))
	now := time.Now()
	if err := pgtest.FillHistory(t.Context(), dsn, year, now); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	for name, calls := range callsOf(t, s, now) {
		rec.take()
		calls()
		sent := rec.take()
		if len(sent) == 0 {
			t.Errorf("%s sent no statement", name)
		}
		for _, st := range sent {
			if seq := seqScans(t, conn, st); len(seq) > 0 {
				t.Errorf("%s reads %s sequentially:\n%s", name, strings.Join(seq, ", "), st.sql)
			}
		}
	}
}

// callsOf returns the store's calls that must stay on an index, by what
// makes them: one sweep with nothing due, the Home tab, the decisions.
func callsOf(t *testing.T, s *pgstore.Store, now time.Time) map[string]func() {
	ctx := t.Context()
	p := pending("plans-new", now)
	open := commands.Pending{ID: "open-7", Requester: "U0REQ7", Op: p.Op, Created: now.Add(-7 * time.Minute), Expires: now.Add(24 * time.Hour)}
	check := func(err error) {
		if err != nil {
			t.Error(err)
		}
	}
	checkAny := func(_ any, err error) { check(err) }
	return map[string]func(){
		"the sweep": func() {
			checkAny(s.ClaimExpired(ctx, now, 50))
			checkAny(s.ClaimReminders(ctx, now.Add(-time.Hour), now, 50))
			checkAny(s.ClaimStale(ctx, now.Add(-commands.StaleRun), "stale", 50))
			// The retention when nothing is due: what every pruning after
			// the first finds.
			_, _, err := s.Prune(ctx, now.Add(-365*24*time.Hour))
			check(err)
		},
		"the Home tab": func() {
			checkAny(s.Pending(ctx, "", commands.HomeLimit))
			checkAny(s.Pending(ctx, "U0REQ7", commands.HomeLimit))
			checkAny(s.Audit(ctx, time.Time{}, commands.HomeLimit, true))
		},
		"a decision": func() {
			check(s.Submit(ctx, p))
			check(s.Attach(ctx, p.ID, commands.MessageRef{Channel: "C0OPS", TS: "1.2"}))
			_, _, err := s.Get(ctx, p.ID)
			check(err)
			_, _, err = s.Approve(ctx, p, "U0ADA", 1, now)
			check(err)
			id, err := s.Begin(ctx, commands.AuditEntry{Event: commands.EventRun, RequestID: p.ID})
			check(err)
			check(s.Complete(ctx, id, commands.AuditEntry{Outcome: commands.OutcomeOK}))
			check(s.Finish(ctx, p.ID, commands.StateDone, "done", now))
			_, _, err = s.End(ctx, open, commands.StateDenied, "U0ADA", now)
			check(err)
			check(s.AppendAudit(ctx, commands.AuditEntry{Event: commands.EventDenied, RequestID: open.ID}))
		},
	}
}

// seqScans returns the tables of mailbot that the plan of st reads
// sequentially.
func seqScans(t *testing.T, conn *pgx.Conn, st statement) []string {
	t.Helper()
	if !strings.Contains(st.sql, "requests") && !strings.Contains(st.sql, "audit") {
		return nil
	}
	var plan []struct{ Plan node }
	var raw string
	if err := conn.QueryRow(t.Context(), "EXPLAIN (FORMAT JSON) "+st.sql, st.args...).Scan(&raw); err != nil {
		t.Fatalf("EXPLAIN %s: %v", st.sql, err)
	}
	if err := json.Unmarshal([]byte(raw), &plan); err != nil || len(plan) != 1 {
		t.Fatalf("EXPLAIN %s: %v: %s", st.sql, err, raw)
	}
	return plan[0].Plan.seqScans()
}

// node is one node of a plan in EXPLAIN's JSON.
type node struct {
	Type     string `json:"Node Type"`
	Relation string `json:"Relation Name"`
	Plans    []node `json:"Plans"`
}

// seqScans lists the relations of requests and audit read by sequential
// scans in the tree under n.
func (n node) seqScans() []string {
	var out []string
	if n.Type == "Seq Scan" && (n.Relation == "requests" || n.Relation == "audit") {
		out = append(out, fmt.Sprintf("%s (%s)", n.Relation, n.Type))
	}
	for _, c := range n.Plans {
		out = append(out, c.seqScans()...)
	}
	return out
}
