package pgstore_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// TestMigrationKeepsProviderIDs starts from the schema of the release
// before provider IDs became text, with audit entries already written,
// and checks that the migration keeps each entry and its ID's digits.
func TestMigrationKeepsProviderIDs(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(t.Context()) }()
	files, err := filepath.Glob("migrations/00[1-7]_*.sql")
	if err != nil || len(files) != 7 {
		t.Fatalf("migrations 1-7: %v %v", files, err)
	}
	if _, err := conn.Exec(t.Context(), `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		applied timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		sql, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(t.Context(), string(sql)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := conn.Exec(t.Context(), "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", i+1, filepath.Base(f)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(t.Context(), `INSERT INTO audit (time, event, actor, action, domain, login, outcome, uid) VALUES
		(now(), 'run', 'U0ADA', 'add_mailbox', 'example.com', 'ada', 'ok', 1130000012345678),
		(now(), 'run', 'U0ADA', 'block', 'example.com', 'ada', 'ok', 0)`); err != nil {
		t.Fatal(err)
	}
	open(t, dsn) // migrates
	got := query(t, dsn, "SELECT action || ' [' || uid || ']' FROM audit ORDER BY id")
	if want := []string{"add_mailbox [1130000012345678]", "block []"}; !cmp.Equal(got, want) {
		t.Errorf("audit after the migration = %q, want %q", got, want)
	}
	if got := query(t, dsn, "SELECT data_type FROM information_schema.columns WHERE table_name = 'audit' AND column_name = 'uid'"); strings.Join(got, "") != "text" {
		t.Errorf("audit.uid is %v, want text", got)
	}
}
