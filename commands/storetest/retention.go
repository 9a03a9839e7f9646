package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// RunRetention runs the retention cases on a store that deletes its old
// history when asked ([commands.Pruner]): open returns a new, empty one
// that keeps audit entries for auditRetention.
func RunRetention(t *testing.T, open func(t *testing.T) commands.Store, auditRetention time.Duration) {
	t.Run("PruneRequests", func(t *testing.T) { testPruneRequests(t, pruner(t, open(t))) })
	t.Run("PruneAudit", func(t *testing.T) { testPruneAudit(t, pruner(t, open(t)), auditRetention) })
	t.Run("PruneHourly", func(t *testing.T) { testPruneHourly(t, pruner(t, open(t)), auditRetention) })
	t.Run("PruneReplicas", func(t *testing.T) { testPruneReplicas(t, open(t), auditRetention) })
}

// prunable is a store that prunes.
type prunable interface {
	commands.Store
	commands.Pruner
}

func pruner(t *testing.T, s commands.Store) prunable {
	t.Helper()
	p, ok := s.(prunable)
	if !ok {
		t.Fatalf("%T does not implement commands.Pruner", s)
	}
	return p
}

// prune calls Prune at now and fails the test unless it deleted want
// requests and entries.
func prune(t *testing.T, s commands.Pruner, now time.Time, wantRequests, wantEntries int64) {
	t.Helper()
	r, e, err := s.Prune(t.Context(), now)
	if err != nil || r != wantRequests || e != wantEntries {
		t.Fatalf("Prune = %d requests, %d entries, %v; want %d, %d", r, e, err, wantRequests, wantEntries)
	}
}

// aged returns a request created at created that expires at expires.
func aged(id string, created, expires time.Time) commands.Pending {
	p := request(id, created)
	p.Expires = expires
	return p
}

func testPruneRequests(t *testing.T, s prunable) {
	now := clock()
	day := 24 * time.Hour
	ctx := t.Context()
	end := func(p commands.Pending, at time.Time) {
		if _, ended, err := s.End(ctx, p, commands.StateDenied, "U0ADA", at); err != nil || !ended {
			t.Fatalf("End(%s) = %v, %v", p.ID, ended, err)
		}
	}
	old := aged("old", now.Add(-10*day), now.Add(-9*day))
	end(old, now.Add(-10*day))
	// Decided long ago, but its expiry is within the week: a stale click
	// on it must still find it closed.
	lateExpiry := aged("late-expiry", now.Add(-10*day), now.Add(-day))
	end(lateExpiry, now.Add(-10*day))
	recent := aged("recent", now.Add(-2*day), now.Add(-day))
	end(recent, now.Add(-2*day))
	oldPending := aged("old-pending", now.Add(-30*day), now.Add(time.Hour))
	submit(t, s, oldPending)
	oldRunning := aged("old-running", now.Add(-10*day), now.Add(-9*day))
	approve(t, s, oldRunning, "U0ADA", 1, now.Add(-10*day), commands.ApproveRun)

	prune(t, s, now, 1, 0)
	if _, ok, err := s.Get(ctx, old.ID); ok || err != nil {
		t.Errorf("Get(%s) after Prune = ok %v, %v; want it deleted", old.ID, ok, err)
	}
	for _, id := range []string{lateExpiry.ID, recent.ID, oldPending.ID, oldRunning.ID} {
		get(t, s, id)
	}
	if _, res, err := s.Approve(ctx, lateExpiry, "U0BOB", 1, now); err != nil || res != commands.ApproveClosed {
		t.Errorf("a stale Approve of a decided request kept for its expiry = %s, %v; want Closed", resultName(res), err)
	}
}

// record adds n entries at the time, or fails the test.
func record(t *testing.T, s commands.Store, n int, at time.Time) {
	t.Helper()
	for i := range n {
		e := entry(commands.EventApproval, at)
		e.RequestID = fmt.Sprint("r", i)
		if err := s.AppendAudit(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
}

func testPruneAudit(t *testing.T, s prunable, retention time.Duration) {
	now := clock()
	// More than one batch of old entries, and some within the retention.
	record(t, s, 1100, now.Add(-retention-time.Hour))
	record(t, s, 3, now.Add(-retention+time.Hour))
	prune(t, s, now, 0, 1100)
	if got := audit(t, s, time.Time{}, 0, false); len(got) != 3 {
		t.Errorf("after Prune the trail holds %d entries, want the 3 within the retention", len(got))
	}
}

func testPruneHourly(t *testing.T, s prunable, retention time.Duration) {
	now := clock()
	prune(t, s, now, 0, 0)
	record(t, s, 2, now.Add(-retention-time.Minute))
	prune(t, s, now.Add(30*time.Minute), 0, 0) // within the hour: nothing done
	prune(t, s, now.Add(61*time.Minute), 0, 2)
}

func testPruneReplicas(t *testing.T, s commands.Store, retention time.Duration) {
	now := clock()
	record(t, s, 2500, now.Add(-retention-time.Hour))
	stores := replicas(t, s, 3)
	var deleted [3]int64
	errs := make([]error, 3)
	together(3, func(i int) {
		_, deleted[i], errs[i] = pruner(t, stores[i]).Prune(t.Context(), now)
	})
	total := deleted[0] + deleted[1] + deleted[2]
	for _, err := range errs {
		if err != nil {
			t.Errorf("Prune on a replica: %v", err)
		}
	}
	left := audit(t, s, time.Time{}, 0, false)
	if total != 2500 && len(left) == 0 {
		t.Errorf("the replicas say they deleted %v entries in all, want 2500", deleted)
	}
	// A replica that found the lock taken left its share; the next
	// pruning, an hour later, does it.
	if len(left) > 0 {
		r, e, err := pruner(t, stores[0]).Prune(t.Context(), now.Add(2*time.Hour))
		if err != nil || r != 0 || total+e != 2500 {
			t.Errorf("a later Prune deleted %d entries after %d, %v; want 2500 in all", e, total, err)
		}
	}
}
