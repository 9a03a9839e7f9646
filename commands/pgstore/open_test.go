package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// query runs sql on dsn as the superuser and returns the rows' first
// column as text.
func query(t *testing.T, dsn, sql string) []string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	rows, _ := conn.Query(t.Context(), sql)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func TestOpenConcurrentMigrations(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := pgstore.Open(t.Context(), dsn, zap.NewNop(), pgstore.WithRetry(5*time.Second))
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d of %d at once: %v", i+1, n, err)
		}
	}
	if got := query(t, dsn, "SELECT version || ' ' || name FROM schema_migrations ORDER BY version"); !cmp.Equal(got, allMigrations) {
		t.Errorf("schema_migrations = %q, want one row each of %q", got, allMigrations)
	}
	got := query(t, dsn, `SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name IN ('requests', 'audit') ORDER BY table_name, ordinal_position`)
	want := []string{
		"audit.id bigint", "audit.time timestamp with time zone", "audit.request_id text", "audit.event text",
		"audit.actor text", "audit.deciders ARRAY", "audit.action text", "audit.domain text", "audit.login text",
		"audit.reason text", "audit.outcome text", "audit.status text", "audit.stage text", "audit.uid text",
		"audit.code text", "audit.provider text", "audit.handed_to text", "audit.to_address text", "audit.source text",
		"requests.id text", "requests.requester text", "requests.channel text", "requests.action text",
		"requests.domain text", "requests.login text", "requests.reason text",
		"requests.created timestamp with time zone", "requests.expires timestamp with time zone",
		"requests.state text", "requests.approvers ARRAY", "requests.decided_by text",
		"requests.decided_at timestamp with time zone", "requests.outcome text", "requests.message_channel text",
		"requests.message_ts text", "requests.reminded boolean", "requests.updated timestamp with time zone",
		"requests.handed_to text", "requests.to_address text",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	indexes := query(t, dsn, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname")
	for _, ix := range []string{"audit_time", "requests_pending_created", "requests_pending_expires",
		"requests_running_decided", "requests_final_decided", "handovers_offered_expires", "handovers_open_mailbox"} {
		if !strings.Contains(strings.Join(indexes, " "), ix) {
			t.Errorf("index %s missing; have %v", ix, indexes)
		}
	}
	// A later start finds nothing to do.
	open(t, dsn)
	if got := query(t, dsn, "SELECT count(*)::text FROM schema_migrations"); !cmp.Equal(got, []string{fmt.Sprint(len(allMigrations))}) {
		t.Errorf("after another Open: %v migrations, want %d", got, len(allMigrations))
	}
}

// allMigrations are the rows of schema_migrations after Open.
var allMigrations = []string{"1 001_init.sql", "2 002_history_indexes.sql", "3 003_audit_provider.sql", "4 004_handovers.sql", "5 005_second_address.sql",
	"6 006_audit_source.sql", "7 007_imports.sql", "8 008_handover_voids_text_ids.sql"}

// secretPassword stands for the database password in the URLs below.
const secretPassword = "S3cret-Pa55/w0rd"

// withPassword returns dsn with the user and password set.
func withPassword(t *testing.T, dsn, user, password string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

// checkNoPassword fails t if err's text, in any form, holds the password.
func checkNoPassword(t *testing.T, err error) {
	t.Helper()
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		for _, form := range []string{secretPassword, url.QueryEscape(secretPassword), url.PathEscape(secretPassword)} {
			if strings.Contains(text, form) {
				t.Errorf("error holds the password: %s", text)
			}
		}
	}
}

func TestOpenUnreachable(t *testing.T) {
	proxy := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	proxy.Cut()
	core, logs := observer.New(zap.DebugLevel)
	start := time.Now()
	dsn := withPassword(t, proxy.DSN(), "mailbot", secretPassword)
	_, err := pgstore.Open(t.Context(), dsn, zap.New(core), pgstore.WithRetry(time.Second))
	if err == nil {
		t.Fatal("Open of an unreachable database succeeded")
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Open gave up after %v, want about the retry time (1 s)", elapsed)
	}
	if !errors.Is(err, commands.ErrStoreUnavailable) {
		t.Errorf("error %v does not wrap ErrStoreUnavailable", err)
	}
	checkNoPassword(t, err)
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	if logs.Len() == 0 {
		t.Error("no log line for the retries")
	}
	for _, e := range logs.All() {
		if line := fmt.Sprint(e.Message, e.ContextMap()); strings.Contains(line, secretPassword) {
			t.Errorf("log line holds the password: %s", line)
		}
	}
}

func TestOpenWaitsForTheDatabase(t *testing.T) {
	proxy := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	proxy.Cut()
	core, logs := observer.New(zap.WarnLevel)
	done := make(chan error, 1)
	go func() {
		s, err := pgstore.Open(t.Context(), proxy.DSN(), zap.New(core), pgstore.WithRetry(30*time.Second))
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	testkit.Eventually(t, 10*time.Second, "a logged retry",
		func() bool { return logs.FilterMessage("database unreachable, retrying").Len() > 0 })
	proxy.Restore()
	if err := <-done; err != nil {
		t.Fatalf("Open after the database came back: %v", err)
	}
}

func TestOpenRefusedFailsAtOnce(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	// Roles belong to the whole cluster, which outlives one run of the
	// test (go test -count): the role is named after this test's database.
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	role := "mailbot_app_" + strings.TrimPrefix(u.Path, "/")
	if err := pgtest.Shared(t).Exec(t.Context(), "CREATE ROLE "+role+" LOGIN PASSWORD 'the-right-one'"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = pgstore.Open(t.Context(), withPassword(t, dsn, role, secretPassword), zap.NewNop(),
		pgstore.WithRetry(20*time.Second))
	if err == nil {
		t.Fatal("Open with a wrong password succeeded")
	}
	if errors.Is(err, commands.ErrStoreUnavailable) || time.Since(start) > 5*time.Second {
		t.Errorf("a wrong password: %v after %v; want a refusal at once, not an outage", err, time.Since(start))
	}
	checkNoPassword(t, err)

	// With the right password and the rights on the schema, a role that
	// is not a superuser migrates and works.
	query(t, dsn, "GRANT CREATE ON SCHEMA public TO "+role)
	s := open(t, withPassword(t, dsn, role, "the-right-one"))
	if err := s.Submit(t.Context(), commands.Pending{ID: "r1", Created: time.Now(), Expires: time.Now()}); err != nil {
		t.Errorf("Submit as %s: %v", role, err)
	}
}

func TestOpenBadURL(t *testing.T) {
	for _, dsn := range []string{
		"postgres://mailbot:" + secretPassword + "@127.0.0.1:notaport/mailbot",
		"postgres://mailbot:" + url.QueryEscape(secretPassword) + "@[::1/mailbot",
		"host=127.0.0.1 password=" + secretPassword + " port=notaport",
		"host=127.0.0.1 password='" + secretPassword + "' sslmode=nonsense",
	} {
		_, err := pgstore.Open(t.Context(), dsn, zap.NewNop(), pgstore.WithRetry(time.Second))
		if err == nil {
			t.Errorf("Open(a bad URL) succeeded")
			continue
		}
		checkNoPassword(t, err)
	}
}
