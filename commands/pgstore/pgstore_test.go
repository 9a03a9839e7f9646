package pgstore_test

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/commands/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// open opens a Store on dsn for t, closed when t ends.
func open(t testing.TB, dsn string, opts ...pgstore.Option) *pgstore.Store {
	t.Helper()
	opts = append([]pgstore.Option{pgstore.WithRetry(5 * time.Second)}, opts...)
	s, err := pgstore.Open(t.Context(), dsn, zap.NewNop(), opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// replicated is a Store that opens replicas on its database, for the
// suite's concurrency tests.
type replicated struct {
	*pgstore.Store
	dsn string
}

// Replica opens another Store on the same database: another replica.
func (r replicated) Replica(t *testing.T) commands.Store { return open(t, r.dsn) }

// TestConformance runs the suite, each test on a database of its own,
// and then scans every database for secrets (secrets_test.go). The
// cluster is asked for here, on the parent: without PostgreSQL it skips
// (or fails) this test, where a subtest could not.
func TestConformance(t *testing.T) {
	cluster := pgtest.Shared(t)
	var mu sync.Mutex
	var dsns []string
	storetest.Run(t, func(st *testing.T) commands.Store {
		dsn, drop, err := cluster.CreateDatabase(st.Context())
		if err != nil {
			st.Fatalf("pgtest: %v", err)
		}
		t.Cleanup(func() { _ = drop() }) // when TestConformance ends, after the scan
		mu.Lock()
		dsns = append(dsns, dsn)
		mu.Unlock()
		return replicated{open(st, dsn), dsn}
	})
	scanForSecrets(t, newSecrets(), dsns...)
}

func TestDurable(t *testing.T) {
	if !open(t, pgtest.NewDatabase(t)).Durable() {
		t.Error("Durable() = false, want true")
	}
}

// TestRetention runs the suite's retention cases, each on a database of
// its own, with the default audit retention.
func TestRetention(t *testing.T) {
	storetest.RunRetention(t, func(st *testing.T) commands.Store {
		dsn := pgtest.NewDatabase(st)
		return replicated{open(st, dsn), dsn}
	}, pgstore.DefaultAuditRetention)
}

// TestRetentionForEver checks that an audit retention of 0 keeps every
// entry, however old, while decided requests still go.
func TestRetentionForEver(t *testing.T) {
	s := open(t, pgtest.NewDatabase(t), pgstore.WithAuditRetention(0))
	now := time.Now()
	old := commands.AuditEntry{Time: now.Add(-10 * 365 * 24 * time.Hour), Event: commands.EventDenied}
	if err := s.AppendAudit(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	if _, entries, err := s.Prune(t.Context(), now); err != nil || entries != 0 {
		t.Errorf("Prune with retention 0 = %d entries, %v; want none deleted", entries, err)
	}
	if got, err := s.Audit(t.Context(), time.Time{}, 0, false); err != nil || len(got) != 1 {
		t.Errorf("the trail after Prune: %d entries, %v; want the one", len(got), err)
	}
}
