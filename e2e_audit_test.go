package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/bot/slackfake"
)

// auditWant is one expected entry of the audit trail.
type auditWant struct {
	event, action, target, actor string
	deciders                     int    // how many deciders it names
	outcome                      string // "" for a decision
	uid                          bool   // it holds the new mailbox's uid
}

// auditJSONLine is one line of `mailbot audit --json`, as an operator's
// script reads it.
type auditJSONLine struct {
	Time      time.Time `json:"time"`
	RequestID string    `json:"request_id"`
	Event     string    `json:"event"`
	Actor     string    `json:"actor"`
	Deciders  []string  `json:"deciders"`
	Action    string    `json:"action"`
	Domain    string    `json:"domain"`
	Mailbox   string    `json:"mailbox"`
	Outcome   string    `json:"outcome"`
	UID       int64     `json:"uid"`
}

// auditCLI runs `mailbot audit args...` on dsn, expects exit 0 and
// returns its stdout.
func auditCLI(t *testing.T, w *world, dsn string, args ...string) string {
	t.Helper()
	p := w.start("audit "+strings.Join(args, " "), map[string]string{"MAILBOT_DATABASE_URL": dsn}, append([]string{"audit"}, args...)...)
	if code := p.wait(e2eWait); code != 0 {
		t.Fatalf("mailbot audit %q: exit status %d; stderr:\n%s", args, code, p.stderr.String())
	}
	return p.stdout.String()
}

// checkAuditCLI checks `mailbot audit` (a table) and `mailbot audit
// --json --since 1h` against want, oldest first, and that --since leaves
// older entries out. The world's check scans both outputs for secrets.
func checkAuditCLI(t *testing.T, w *world, dsn string, want []auditWant) {
	t.Helper()
	out := auditCLI(t, w, dsn, "--json", "--since", "1h")
	var got []auditJSONLine
	for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
		var e auditJSONLine
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("mailbot audit --json: line %q: %v", line, err)
		}
		got = append(got, e)
	}
	if len(got) != len(want) {
		t.Errorf("mailbot audit --json printed %d entries, want %d:\n%s", len(got), len(want), out)
	}
	for i := range min(len(got), len(want)) {
		g, x := got[i], want[i]
		target := g.Domain
		if g.Mailbox != "" {
			target = g.Mailbox
		}
		if g.Event != x.event || g.Action != x.action || target != x.target || g.Actor != x.actor ||
			len(g.Deciders) != x.deciders || g.Outcome != x.outcome || (g.UID != 0) != x.uid {
			t.Errorf("audit entry %d: %+v, want %+v", i+1, g, x)
		}
		if i > 0 && g.Time.Before(got[i-1].Time) {
			t.Errorf("audit entry %d is older than the one before: not oldest first", i+1)
		}
	}
	for i := 1; i < min(len(got), len(want)); i++ {
		if want[i].event == "run" && want[i-1].event == "approved" && (got[i].RequestID == "" || got[i].RequestID != got[i-1].RequestID) {
			t.Errorf("the approval and its run carry request IDs %q and %q, want the same", got[i-1].RequestID, got[i].RequestID)
		}
	}

	table := strings.Split(strings.TrimSuffix(auditCLI(t, w, dsn), "\n"), "\n")
	if len(table) != len(want)+1 || !strings.HasPrefix(table[0], "TIME") {
		t.Errorf("mailbot audit printed %d lines, want a header and %d entries:\n%s", len(table), len(want), strings.Join(table, "\n"))
	} else {
		for i, x := range want {
			f := strings.Fields(table[i+1])
			if len(f) < 7 || f[2] != x.event || f[3] != x.actor || f[5] != x.action || f[6] != x.target {
				t.Errorf("audit table line %d: %q, want %s by %s of %s %s", i+1, table[i+1], x.event, x.actor, x.action, x.target)
			}
		}
	}
	if out := auditCLI(t, w, dsn, "--json", "--since", "1ms"); out != "" {
		t.Errorf("mailbot audit --since 1ms printed entries older than that:\n%s", out)
	}
}

// scanDatabase reads every row of every table of dsn as text and checks
// that no secret that went through the sandbox, and no token, is stored.
func scanDatabase(t *testing.T, dsn string, w *world) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	rows, _ := conn.Query(ctx, `SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`)
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pgx.Identifier, error) {
		var schema, table string
		err := r.Scan(&schema, &table)
		return pgx.Identifier{schema, table}, err
	})
	if err != nil || len(tables) == 0 {
		t.Fatalf("the database's tables: %v, %v", tables, err)
	}
	never := []string{w.token, slackfake.BotToken, slackfake.AppToken}
	for _, s := range w.rec.secrets() {
		never = append(never, s.value)
	}
	stored := 0
	for _, tbl := range tables {
		rows, _ := conn.Query(ctx, "SELECT t::text FROM "+tbl.Sanitize()+" t")
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("reading %s: %v", tbl.Sanitize(), err)
		}
		stored += len(texts)
		for _, row := range texts {
			for _, s := range never {
				if strings.Contains(row, s) {
					t.Errorf("table %s stores a secret or a token: %.200s", tbl.Sanitize(), row)
				}
			}
		}
	}
	t.Logf("scanned %d rows in %d tables", stored, len(tables))
}
