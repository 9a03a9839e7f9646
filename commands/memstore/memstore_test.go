package memstore_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/commands/storetest"
	"github.com/mailbot/mailbot/internal/testkit"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) commands.Store { return memstore.New(memstore.Options{}) })
}

func TestNotDurable(t *testing.T) {
	if memstore.New(memstore.Options{}).Durable() {
		t.Error("Durable() = true, want false")
	}
}

func pending(id string, created time.Time) commands.Pending {
	return commands.Pending{ID: id, Requester: "U0REQ", Op: commands.Operation{Action: commands.ActionRegisterDomain,
		Domain: id + ".example.com"}, Created: created, Expires: created.Add(24 * time.Hour)}
}

func TestForgetsOldFinalRequests(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	s := memstore.New(memstore.Options{Retention: 48 * time.Hour, Now: clock.Now})
	ctx := t.Context()
	done, open := pending("done", start), pending("open", start)
	for _, p := range []commands.Pending{done, open} {
		if err := s.Submit(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, res, _ := s.Approve(ctx, done, "U0ADA", 1, start); res != commands.ApproveRun {
		t.Fatalf("Approve = %v, want run", res)
	}
	if err := s.Finish(ctx, done.ID, commands.StateDone, "ok", start); err != nil {
		t.Fatal(err)
	}
	// Three days on: "done" was decided 72 h ago and expired 48 h ago,
	// within the retention for its expiry; a day later it is beyond.
	for i, at := range []time.Time{start.Add(72 * time.Hour), start.Add(97 * time.Hour)} {
		clock.Set(at)
		for j := range 256 { // enough writes to prune
			if err := s.Submit(ctx, pending(fmt.Sprintf("filler%d-%d", i, j), at)); err != nil {
				t.Fatal(err)
			}
		}
		_, known, _ := s.Get(ctx, done.ID)
		if want := i == 0; known != want {
			t.Errorf("at %v: done request known = %v, want %v", at.Sub(start), known, want)
		}
	}
	if rec, ok, _ := s.Get(ctx, open.ID); !ok || rec.State != commands.StatePending {
		t.Errorf("the pending request was forgotten (ok %v, %s); pending requests are kept", ok, rec.State)
	}
}

func TestMaxRequestsKeepsUnexpiredFinal(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	s := memstore.New(memstore.Options{MaxRequests: 10, Now: clock.Now})
	ctx := t.Context()
	// Ten denied requests; r_i expires i hours after start.
	for i := range 10 {
		p := pending(fmt.Sprintf("r%d", i), start.Add(time.Duration(i)*time.Hour-24*time.Hour))
		if _, _, err := s.End(ctx, p, commands.StateDenied, "U0ADA", start.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// Past the limit, five of them past their expiry: those go, the
	// others and the new pending requests stay.
	clock.Set(start.Add(4*time.Hour + time.Minute))
	for i := range 10 {
		if err := s.Submit(ctx, pending(fmt.Sprintf("new%d", i), clock.Now())); err != nil {
			t.Fatal(err)
		}
	}
	var kept []string
	for i := range 10 {
		if _, ok, _ := s.Get(ctx, fmt.Sprintf("r%d", i)); ok {
			kept = append(kept, fmt.Sprintf("r%d", i))
		}
	}
	if want := "[r5 r6 r7 r8 r9]"; fmt.Sprint(kept) != want {
		t.Errorf("kept %v, want %s", kept, want)
	}
	for i := range 10 {
		if _, ok, _ := s.Get(ctx, fmt.Sprintf("new%d", i)); !ok {
			t.Errorf("pending request new%d was forgotten", i)
		}
	}
	// A stale click on a forgotten request cannot run it: it is expired.
	if _, res, _ := s.Approve(ctx, pending("r0", start.Add(-24*time.Hour)), "U0BOB", 1, clock.Now()); res != commands.ApproveExpired {
		t.Errorf("Approve of a forgotten request = %v, want expired", res)
	}
}

func TestAuditBounded(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	s := memstore.New(memstore.Options{Retention: time.Hour, MaxAudit: 5, Now: clock.Now})
	ctx := t.Context()
	for i := range 8 {
		e := commands.AuditEntry{Event: commands.EventExpired, RequestID: fmt.Sprint(i), Time: start.Add(time.Duration(i) * time.Minute)}
		if err := s.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Audit(ctx, time.Time{}, 0, false)
	if len(got) != 5 || got[0].RequestID != "3" {
		t.Fatalf("after 8 entries with MaxAudit 5: %d entries from %q, want 5 from \"3\"", len(got), got[0].RequestID)
	}
	clock.Set(start.Add(time.Hour + 6*time.Minute + 30*time.Second))
	if err := s.AppendAudit(ctx, commands.AuditEntry{Event: commands.EventExpired, RequestID: "new"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Audit(ctx, time.Time{}, 0, false)
	var names []string
	for _, e := range got {
		names = append(names, e.RequestID)
	}
	if want := "[7 new]"; fmt.Sprint(names) != want {
		t.Errorf("after an hour: %v, want %s (older than the retention forgotten)", names, want)
	}
}

// TestFullAuditTrailAllocatesNothing: once the trail holds MaxAudit
// entries, each new entry drops the oldest and the trail moves along one
// array, allocating nothing per entry; the entries kept are the newest,
// in order, each with its ID, deciders and outcome.
func TestFullAuditTrailAllocatesNothing(t *testing.T) {
	s := memstore.New(memstore.Options{MaxAudit: 100})
	ctx := t.Context()
	begin := func(i int) {
		id, err := s.Begin(ctx, commands.AuditEntry{Event: commands.EventRun, RequestID: fmt.Sprint(i), Domain: "example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Complete(ctx, id, commands.AuditEntry{Outcome: commands.OutcomeOK, Status: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1000 {
		begin(i)
	}
	e := commands.AuditEntry{Event: commands.EventRun, Domain: "example.com"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10000 {
		if _, err := s.Begin(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > 10 {
		t.Errorf("10000 entries on a full trail allocated %d times; want none", n)
	}
	for i := 11000; i < 11250; i++ {
		begin(i)
	}
	if err := s.AppendAudit(ctx, commands.AuditEntry{Event: commands.EventApproved, Deciders: []string{"U1", "U2"}}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Audit(ctx, time.Time{}, 0, false)
	if len(got) != 100 || got[99].ID != 11251 || got[99].Deciders[1] != "U2" {
		t.Fatalf("after 11251 entries: %d kept, the last %+v; want 100, the last ID 11251 with its deciders", len(got), got[len(got)-1])
	}
	for i, g := range got[:99] {
		if want := fmt.Sprint(11151 + i); g.ID != int64(11152+i) || g.RequestID != want || g.Status != want || g.Outcome != commands.OutcomeOK {
			t.Fatalf("entry %d = %+v; want ID %d for request %s, completed", i, g, 11152+i, want)
		}
	}
}

// BenchmarkBeginComplete begins and completes an entry on a full audit
// trail (the default MaxAudit), as every operation does.
func BenchmarkBeginComplete(b *testing.B) {
	s := memstore.New(memstore.Options{})
	ctx := b.Context()
	e := commands.AuditEntry{Event: commands.EventRun, Domain: "example.com", Actor: "U0ADA"}
	done := commands.AuditEntry{Outcome: commands.OutcomeOK, Status: "added"}
	for range memstore.DefaultMaxAudit {
		if _, err := s.Begin(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		id, err := s.Begin(ctx, e)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Complete(ctx, id, done); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApprove approves and finishes requests one at a time; the
// requests are past their expiry once done, so the store stays at its
// MaxRequests and prunes as it would when full.
func BenchmarkApprove(b *testing.B) {
	s := memstore.New(memstore.Options{})
	ctx := b.Context()
	i := 0
	for b.Loop() {
		i++
		approveOne(b, s, ctx, fmt.Sprint(i))
	}
}

// BenchmarkApproveParallel is BenchmarkApprove from GOMAXPROCS goroutines.
func BenchmarkApproveParallel(b *testing.B) {
	s := memstore.New(memstore.Options{})
	ctx := b.Context()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			approveOne(b, s, ctx, fmt.Sprint(n.Add(1)))
		}
	})
}

// approveOne approves a new request that expired an hour ago, at a time
// before its expiry, and finishes it.
func approveOne(b *testing.B, s *memstore.Store, ctx context.Context, id string) {
	p := pending(id, time.Now().Add(-25*time.Hour))
	at := p.Expires.Add(-time.Minute)
	if _, res, err := s.Approve(ctx, p, "U0ADA", 1, at); err != nil || res != commands.ApproveRun {
		b.Fatalf("Approve = %v, %v", res, err)
	}
	if err := s.Finish(ctx, id, commands.StateDone, "ok", at); err != nil {
		b.Fatal(err)
	}
}

// Without a database a hand-over offered before a restart is unknown to
// the store. A void after the restart is remembered for its mailbox, so
// that a click on such a hand-over, created before the void, is refused.
func TestVoidRemembersTheMailbox(t *testing.T) {
	s := memstore.New(memstore.Options{})
	now := time.Now().UTC()
	h := commands.Handover{ID: "before-restart", Owner: "U0ADA", Requester: "U0REQ", Action: commands.ActionResetPassword,
		Domain: "example.com", Login: "ada", Created: now.Add(-time.Hour), Expires: now.Add(71 * time.Hour)}
	if v, err := s.VoidHandovers(t.Context(), "example.com", "ada", commands.ActionBlock, now); err != nil || len(v) != 0 {
		t.Fatalf("VoidHandovers = %v, %v; want none known", v, err)
	}
	rec, res, err := s.ClaimHandover(t.Context(), h, now.Add(time.Second))
	if err != nil || res != commands.ClaimClosed || rec.State != commands.HandoverStateVoided || rec.VoidedBy != commands.ActionBlock {
		t.Errorf("a click on an unknown hand-over made before the block: %d, %s by %q, %v; want closed, voided by block", res, rec.State, rec.VoidedBy, err)
	}
	later := h
	later.ID, later.Created = "after", now.Add(time.Minute)
	if _, res, err := s.ClaimHandover(t.Context(), later, now.Add(2*time.Minute)); err != nil || res != commands.ClaimTaken {
		t.Errorf("a click on one made after the block: %d, %v; want taken", res, err)
	}
}
