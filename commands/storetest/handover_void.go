package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// voidTests are the cases of hand-overs voided by what comes after them.
var voidTests = []struct {
	name string
	fn   func(t *testing.T, open func(t *testing.T) commands.Store)
}{
	{"HandoverVoidedByLaterOffer", testVoidedByLaterOffer},
	{"HandoverOfferedOutOfOrder", testOfferedOutOfOrder},
	{"HandoverVoidHandovers", testVoidHandovers},
	{"HandoverVoidWhileShowing", testVoidWhileShowing},
	{"HandoverConcurrentOffers", testConcurrentOffers},
	{"HandoverClaimsVersusLaterOffer", testClaimsVersusLaterOffer},
}

// offer records h in s and returns the IDs of the hand-overs it voided.
func offer(t *testing.T, s commands.Store, h commands.Handover) []string {
	t.Helper()
	voided, err := s.OfferHandover(t.Context(), h)
	if err != nil {
		t.Fatalf("OfferHandover(%s): %v", h.ID, err)
	}
	return handoverIDs(voided)
}

func handoverIDs(recs []commands.HandoverRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.ID)
	}
	slices.Sort(out)
	return out
}

// state returns the state of the hand-over id, or fails the test.
func state(t *testing.T, s commands.Store, id string) commands.HandoverRecord {
	t.Helper()
	rec, ok, err := s.GetHandover(t.Context(), id)
	if err != nil || !ok {
		t.Fatalf("GetHandover(%s) = %v, %v", id, ok, err)
	}
	return rec
}

func testVoidedByLaterOffer(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	first, other := handover("h1", now), handover("hx", now)
	other.Login = "grace.hopper"
	imp := handover("himport", now)
	imp.Action, imp.Domain, imp.Login = commands.ActionImport, "", "req-import"
	for _, h := range []commands.Handover{first, other, imp} {
		if got := offer(t, s, h); len(got) != 0 {
			t.Errorf("offer of %s voided %v, want none", h.ID, got)
		}
	}
	later := handover("h2", now.Add(time.Second))
	later.Owner, later.Action = "U0BOB", commands.ActionResetPassword
	if got := offer(t, s, later); !slices.Equal(got, []string{"h1"}) {
		t.Fatalf("the later offer voided %v, want [h1]", got)
	}
	rec := state(t, s, "h1")
	if rec.State != commands.HandoverStateVoided || rec.VoidedBy != commands.ActionResetPassword || !rec.DoneAt.Equal(later.Created) {
		t.Errorf("h1 after a later offer = %s by %q at %s; want voided by reset_password at %s", rec.State, rec.VoidedBy, rec.DoneAt, later.Created)
	}
	if got := claim(t, s, first, now.Add(2*time.Second), commands.ClaimClosed); got.State != commands.HandoverStateVoided {
		t.Errorf("a click on the voided hand-over found it %s, want voided", got.State)
	}
	for _, id := range []string{"hx", "himport"} {
		if rec := state(t, s, id); rec.State != commands.HandoverStateOffered {
			t.Errorf("%s (another mailbox, or an import's) is %s after the offer, want offered", id, rec.State)
		}
	}
	claim(t, s, later, now.Add(2*time.Second), commands.ClaimTaken)
}

func testOfferedOutOfOrder(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	late, early := handover("h2", now.Add(time.Second)), handover("h1", now)
	offer(t, s, late)
	if got := offer(t, s, early); !slices.Equal(got, []string{"h1"}) {
		t.Errorf("an offer older than the open one voided %v, want itself [h1]", got)
	}
	if rec := state(t, s, "h2"); rec.State != commands.HandoverStateOffered {
		t.Errorf("the later hand-over is %s, want offered", rec.State)
	}
	// The same instant: the ID decides, as in every store.
	a, b := handover("a", now.Add(time.Minute)), handover("b", now.Add(time.Minute))
	offer(t, s, b)
	if got := offer(t, s, a); !slices.Equal(got, []string{"a"}) {
		t.Errorf("at the same instant, a after b voided %v, want [a]", got)
	}
	if rec := state(t, s, "b"); rec.State != commands.HandoverStateOffered {
		t.Errorf("b is %s, want offered", rec.State)
	}
}

func testVoidHandovers(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h, other, after := handover("h1", now), handover("hx", now), handover("h9", now.Add(time.Hour))
	other.Domain = "other.example"
	offer(t, s, h)
	offer(t, s, other)
	at := now.Add(time.Second)
	voided, err := s.VoidHandovers(t.Context(), "example.com", "ada.lovelace", commands.ActionBlock, at)
	if err != nil || !slices.Equal(handoverIDs(voided), []string{"h1"}) {
		t.Fatalf("VoidHandovers = %v, %v; want [h1]", handoverIDs(voided), err)
	}
	if r := voided[0]; r.State != commands.HandoverStateVoided || r.VoidedBy != commands.ActionBlock || !r.DoneAt.Equal(at) {
		t.Errorf("voided record = %s by %q at %s, want voided by block at %s", r.State, r.VoidedBy, r.DoneAt, at)
	}
	if again, err := s.VoidHandovers(t.Context(), "example.com", "ada.lovelace", commands.ActionOffboard, at); err != nil || len(again) != 0 {
		t.Errorf("a second VoidHandovers = %v, %v; want none", handoverIDs(again), err)
	}
	if rec := state(t, s, "hx"); rec.State != commands.HandoverStateOffered {
		t.Errorf("another domain's hand-over is %s, want offered", rec.State)
	}
	offer(t, s, after)
	if v, _ := s.VoidHandovers(t.Context(), "example.com", "ada.lovelace", commands.ActionBlock, at); len(v) != 0 {
		t.Errorf("VoidHandovers voided %v created after its time, want none", handoverIDs(v))
	}
	expired, err := s.ClaimExpiredHandovers(t.Context(), now.Add(100*time.Hour), 10)
	if err != nil || slices.Contains(handoverIDs(expired), "h1") {
		t.Errorf("ClaimExpiredHandovers = %v, %v; a voided hand-over does not expire", handoverIDs(expired), err)
	}
}

func testVoidWhileShowing(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	h := handover("h1", now)
	offer(t, s, h)
	claim(t, s, h, now, commands.ClaimTaken)
	if v, err := s.VoidHandovers(t.Context(), h.Domain, h.Login, commands.ActionResetPassword, now.Add(time.Second)); err != nil || len(v) != 1 {
		t.Fatalf("VoidHandovers of a showing hand-over = %v, %v; want it", handoverIDs(v), err)
	}
	if err := s.ReleaseHandover(t.Context(), "h1"); err != nil {
		t.Fatal(err)
	}
	if rec := state(t, s, "h1"); rec.State != commands.HandoverStateVoided {
		t.Errorf("a voided hand-over given back is %s, want voided (its button must not come back)", rec.State)
	}
	claim(t, s, h, now.Add(time.Second+commands.StaleClaim), commands.ClaimClosed)
	if err := s.ShownHandover(t.Context(), "h1", now.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if rec := state(t, s, "h1"); rec.State != commands.HandoverStateVoided {
		t.Errorf("a voided hand-over recorded as shown is %s, want voided", rec.State)
	}
}

// testConcurrentOffers offers eight hand-overs of one mailbox at once,
// spread over replicas, with blocks in between: the latest alone stays
// open, and every other is voided by exactly one call.
func testConcurrentOffers(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	stores := replicas(t, s, 2)
	const n = 8
	var mu sync.Mutex
	seen := map[string]int{}
	together(n+2, func(i int) {
		st := stores[i%len(stores)]
		var voided []commands.HandoverRecord
		var err error
		if i < n {
			voided, err = st.OfferHandover(t.Context(), handover(fmt.Sprintf("h%d", i), now.Add(time.Duration(i)*time.Second)))
		} else {
			voided, err = st.VoidHandovers(t.Context(), "example.com", "ada.lovelace", commands.ActionBlock, now.Add(3500*time.Millisecond))
		}
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, r := range voided {
			seen[r.ID]++
		}
	})
	for i := range n {
		id := fmt.Sprintf("h%d", i)
		rec := state(t, s, id)
		want := commands.HandoverStateVoided
		if i == n-1 {
			want = commands.HandoverStateOffered
		}
		if rec.State != want || (want == commands.HandoverStateVoided) != (seen[id] == 1) || seen[id] > 1 {
			t.Errorf("%s is %s and was returned voided %d times; want %s, returned once when voided", id, rec.State, seen[id], want)
		}
	}
}

// testClaimsVersusLaterOffer races the owner's clicks on one replica with
// a later hand-over of the mailbox on another: whichever comes first, the
// earlier hand-over ends voided (a click that had claimed it finishes,
// but it can never be claimed again), at most one click took it, and the
// later one stays open.
func testClaimsVersusLaterOffer(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	first, later := handover("h1", now), handover("h2", now.Add(time.Second))
	offer(t, s, first)
	stores := replicas(t, s, 2)
	var mu sync.Mutex
	taken := 0
	together(5, func(i int) {
		if i == 0 {
			if _, err := stores[1].OfferHandover(t.Context(), later); err != nil {
				t.Errorf("OfferHandover: %v", err)
			}
			return
		}
		_, res, err := stores[0].ClaimHandover(t.Context(), first, now.Add(time.Second))
		if err != nil {
			t.Errorf("ClaimHandover: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if res == commands.ClaimTaken {
			taken++
		}
	})
	if rec := state(t, s, "h1"); rec.State != commands.HandoverStateVoided || taken > 1 {
		t.Errorf("the earlier hand-over is %s after %d claims taken; want voided, at most one taken", rec.State, taken)
	}
	if rec := state(t, s, "h2"); rec.State != commands.HandoverStateOffered {
		t.Errorf("the later hand-over is %s, want offered", rec.State)
	}
	claim(t, s, first, now.Add(time.Second+commands.StaleClaim), commands.ClaimClosed)
}
