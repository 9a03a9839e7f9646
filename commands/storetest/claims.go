package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/commands"
)

// ids returns the IDs of recs, in order.
func ids(recs []commands.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func testPending(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	// Submitted out of order; c is the oldest.
	for i, id := range []string{"b", "d", "c", "a", "e", "f"} {
		p := request(id, now.Add(time.Duration(i)*time.Minute))
		if id == "c" {
			p.Created = now.Add(-time.Hour)
		}
		if id == "a" || id == "f" {
			p.Requester = "U0OTHER"
		}
		submit(t, s, p)
	}
	approve(t, s, request("d", now.Add(time.Minute)), "U0ADA", 1, now, commands.ApproveRun)
	if _, _, err := s.End(t.Context(), request("e", now), commands.StateCancelled, "U0REQUESTER", now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		requester string
		limit     int
		want      []string
	}{
		{"", 0, []string{"c", "b", "a", "f"}},
		{"", 2, []string{"c", "b"}},
		{"", 10, []string{"c", "b", "a", "f"}},
		{"U0OTHER", 0, []string{"a", "f"}},
		{"U0OTHER", 1, []string{"a"}},
		{"U0REQUESTER", 0, []string{"c", "b"}},
		{"U0NOBODY", 0, nil},
	} {
		got, err := s.Pending(t.Context(), tc.requester, tc.limit)
		if err != nil {
			t.Fatalf("Pending(%q, %d): %v", tc.requester, tc.limit, err)
		}
		if diff := cmp.Diff(tc.want, ids(got), opts); diff != "" {
			t.Errorf("Pending(%q, %d) (-want +got):\n%s", tc.requester, tc.limit, diff)
		}
	}
	got, err := s.Pending(t.Context(), "U0OTHER", 1)
	if err != nil || len(got) != 1 {
		t.Fatal(err)
	}
	if diff := cmp.Diff(get(t, s, "a"), got[0], opts); diff != "" {
		t.Errorf("Pending's record differs from Get's (-get +pending):\n%s", diff)
	}
}

func testClaimExpired(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	at := func(id string, expires time.Time) commands.Pending {
		p := request(id, now.Add(-time.Hour))
		p.Expires = expires
		submit(t, s, p)
		return p
	}
	before, exact := at("before", now.Add(-time.Microsecond)), at("exact", now)
	at("after", now.Add(time.Microsecond))
	decided := at("decided", now.Add(-time.Minute))
	if _, _, err := s.End(t.Context(), decided, commands.StateDenied, "U0ADA", now.Add(-2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := s.ClaimExpired(t.Context(), now, 0)
	if err != nil {
		t.Fatalf("ClaimExpired: %v", err)
	}
	slices.SortFunc(got, func(a, b commands.Record) int { return a.Expires.Compare(b.Expires) })
	want := []commands.Record{
		{Pending: before, State: commands.StateExpired, DecidedAt: now},
		{Pending: exact, State: commands.StateExpired, DecidedAt: now},
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Fatalf("ClaimExpired (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1], get(t, s, "exact"), opts); diff != "" {
		t.Errorf("Get after ClaimExpired (-want +got):\n%s", diff)
	}
	if got, err := s.ClaimExpired(t.Context(), now, 0); err != nil || len(got) != 0 {
		t.Errorf("second ClaimExpired = %v, %v; want none", ids(got), err)
	}
	for i := range 5 {
		at(fmt.Sprintf("due%d", i), now.Add(time.Duration(i)*time.Second))
	}
	var all []string
	for _, wantN := range []int{2, 2, 2, 0} { // "after" and due0..due4
		got, err := s.ClaimExpired(t.Context(), now.Add(time.Minute), 2)
		if err != nil || len(got) != wantN {
			t.Fatalf("ClaimExpired with limit 2 = %v, %v; want %d records", ids(got), err, wantN)
		}
		all = append(all, ids(got)...)
	}
	slices.Sort(all)
	if diff := cmp.Diff([]string{"after", "due0", "due1", "due2", "due3", "due4"}, all); diff != "" {
		t.Errorf("claimed in batches of 2 (-want +got):\n%s", diff)
	}
}

// claimAll calls claim from 8 goroutines spread over stores, each until it
// gets nothing, and returns how often each ID was returned.
func claimAll(t *testing.T, stores []commands.Store, claim func(s commands.Store) ([]commands.Record, error)) map[string]int {
	var mu sync.Mutex
	seen := make(map[string]int)
	var errs []error
	together(8, func(i int) {
		for {
			got, err := claim(stores[i%len(stores)])
			mu.Lock()
			if err != nil {
				errs = append(errs, err)
			}
			for _, r := range got {
				seen[r.ID]++
			}
			mu.Unlock()
			if err != nil || len(got) == 0 {
				return
			}
		}
	})
	if len(errs) > 0 {
		t.Fatalf("%d concurrent claims failed, the first: %v", len(errs), errs[0])
	}
	return seen
}

// once returns the map that claimAll should return for n requests r0..r(n-1).
func once(n int) map[string]int {
	want := make(map[string]int)
	for i := range n {
		want[fmt.Sprintf("r%02d", i)] = 1
	}
	return want
}

func testClaimExpiredConcurrent(t *testing.T, open func(t *testing.T) commands.Store) {
	stores := replicas(t, open(t), 2)
	now := clock()
	for i := range 40 {
		p := request(fmt.Sprintf("r%02d", i), now.Add(-48*time.Hour))
		submit(t, stores[i%2], p)
	}
	seen := claimAll(t, stores, func(s commands.Store) ([]commands.Record, error) {
		return s.ClaimExpired(t.Context(), now, 3)
	})
	if diff := cmp.Diff(once(40), seen); diff != "" {
		t.Errorf("times each request was claimed (-want +got):\n%s", diff)
	}
}

func testClaimReminders(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	cutoff := now.Add(-time.Hour)
	at := func(id string, created time.Time) commands.Pending {
		p := request(id, created)
		submit(t, s, p)
		return p
	}
	before, exact := at("before", cutoff.Add(-time.Microsecond)), at("exact", cutoff)
	at("after", cutoff.Add(time.Microsecond))
	stale := request("stale", cutoff.Add(-time.Minute))
	stale.Expires = now // expired at now, though not claimed yet
	submit(t, s, stale)
	denied := at("denied", cutoff.Add(-2*time.Hour))
	if _, _, err := s.End(t.Context(), denied, commands.StateDenied, "U0ADA", cutoff.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	running := at("running", cutoff.Add(-2*time.Hour))
	approve(t, s, running, "U0ADA", 1, cutoff.Add(-time.Hour), commands.ApproveRun)

	got, err := s.ClaimReminders(t.Context(), cutoff, now, 0)
	if err != nil {
		t.Fatalf("ClaimReminders: %v", err)
	}
	slices.SortFunc(got, func(a, b commands.Record) int { return a.Created.Compare(b.Created) })
	want := []commands.Record{
		{Pending: before, State: commands.StatePending, Reminded: true},
		{Pending: exact, State: commands.StatePending, Reminded: true},
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Fatalf("ClaimReminders (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[0], get(t, s, "before"), opts); diff != "" {
		t.Errorf("Get after ClaimReminders (-want +got):\n%s", diff)
	}
	if got, err := s.ClaimReminders(t.Context(), now, now, 0); err != nil || !slices.Equal(ids(got), []string{"after"}) {
		t.Errorf("ClaimReminders at a later cutoff = %v, %v; want only [after]", ids(got), err)
	}
	if got, err := s.ClaimReminders(t.Context(), now, now, 0); err != nil || len(got) != 0 {
		t.Errorf("third ClaimReminders = %v, %v; want none: once per request, ever", ids(got), err)
	}
}

func testClaimRemindersConcurrent(t *testing.T, open func(t *testing.T) commands.Store) {
	stores := replicas(t, open(t), 2)
	now := clock()
	for i := range 40 {
		submit(t, stores[i%2], request(fmt.Sprintf("r%02d", i), now.Add(-time.Duration(i+1)*time.Minute)))
	}
	seen := claimAll(t, stores, func(s commands.Store) ([]commands.Record, error) {
		return s.ClaimReminders(t.Context(), now, now, 3)
	})
	if diff := cmp.Diff(once(40), seen); diff != "" {
		t.Errorf("times each request was claimed (-want +got):\n%s", diff)
	}
}

func testClaimStale(t *testing.T, open func(t *testing.T) commands.Store) {
	stores := replicas(t, open(t), 2)
	s := stores[0]
	now := clock()
	cutoff := now.Add(-time.Hour)
	old := request("old", now.Add(-3*time.Hour))
	fresh := request("fresh", now.Add(-3*time.Hour))
	waiting := request("waiting", now.Add(-3*time.Hour))
	for _, p := range []commands.Pending{old, fresh, waiting} {
		submit(t, s, p)
	}
	approve(t, s, old, "U0ADA", 1, cutoff.Add(-time.Minute), commands.ApproveRun)
	approve(t, s, fresh, "U0ADA", 1, cutoff.Add(time.Minute), commands.ApproveRun)
	seen := claimAll(t, stores, func(st commands.Store) ([]commands.Record, error) {
		return st.ClaimStale(t.Context(), cutoff, "the run did not report back", 1)
	})
	if diff := cmp.Diff(map[string]int{"old": 1}, seen); diff != "" {
		t.Errorf("times each request was claimed (-want +got):\n%s", diff)
	}
	rec := get(t, s, "old")
	if rec.State != commands.StateUncertain || rec.RunText != "the run did not report back" {
		t.Errorf("stale run after the claim = %s %q, want uncertain with the outcome", rec.State, rec.RunText)
	}
	if err := s.Finish(t.Context(), "old", commands.StateDone, "late", now); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, s, "old"); rec.State != commands.StateUncertain {
		t.Errorf("a late Finish changed a claimed stale run to %s", rec.State)
	}
	for id, want := range map[string]commands.State{"fresh": commands.StateRunning, "waiting": commands.StatePending} {
		if got := get(t, s, id).State; got != want {
			t.Errorf("%s = %s after ClaimStale, want %s", id, got, want)
		}
	}
}
