package storetest

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/commands"
)

// handoverTests are the hand-over cases of the suite.
var handoverTests = []struct {
	name string
	fn   func(t *testing.T, open func(t *testing.T) commands.Store)
}{
	{"HandoverOfferGetAttach", testHandoverOffer},
	{"HandoverClaimOnce", testHandoverClaimOnce},
	{"HandoverClaimUnknown", testHandoverClaimUnknown},
	{"HandoverClaimExpiry", testHandoverClaimExpiry},
	{"HandoverReleaseAndStale", testHandoverRelease},
	{"HandoverConcurrentClaims", testHandoverConcurrent},
	{"HandoverClaimExpired", testHandoverClaimExpired},
	{"SelfServiceWindow", testSelfServiceWindow},
	{"SelfServiceConcurrent", testSelfServiceConcurrent},
	{"RequestAndAuditKeepHandedTo", testHandedTo},
}

// handover returns a realistic hand-over with the ID, offered at created
// for three days.
func handover(id string, created time.Time) commands.Handover {
	return commands.Handover{ID: id, Owner: "U0ADA", Requester: "U0REQUESTER", RequestID: "req" + id,
		Action: commands.ActionAddMailbox, Domain: "example.com", Login: "ada.lovelace",
		Created: created, Expires: created.Add(72 * time.Hour)}
}

// claim calls ClaimHandover and fails the test on an error or a result
// other than want.
func claim(t *testing.T, s commands.Store, h commands.Handover, now time.Time, want commands.ClaimResult) commands.HandoverRecord {
	t.Helper()
	rec, res, err := s.ClaimHandover(t.Context(), h, now)
	if err != nil || res != want {
		t.Fatalf("ClaimHandover(%s at %s) = %d, %v; want %d", h.ID, now, res, err, want)
	}
	return rec
}

func testHandoverOffer(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	h.SelfService = true
	if _, err := s.OfferHandover(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OfferHandover(t.Context(), h); !errors.Is(err, commands.ErrHandoverExists) {
		t.Errorf("a second OfferHandover with the same ID: %v, want ErrHandoverExists", err)
	}
	ref := commands.MessageRef{Channel: "D0ADA", TS: "1700000001.000100"}
	if err := s.AttachHandover(t.Context(), "h1", ref); err != nil {
		t.Fatal(err)
	}
	if err := s.AttachHandover(t.Context(), "nope", ref); err == nil {
		t.Error("AttachHandover of an unknown hand-over succeeded")
	}
	rec, ok, err := s.GetHandover(t.Context(), "h1")
	want := commands.HandoverRecord{Handover: h, State: commands.HandoverStateOffered, Message: ref}
	if err != nil || !ok {
		t.Fatalf("GetHandover = %v, %v", ok, err)
	}
	if diff := cmp.Diff(want, rec, opts); diff != "" {
		t.Errorf("GetHandover (-want +got):\n%s", diff)
	}
	if _, ok, err := s.GetHandover(t.Context(), "nope"); ok || err != nil {
		t.Errorf("GetHandover(unknown) = %v, %v", ok, err)
	}
}

func testHandoverClaimOnce(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	if _, err := s.OfferHandover(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	rec := claim(t, s, h, now.Add(time.Minute), commands.ClaimTaken)
	if rec.State != commands.HandoverStateShowing || !rec.ClaimedAt.Equal(now.Add(time.Minute)) {
		t.Errorf("claimed record = %+v", rec)
	}
	claim(t, s, h, now.Add(2*time.Minute), commands.ClaimClosed)
	if err := s.ShownHandover(t.Context(), "h1", now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	rec = claim(t, s, h, now.Add(time.Hour), commands.ClaimClosed)
	if rec.State != commands.HandoverStateShown || !rec.DoneAt.Equal(now.Add(3*time.Minute)) {
		t.Errorf("after shown: %+v", rec)
	}
	// Shown is final: neither a release nor a stale claim reopens it.
	if err := s.ReleaseHandover(t.Context(), "h1"); err != nil {
		t.Fatal(err)
	}
	claim(t, s, h, now.Add(time.Hour), commands.ClaimClosed)
}

func testHandoverClaimUnknown(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	claim(t, s, h, now, commands.ClaimTaken)
	claim(t, s, h, now, commands.ClaimClosed)
	if rec, ok, err := s.GetHandover(t.Context(), "h1"); !ok || err != nil || rec.Owner != "U0ADA" {
		t.Errorf("an unknown hand-over's claim did not record it: %+v, %v, %v", rec, ok, err)
	}
}

func testHandoverClaimExpiry(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	claim(t, s, h, h.Expires.Add(-time.Millisecond), commands.ClaimTaken)
	h2 := handover("h2", now)
	rec := claim(t, s, h2, h2.Expires, commands.ClaimExpired)
	if rec.State != commands.HandoverStateExpired || !rec.DoneAt.Equal(h2.Expires) {
		t.Errorf("expired record = %+v", rec)
	}
	claim(t, s, h2, h2.Expires, commands.ClaimClosed)
}

func testHandoverRelease(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	claim(t, s, h, now, commands.ClaimTaken)
	if err := s.ReleaseHandover(t.Context(), "h1"); err != nil {
		t.Fatal(err)
	}
	claim(t, s, h, now.Add(time.Second), commands.ClaimTaken)
	// A claim that never ended is taken again after StaleClaim, not before.
	claim(t, s, h, now.Add(time.Second+commands.StaleClaim-time.Millisecond), commands.ClaimClosed)
	claim(t, s, h, now.Add(time.Second+commands.StaleClaim), commands.ClaimTaken)
}

func testHandoverConcurrent(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	if _, err := s.OfferHandover(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	stores := replicas(t, s, 3)
	var taken atomic.Int32
	together(12, func(i int) {
		_, res, err := stores[i%len(stores)].ClaimHandover(t.Context(), h, now)
		if err != nil {
			t.Errorf("ClaimHandover: %v", err)
		}
		if res == commands.ClaimTaken {
			taken.Add(1)
		}
	})
	if taken.Load() != 1 {
		t.Errorf("%d concurrent claims were taken, want exactly 1", taken.Load())
	}
}

func testHandoverClaimExpired(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	for i, id := range []string{"a", "b", "c", "d"} {
		h := handover(id, now.Add(time.Duration(i)*time.Hour))
		h.Login = "ada." + id // a mailbox each: a later hand-over of one mailbox voids the earlier
		if _, err := s.OfferHandover(t.Context(), h); err != nil {
			t.Fatal(err)
		}
	}
	b := handover("b", now.Add(time.Hour))
	b.Login = "ada.b"
	claim(t, s, b, now.Add(time.Hour), commands.ClaimTaken) // showing: not expired by the sweep
	at := now.Add(72*time.Hour + 2*time.Hour)               // a, b and c are due
	stores := replicas(t, s, 2)
	var got atomic.Int32
	together(4, func(i int) {
		recs, err := stores[i%2].ClaimExpiredHandovers(t.Context(), at, 10)
		if err != nil {
			t.Errorf("ClaimExpiredHandovers: %v", err)
		}
		for _, r := range recs {
			if r.State != commands.HandoverStateExpired || (r.ID != "a" && r.ID != "c") {
				t.Errorf("claimed %+v", r)
			}
		}
		got.Add(int32(len(recs)))
	})
	if got.Load() != 2 {
		t.Errorf("expired %d hand-overs in all, want 2 (a and c), each once", got.Load())
	}
}

func testSelfServiceWindow(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	w := 10 * time.Minute
	for _, tc := range []struct {
		user string
		at   time.Duration
		ok   bool
	}{
		{"U0ADA", 0, true}, {"U0BOB", time.Minute, true}, {"U0ADA", w - time.Millisecond, false}, {"U0ADA", w, true}, {"U0ADA", w + time.Minute, false},
	} {
		ok, next, err := s.ClaimSelfService(t.Context(), tc.user, now.Add(tc.at), w)
		if err != nil || ok != tc.ok {
			t.Fatalf("ClaimSelfService(%s, +%s) = %v, %v; want %v", tc.user, tc.at, ok, err, tc.ok)
		}
		if !ok && next.Before(now.Add(tc.at)) {
			t.Errorf("ClaimSelfService(%s, +%s): next %s is in the past", tc.user, tc.at, next)
		}
	}
}

func testSelfServiceConcurrent(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	stores := replicas(t, s, 3)
	var ok atomic.Int32
	together(12, func(i int) {
		got, _, err := stores[i%3].ClaimSelfService(t.Context(), "U0ADA", now, 10*time.Minute)
		if err != nil {
			t.Errorf("ClaimSelfService: %v", err)
		}
		if got {
			ok.Add(1)
		}
	})
	if ok.Load() != 1 {
		t.Errorf("%d concurrent self-service claims succeeded, want 1", ok.Load())
	}
}

func testHandedTo(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	p := request("r1", now)
	p.Op.For = "U0ADA"
	submit(t, s, p)
	if rec := get(t, s, "r1"); rec.Op.For != "U0ADA" {
		t.Errorf("request's For = %q after Get, want U0ADA", rec.Op.For)
	}
	rec := approve(t, s, p, "U0ADMIN", 1, now, commands.ApproveRun)
	if rec.Op.For != "U0ADA" {
		t.Errorf("request's For = %q after Approve, want U0ADA", rec.Op.For)
	}
	e := commands.AuditEntry{Time: now, Event: commands.EventHandoverShown, Actor: "U0ADA", Action: commands.ActionResetPassword,
		Domain: "example.com", Login: "ada", HandedTo: "U0ADA"}
	if err := s.AppendAudit(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	entries, err := s.Audit(t.Context(), now.Add(-time.Minute), 0, false)
	if err != nil || len(entries) != 1 || entries[0].HandedTo != "U0ADA" || entries[0].Event != commands.EventHandoverShown {
		t.Errorf("audit = %+v, %v; want the entry handed to U0ADA", entries, err)
	}
}
