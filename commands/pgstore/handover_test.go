package pgstore_test

import (
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// TestPruneHandovers: a hand-over that no click can use goes a week after
// its expiry; an offered one, and one expired lately, stay.
func TestPruneHandovers(t *testing.T) {
	s := open(t, pgtest.NewDatabase(t))
	now := time.Now().UTC().Truncate(time.Millisecond)
	old := now.Add(-pgstore.RequestRetention - 73*time.Hour)
	for _, h := range []commands.Handover{
		{ID: "shown-old", Owner: "U0ADA", Requester: "U0REQ", Action: commands.ActionAddMailbox, Domain: "example.com", Login: "a", Created: old, Expires: old.Add(72 * time.Hour)},
		{ID: "offered-old", Owner: "U0ADA", Requester: "U0REQ", Action: commands.ActionAddMailbox, Domain: "example.com", Login: "b", Created: old, Expires: old.Add(72 * time.Hour)},
		{ID: "shown-new", Owner: "U0ADA", Requester: "U0REQ", Action: commands.ActionAddMailbox, Domain: "example.com", Login: "c", Created: now, Expires: now.Add(72 * time.Hour)},
	} {
		if _, err := s.OfferHandover(t.Context(), h); err != nil {
			t.Fatal(err)
		}
		if h.ID != "offered-old" {
			if _, res, err := s.ClaimHandover(t.Context(), h, h.Created); err != nil || res != commands.ClaimTaken {
				t.Fatalf("claim %s: %d, %v", h.ID, res, err)
			}
			if err := s.ShownHandover(t.Context(), h.ID, h.Created); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := s.Prune(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"shown-old": false, "offered-old": true, "shown-new": true} {
		if _, ok, err := s.GetHandover(t.Context(), id); err != nil || ok != want {
			t.Errorf("after Prune, %s kept: %v (%v); want %v", id, ok, err, want)
		}
	}
}
