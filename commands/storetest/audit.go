package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/commands"
)

// entry returns a realistic audit entry of the event at the time.
func entry(ev commands.Event, at time.Time) commands.AuditEntry {
	e := commands.AuditEntry{Time: at, RequestID: "r1", Event: ev, Actor: "U0REQUESTER",
		Action: commands.ActionAddMailbox, Domain: "example.com", Login: "ada.lovelace",
		Reason: "new hire, starts on Monday", To: "grace.hopper@example.com", Source: commands.SourceSlack}
	if ev != commands.EventRun {
		e.Deciders = []string{"U0ADA", "U0BOB"}
	}
	return e
}

// audit lists the trail or fails the test.
func audit(t *testing.T, s commands.Store, since time.Time, limit int, newestFirst bool) []commands.AuditEntry {
	t.Helper()
	got, err := s.Audit(t.Context(), since, limit, newestFirst)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	return got
}

func testAuditRecord(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	events := []commands.Event{commands.EventApproval, commands.EventApproved, commands.EventDenied,
		commands.EventCancelled, commands.EventExpired}
	var want []commands.AuditEntry
	for i, ev := range events {
		e := entry(ev, now.Add(time.Duration(i)*time.Second))
		if err := s.AppendAudit(t.Context(), e); err != nil {
			t.Fatalf("AppendAudit(%s): %v", ev, err)
		}
		want = append(want, e)
	}
	got := audit(t, s, time.Time{}, 0, false)
	if diff := cmp.Diff(want, got, opts, cmp.FilterPath(isID, cmp.Ignore())); diff != "" {
		t.Fatalf("Audit (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID <= got[i-1].ID {
			t.Errorf("IDs not increasing: %d then %d", got[i-1].ID, got[i].ID)
		}
	}
	// An entry without a time gets the store's.
	before := time.Now()
	if err := s.AppendAudit(t.Context(), commands.AuditEntry{Event: commands.EventExpired, RequestID: "r2"}); err != nil {
		t.Fatal(err)
	}
	var r2 []commands.AuditEntry
	for _, e := range audit(t, s, time.Time{}, 0, false) {
		if e.RequestID == "r2" {
			r2 = append(r2, e)
		}
	}
	if len(r2) != 1 || r2[0].Time.Before(before.Add(-time.Second)) || r2[0].Time.After(time.Now().Add(time.Second)) {
		t.Errorf("entry recorded without a time = %+v, want one at about %v", r2, before)
	}
}

// isID matches the ID field of an AuditEntry.
func isID(p cmp.Path) bool { return p.Last().String() == ".ID" }

func testAuditBeginComplete(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	e := entry(commands.EventRun, now)
	id, err := s.Begin(t.Context(), e)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	e.ID = id
	if diff := cmp.Diff([]commands.AuditEntry{e}, audit(t, s, now, 0, false), opts); diff != "" {
		t.Fatalf("Audit while running (-want +got):\n%s", diff)
	}
	other := entry(commands.EventRun, now.Add(time.Second))
	other.Login = "grace.hopper"
	other.Provider = "another-provider" // kept as it was begun
	id2, err := s.Begin(t.Context(), other)
	if err != nil || id2 == id {
		t.Fatalf("second Begin = %d, %v; want a new ID", id2, err)
	}
	done := commands.AuditEntry{Actor: "U0SOMEONEELSE", Domain: "other.example", Outcome: commands.OutcomeOK,
		Status: "added", Stage: "owner-check", UID: "103456789012345678901", Code: ""} // a Google ID: 21 digits, more than an int64 holds
	if err := s.Complete(t.Context(), id, done); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	failed := commands.AuditEntry{Outcome: commands.OutcomeError, Code: "occupied"}
	if err := s.Complete(t.Context(), id2, failed); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	e.Outcome, e.Status, e.Stage, e.UID = commands.OutcomeOK, "added", "owner-check", "103456789012345678901"
	other.ID, other.Outcome, other.Code = id2, commands.OutcomeError, "occupied"
	if diff := cmp.Diff([]commands.AuditEntry{e, other}, audit(t, s, now, 0, false), opts); diff != "" {
		t.Errorf("Audit after Complete: only the outcome fields change (-want +got):\n%s", diff)
	}
	if err := s.Complete(t.Context(), id+id2+1000, done); err == nil {
		t.Error("Complete of an unknown entry succeeded, want an error")
	}
}

func testAuditSinceOrderLimit(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	// Recorded out of time order; "tie1" and "tie2" share a time.
	byName := map[string]time.Time{
		"t3": now.Add(3 * time.Second), "t1": now.Add(time.Second), "tie1": now.Add(2 * time.Second),
		"tie2": now.Add(2 * time.Second), "t0": now, "old": now.Add(-time.Hour),
	}
	for _, name := range []string{"t3", "t1", "tie1", "tie2", "t0", "old"} {
		e := entry(commands.EventApproval, byName[name])
		e.RequestID = name
		if err := s.AppendAudit(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	names := func(es []commands.AuditEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.RequestID)
		}
		return out
	}
	for _, tc := range []struct {
		since  time.Time
		limit  int
		newest bool
		want   []string
	}{
		{time.Time{}, 0, false, []string{"old", "t0", "t1", "tie1", "tie2", "t3"}},
		{now, 0, false, []string{"t0", "t1", "tie1", "tie2", "t3"}},
		{now.Add(time.Microsecond), 0, false, []string{"t1", "tie1", "tie2", "t3"}},
		{now.Add(2 * time.Second), 0, false, []string{"tie1", "tie2", "t3"}},
		{now, 0, true, []string{"t3", "tie2", "tie1", "t1", "t0"}},
		{now, 2, true, []string{"t3", "tie2"}},
		{time.Time{}, 3, false, []string{"old", "t0", "t1"}},
		{now.Add(time.Hour), 0, false, nil},
	} {
		got := names(audit(t, s, tc.since, tc.limit, tc.newest))
		if diff := cmp.Diff(tc.want, got, opts); diff != "" {
			t.Errorf("Audit(since %v, limit %d, newest first %v) (-want +got):\n%s",
				tc.since.Sub(now), tc.limit, tc.newest, diff)
		}
	}
}
