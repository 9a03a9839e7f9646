package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/commands"
)

func testFinish(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	for _, to := range []commands.State{commands.StateDone, commands.StateFailed, commands.StateUncertain} {
		p := request("r-"+string(to), now)
		submit(t, s, p)
		want := approve(t, s, p, "U0ADA", 1, now, commands.ApproveRun)
		outcome := "mailbox ada.lovelace@example.com: " + string(to)
		if err := s.Finish(t.Context(), p.ID, to, outcome, now.Add(time.Second)); err != nil {
			t.Fatalf("Finish(%s): %v", to, err)
		}
		want.State, want.RunText = to, outcome
		if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
			t.Fatalf("Get after Finish(%s) (-want +got):\n%s", to, diff)
		}
		// Only a running request changes: a second Finish is a no-op.
		if err := s.Finish(t.Context(), p.ID, commands.StatePending, "again", now.Add(time.Minute)); err != nil {
			t.Fatalf("second Finish: %v", err)
		}
		if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
			t.Errorf("Get after a second Finish (-want +got):\n%s", diff)
		}
		approve(t, s, p, "U0BOB", 1, now.Add(time.Minute), commands.ApproveClosed)
	}

	p := request("still-pending", now)
	submit(t, s, p)
	if err := s.Finish(t.Context(), p.ID, commands.StateDone, "ran?", now); err != nil {
		t.Fatalf("Finish of a pending request: %v", err)
	}
	if diff := cmp.Diff(commands.Record{Pending: p, State: commands.StatePending}, get(t, s, p.ID), opts); diff != "" {
		t.Errorf("Finish changed a pending request (-want +got):\n%s", diff)
	}
	if err := s.Finish(t.Context(), "nosuch", commands.StateDone, "ran?", now); err != nil {
		t.Errorf("Finish of an unknown request = %v, want a no-op", err)
	}
	q := request("bad-target", now)
	approve(t, s, q, "U0ADA", 1, now, commands.ApproveRun)
	if err := s.Finish(t.Context(), q.ID, commands.StateDenied, "", now); err == nil {
		t.Error("Finish to denied succeeded, want an error")
	}
	if got := get(t, s, q.ID).State; got != commands.StateRunning {
		t.Errorf("state after Finish to denied = %s, want running", got)
	}
}

func testFinishBackToPending(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	p := request("r1", now)
	submit(t, s, p)
	ref := commands.MessageRef{Channel: "C0OPS", TS: "1712345678.000100"}
	if err := s.Attach(t.Context(), p.ID, ref); err != nil {
		t.Fatal(err)
	}
	approve(t, s, p, "U0ADA", 2, now, commands.ApproveCounted)
	approve(t, s, p, "U0BOB", 2, now.Add(time.Second), commands.ApproveRun)
	const outcome = "the PDD API answered unknown three times; nothing was done"
	if err := s.Finish(t.Context(), p.ID, commands.StatePending, outcome, now.Add(2*time.Second)); err != nil {
		t.Fatalf("Finish back to pending: %v", err)
	}
	want := commands.Record{Pending: p, State: commands.StatePending, RunText: outcome, Message: ref}
	if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
		t.Fatalf("Get after Finish back to pending (-want +got):\n%s", diff)
	}
	if got, err := s.Pending(t.Context(), "", 0); err != nil || len(got) != 1 || got[0].ID != p.ID {
		t.Errorf("Pending after Finish back to pending = %d records, %v; want r1", len(got), err)
	}
	// The approvals were cleared: the same admins decide again.
	approve(t, s, p, "U0ADA", 2, now.Add(time.Minute), commands.ApproveCounted)
	rec := approve(t, s, p, "U0BOB", 2, now.Add(2*time.Minute), commands.ApproveRun)
	if rec.DecidedBy != "U0BOB" || !rec.DecidedAt.Equal(now.Add(2*time.Minute)) {
		t.Errorf("second run decided by %q at %v, want U0BOB at %v", rec.DecidedBy, rec.DecidedAt, now.Add(2*time.Minute))
	}
	if err := s.Finish(t.Context(), p.ID, commands.StateUncertain, "may exist", now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	approve(t, s, p, "U0CYD", 2, now.Add(4*time.Minute), commands.ApproveClosed)
}

// tally counts the results of concurrent Approve calls.
type tally struct {
	mu      sync.Mutex
	results map[commands.ApproveResult]int
	errs    []error
}

func (c *tally) add(res commands.ApproveResult, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.errs = append(c.errs, err)
		return
	}
	if c.results == nil {
		c.results = make(map[commands.ApproveResult]int)
	}
	c.results[res]++
}

func (c *tally) check(t *testing.T, what string, want map[commands.ApproveResult]int) {
	t.Helper()
	if len(c.errs) > 0 {
		t.Fatalf("%s: %d errors, the first: %v", what, len(c.errs), c.errs[0])
	}
	got := make(map[string]int)
	for r, n := range c.results {
		got[resultName(r)] = n
	}
	w := make(map[string]int)
	for r, n := range want {
		w[resultName(r)] = n
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("%s: results (-want +got):\n%s", what, diff)
	}
}

func testConcurrentApprove(t *testing.T, open func(t *testing.T) commands.Store) {
	stores := replicas(t, open(t), 2)
	now := clock()
	for round := range 3 {
		p := request(fmt.Sprintf("r%d", round), now)
		submit(t, stores[0], p)
		var c tally
		together(32, func(i int) {
			_, res, err := stores[i%2].Approve(t.Context(), p, fmt.Sprintf("U0ADMIN%02d", i), 1, now)
			c.add(res, err)
		})
		c.check(t, "32 admins, need 1", map[commands.ApproveResult]int{commands.ApproveRun: 1, commands.ApproveClosed: 31})
	}
	// The same admin's 32 clicks on a request the store does not know yet.
	p := request("unknown", now)
	var c tally
	together(32, func(i int) {
		_, res, err := stores[i%2].Approve(t.Context(), p, "U0ADA", 1, now)
		c.add(res, err)
	})
	c.check(t, "one admin clicking 32 times", map[commands.ApproveResult]int{commands.ApproveRun: 1, commands.ApproveClosed: 31})
	if rec := get(t, stores[1], p.ID); rec.State != commands.StateRunning || len(rec.Approvers) != 1 {
		t.Errorf("after 32 clicks: state %s, approvers %v; want running, [U0ADA]", rec.State, rec.Approvers)
	}
}

func testConcurrentApproveNeedTwo(t *testing.T, open func(t *testing.T) commands.Store) {
	stores := replicas(t, open(t), 2)
	now := clock()
	for round := range 3 {
		// Two admins, each clicking 8 times on each replica.
		p := request(fmt.Sprintf("pair%d", round), now)
		submit(t, stores[0], p)
		var c tally
		admins := []string{"U0ADA", "U0BOB"}
		together(32, func(i int) {
			_, res, err := stores[i%2].Approve(t.Context(), p, admins[(i/2)%2], 2, now)
			c.add(res, err)
		})
		c.mu.Lock()
		runs, counted := c.results[commands.ApproveRun], c.results[commands.ApproveCounted]
		c.mu.Unlock()
		if len(c.errs) > 0 || runs != 1 || counted != 1 {
			t.Errorf("two admins racing, need 2: %d runs, %d counted, errors %v; want 1 and 1", runs, counted, c.errs)
		}
		rec := get(t, stores[0], p.ID)
		if rec.State != commands.StateRunning || len(rec.Approvers) != 2 || rec.Approvers[0] == rec.Approvers[1] ||
			rec.DecidedBy != rec.Approvers[1] {
			t.Errorf("two admins racing: state %s, approvers %v, decided by %q", rec.State, rec.Approvers, rec.DecidedBy)
		}
	}
	p := request("many", now)
	submit(t, stores[1], p)
	var c tally
	together(32, func(i int) {
		_, res, err := stores[i%2].Approve(t.Context(), p, fmt.Sprintf("U0ADMIN%02d", i), 2, now)
		c.add(res, err)
	})
	c.check(t, "32 admins, need 2", map[commands.ApproveResult]int{
		commands.ApproveRun: 1, commands.ApproveCounted: 1, commands.ApproveClosed: 30})
}

func testEndVersusApprove(t *testing.T, open func(t *testing.T) commands.Store) {
	stores := replicas(t, open(t), 2)
	now := clock()
	for round := range 10 {
		p := request(fmt.Sprintf("r%d", round), now)
		submit(t, stores[0], p)
		var mu sync.Mutex
		var runs, ends int
		var errs []error
		together(16, func(i int) {
			s := stores[i%2]
			var won bool
			var err error
			if i < 8 {
				var res commands.ApproveResult
				_, res, err = s.Approve(t.Context(), p, fmt.Sprintf("U0ADMIN%d", i), 1, now)
				won = res == commands.ApproveRun
			} else {
				_, won, err = s.End(t.Context(), p, commands.StateDenied, fmt.Sprintf("U0ADMIN%d", i), now)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				errs = append(errs, err)
			case won && i < 8:
				runs++
			case won:
				ends++
			}
		})
		if len(errs) > 0 || runs+ends != 1 {
			t.Fatalf("round %d: %d runs and %d denials won, errors %v; want one winner", round, runs, ends, errs)
		}
		want := commands.StateDenied
		if runs == 1 {
			want = commands.StateRunning
		}
		if got := get(t, stores[1], p.ID).State; got != want {
			t.Errorf("round %d: state %s, want %s", round, got, want)
		}
	}
}
