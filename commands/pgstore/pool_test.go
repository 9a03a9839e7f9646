package pgstore_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// connections returns how many connections of the application name the
// server has.
func connections(t *testing.T, dsn, app string) int {
	got := query(t, dsn, "SELECT count(*)::text FROM pg_stat_activity WHERE application_name = '"+app+"'")
	n, _ := strconv.Atoi(got[0])
	return n
}

// burst approves n requests at once on s and returns the most
// connections of app seen on the server meanwhile.
func burst(t *testing.T, s *pgstore.Store, dsn, app string, n int) int {
	var watch sync.WaitGroup
	stop := make(chan struct{})
	var most int
	watch.Go(func() { // watches the connections while the calls run
		for {
			select {
			case <-stop:
				return
			default:
			}
			most = max(most, connections(t, dsn, app))
		}
	})
	var calls sync.WaitGroup
	now := time.Now()
	for i := range n {
		calls.Go(func() {
			if _, _, err := s.Approve(t.Context(), pending(fmt.Sprint(app, i), now), "U0ADA", 1, now); err != nil {
				t.Error(err)
			}
		})
	}
	calls.Wait()
	close(stop)
	watch.Wait()
	if got, _ := s.Pending(t.Context(), "", 0); len(got) != 0 {
		t.Errorf("%d requests still pending, want all %d running", len(got), n)
	}
	return most
}

func TestPoolSizeFromDSN(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s := open(t, dsn+"&pool_max_conns=3&application_name=pooltest")
	if most := burst(t, s, dsn, "pooltest", 32); most < 1 || most > 3 {
		t.Errorf("at most %d connections seen, want 1 to 3 (pool_max_conns=3)", most)
	}
	if _, err := pgstore.Open(t.Context(), dsn+"&pool_max_conns=none", zap.NewNop()); err == nil {
		t.Error("Open with pool_max_conns=none succeeded")
	}
}

func TestPoolDefaultSize(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s := open(t, dsn+"&application_name=pooldefault")
	if most := burst(t, s, dsn, "pooldefault", 32); most < 1 || most > pgstore.DefaultMaxConns {
		t.Errorf("at most %d connections seen, want 1 to %d (the default pool)", most, pgstore.DefaultMaxConns)
	}
}

// TestPoolClosesIdle checks that the connections of a burst are closed
// once idle: after MaxConnIdleTime (set short here in the DSN, as an
// operator would) the pool holds none.
func TestPoolClosesIdle(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s := open(t, dsn+"&application_name=poolidle&pool_max_conn_idle_time=300ms&pool_health_check_period=100ms")
	if most := burst(t, s, dsn, "poolidle", 16); most < 2 {
		t.Fatalf("the burst used %d connections, want several", most)
	}
	testkit.Eventually(t, 15*time.Second, "the burst's idle connections to close",
		func() bool { return connections(t, dsn, "poolidle") == 0 })
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping after the idle connections closed: %v", err)
	}
}

func TestClosed(t *testing.T) {
	s, err := pgstore.Open(t.Context(), pgtest.NewDatabase(t), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close() // twice is harmless
	done := make(chan error, 1)
	go func() { done <- s.Submit(t.Context(), pending("late", time.Now())) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Submit after Close succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Submit after Close did not return within 10 s")
	}
}

// TestTextRoundTrip sends text through the store (an array of deciders
// and plain columns) and reads it back: what PostgreSQL can hold comes
// back unchanged; invalid UTF-8 and NUL bytes, which it cannot, are
// refused with an error that is not an outage.
func TestTextRoundTrip(t *testing.T) {
	s := open(t, pgtest.NewDatabase(t))
	for i, tc := range [][2]string{
		{"U0ADA", "U0BOB"}, {`a"b`, `c\d`}, {"{x,y}", "NULL"}, {"", " "}, {"Åda ✓", "😀,\""},
		{`\"`, `"\`}, {"new\nline\ttab", "}{"}, {"bad\xff", "ok"}, {"nul\x00", "ok"},
	} {
		a, b := tc[0], tc[1]
		e := commands.AuditEntry{Time: time.Now(), RequestID: fmt.Sprint("text-", i), Event: commands.EventApproval,
			Deciders: []string{a, b}, Reason: a, Login: b}
		err := s.AppendAudit(t.Context(), e)
		storable := func(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }
		if !storable(a) || !storable(b) {
			if err == nil || errors.Is(err, commands.ErrStoreUnavailable) {
				t.Errorf("AppendAudit(%q, %q) = %v, want a refusal", a, b, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("AppendAudit(%q, %q): %v", a, b, err)
		}
		got, err := s.Audit(t.Context(), e.Time, 0, false)
		if err != nil || len(got) != 1 {
			t.Fatalf("Audit = %d entries, %v; want the one just recorded", len(got), err)
		}
		if g := got[0]; len(g.Deciders) != 2 || g.Deciders[0] != a || g.Deciders[1] != b || g.Reason != a || g.Login != b {
			t.Errorf("sent %q, %q; got deciders %q, reason %q, login %q", a, b, g.Deciders, g.Reason, g.Login)
		}
	}
}
