package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
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
	UID       string    `json:"uid"`
}

// checkEveryEntryNamed checks that every line of `mailbot audit --json`
// on dsn names provider and source, and returns the lines' events.
func checkEveryEntryNamed(t *testing.T, w *world, dsn, provider, source string) []string {
	t.Helper()
	var events []string
	for line := range strings.SplitSeq(strings.TrimSuffix(auditCLI(t, w, dsn, "--json"), "\n"), "\n") {
		var e struct {
			Event, Provider, Source string
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("mailbot audit --json: line %q: %v", line, err)
		}
		if e.Provider != provider || e.Source != source {
			t.Errorf("an audit entry does not name provider %s and source %s: %s", provider, source, line)
		}
		events = append(events, e.Event)
	}
	return events
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
			len(g.Deciders) != x.deciders || g.Outcome != x.outcome || (g.UID != "") != x.uid {
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

// testE2EAuditReadOnly runs `mailbot audit` as an auditor: a role that may
// SELECT from the two tables and nothing else. It prints a trail of more
// than two pages whose entries share times across the pages' edges, each
// entry once and in order; its stderr holds no log line. On a database
// without mailbot's schema, and on a database that is not there, it
// exits 1 with one line and no retries.
func testE2EAuditReadOnly(t *testing.T, bin string, cluster *pgtest.Cluster) {
	dsn := cluster.NewDatabase(t)
	st, err := pgstore.Open(t.Context(), dsn, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const entries = 2*pgstore.AuditPageSize + 500
	now := time.Now().Add(-time.Minute)
	for i := range entries {
		e := commands.AuditEntry{Time: now.Add(time.Duration(i/700) * time.Second), Event: commands.EventRun,
			Actor: "U0AUDITED", Action: commands.ActionAddMailbox, Domain: "example.com", Login: fmt.Sprint("user", i)}
		if err := st.AppendAudit(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	const role, pass = "mailbot_auditor", "SECRETDBPASS-e2e-auditor"
	u, _ := url.Parse(dsn)
	db := strings.TrimPrefix(u.Path, "/")
	if err := cluster.Exec(t.Context(), "CREATE ROLE "+role+" LOGIN PASSWORD '"+pass+"'"); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(t.Context(), "GRANT SELECT ON audit, requests TO "+role)
	_ = conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	auditor := func(database string) string {
		return "postgres://" + role + ":" + pass + "@" + cluster.Addr() + "/" + database + "?sslmode=disable"
	}
	w := newWorld(t, bin)
	w.extra = append(w.extra, pass)

	p := w.start("audit as the auditor", map[string]string{"MAILBOT_DATABASE_URL": auditor(db)}, "audit", "--json", "--since", "1h")
	if code := p.wait(e2eWait); code != 0 {
		t.Fatalf("mailbot audit as a SELECT-only role: exit status %d; stderr:\n%s", code, p.stderr.String())
	}
	if p.stderr.String() != "" {
		t.Errorf("mailbot audit wrote to stderr:\n%s", tail(p.stderr.String(), 2000))
	}
	seen := map[string]bool{}
	var last auditJSONLine
	for line := range strings.SplitSeq(strings.TrimSuffix(p.stdout.String(), "\n"), "\n") {
		var e auditJSONLine
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if seen[e.Mailbox] || e.Time.Before(last.Time) {
			t.Errorf("entry %s printed twice or out of order (after %s)", e.Mailbox, last.Mailbox)
		}
		seen[e.Mailbox], last = true, e
	}
	if len(seen) != entries {
		t.Errorf("mailbot audit --json printed %d entries, want %d", len(seen), entries)
	}
	table := auditCLI(t, w, auditor(db))
	if n := strings.Count(table, "\n"); n != entries+1 {
		t.Errorf("mailbot audit printed %d lines, want a header and %d entries", n, entries)
	}

	empty := cluster.NewDatabase(t)
	u, _ = url.Parse(empty)
	for name, dsn := range map[string]string{
		"no schema":    auditor(strings.TrimPrefix(u.Path, "/")),
		"no such host": "postgres://" + role + ":" + pass + "@" + freeAddr(t) + "/" + db + "?sslmode=disable",
	} {
		p := w.start("audit, "+name, map[string]string{"MAILBOT_DATABASE_URL": dsn}, "audit")
		if code := p.wait(e2eWait); code != 1 {
			t.Errorf("mailbot audit, %s: exit status %d, want 1", name, code)
		}
		if lines := strings.Split(strings.TrimSuffix(p.stderr.String(), "\n"), "\n"); len(lines) != 1 ||
			!strings.HasPrefix(lines[0], "mailbot: ") {
			t.Errorf("mailbot audit, %s: stderr %q, want one line", name, p.stderr.String())
		}
		t.Logf("mailbot audit, %s: %s", name, strings.TrimSpace(p.stderr.String()))
	}
}
