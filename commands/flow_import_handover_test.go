package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// storeAndImports is a store that keeps imports, as both stores do.
type storeAndImports interface {
	commands.Store
	commands.ImportStore
}

// dyingStore stands for a process killed right after a row's owner got
// their direct message and before the row's outcome was recorded: the
// first FinishRow of row dieAt fails and stops the run.
type dyingStore struct {
	storeAndImports
	dieAt int
	mu    sync.Mutex
	died  bool
	kill  context.CancelFunc
}

func (s *dyingStore) FinishRow(ctx context.Context, id string, i int, runner string, to commands.RowState, detail string) error {
	s.mu.Lock()
	die := i == s.dieAt && !s.died
	s.died = s.died || die
	s.mu.Unlock()
	if die {
		s.kill()
		return errors.New("killed")
	}
	return s.storeAndImports.FinishRow(ctx, id, i, runner, to, detail)
}

// staleImport saves in store an import of three rows owned by UADA whose
// runner's lease has gone stale, as a stop leaves it, and returns its ID.
func staleImport(t *testing.T, e *env, store storeAndImports) string {
	t.Helper()
	d, errs := e.importRows(admin1, "first@example.com,UADA\nsecond@example.com,UADA\nthird@example.com,UADA", "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if err := store.SaveImport(t.Context(), *d.Import); err != nil {
		t.Fatal(err)
	}
	now := e.clk.Now()
	if _, ok, err := store.LeaseImport(t.Context(), d.Import.ID, "earlier", now, now.Add(-time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	e.clk.Advance(time.Minute)
	return d.Import.ID
}

// An import cut off between a row owner's direct message and recording
// the row: the resumed import finds the mailbox and does not post that
// owner a second Show my password.
func TestImportHandoverPostedOnceAcrossAStop(t *testing.T) {
	api := newMailboxes()
	var dying *dyingStore
	e := newEnv(t, api, commands.Config{People: emailPeople{directory()}, Domains: []string{"example.com"}, ImportConcurrency: 1},
		func(s commands.Store) commands.Store {
			dying = &dyingStore{storeAndImports: s.(storeAndImports), dieAt: 1}
			return dying
		})
	id := staleImport(t, e, dying)
	ctx := t.Context()
	runCtx, kill := context.WithCancel(ctx)
	dying.kill = kill
	e.core.Sweep(runCtx) // runs rows 0 and 1, and dies recording row 1
	if got := len(e.msgr.handoverCalls("offer")); got != 2 {
		t.Fatalf("before the stop: %d hand-overs offered, want 2 (rows 0 and 1)", got)
	}
	e.clk.Advance(time.Minute)
	e.core.Sweep(ctx) // resumes: row 1 is found at the provider
	if rec, _, _ := dying.GetImport(ctx, id); rec.State != commands.ImportDone {
		t.Fatalf("import %s after the resume", rec.State)
	}
	offers := e.msgr.handoverCalls("offer")
	seen := map[string]int{}
	for _, o := range offers {
		seen[o.View.Handover.Target()]++
	}
	if len(offers) != 3 || seen["second@example.com"] != 1 {
		t.Errorf("hand-overs posted: %v; want each of the three rows' once", seen)
	}
}

// An import's Show button for its rows without an owner sets no password
// on a mailbox that a later reset handed to someone else: the mailbox
// follows its latest owner, and the requester is told which was left out.
func TestImportShowLeavesOutAMailboxHandedOnSince(t *testing.T) {
	api := newMailboxes()
	e := importEnv(t, api, commands.Config{})
	d, errs := e.importRows(admin1, "kept@example.com\nmoved@example.com", "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	e.core.Execute(t.Context(), commands.Route{User: admin1, Channel: "C1"}, d)
	bundle := offered(t, e)
	e.clk.Advance(time.Minute)
	if _, label := e.typed(admin1, "/mailbox reset moved@example.com for <@UADA|ada> new owner"); label != commands.LabelOK {
		t.Fatalf("reset for @ada: %q", label)
	}
	mark := e.msgr.mark()
	if got := e.show(bundle, admin1); got != commands.LabelShown {
		t.Fatalf("the requester's Show: %q", got)
	}
	var shown, said []string
	for _, c := range e.msgr.since(mark) {
		for _, f := range c.Reply.Fields {
			if !f.Secret && f.Label == "Address" {
				shown = append(shown, f.Value)
			}
		}
		said = append(said, c.Reply.Steps...)
	}
	if len(shown) != 1 || shown[0] != "kept@example.com" || api.sets["moved@example.com"] != 1 {
		t.Errorf("passwords shown for %v, moved@ set %d times; want kept@ alone, moved@ set only by its reset", shown, api.sets["moved@example.com"])
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "moved@example.com: changed since the import") {
		t.Errorf("the requester was told %q; want that moved@example.com was left out", said)
	}
}

// offerDyingStore stops the process, as a kill would, right after it
// recorded the hand-over of target and before its message is posted.
type offerDyingStore struct {
	storeAndImports
	target string
	kill   context.CancelFunc
	mu     sync.Mutex
	died   bool
	back   bool // the process after the stop
}

// Durable: as a database is, whose refusal to record a hand-over keeps it
// from being posted.
func (s *offerDyingStore) Durable() bool { return true }

// FinishRow records nothing once the process died.
func (s *offerDyingStore) FinishRow(ctx context.Context, id string, i int, runner string, to commands.RowState, detail string) error {
	s.mu.Lock()
	dead := s.died && !s.back
	s.mu.Unlock()
	if dead {
		return errors.New("killed")
	}
	return s.storeAndImports.FinishRow(ctx, id, i, runner, to, detail)
}

func (s *offerDyingStore) OfferHandover(ctx context.Context, h commands.Handover) ([]commands.HandoverRecord, error) {
	voided, err := s.storeAndImports.OfferHandover(ctx, h)
	s.mu.Lock()
	die := h.Target() == s.target && !s.died && err == nil
	s.died = s.died || die
	s.mu.Unlock()
	if die {
		s.kill()
		return nil, errors.New("killed")
	}
	return voided, err
}

// An import cut off between recording a row owner's hand-over and posting
// its direct message: the resumed import posts it, once, so that the owner
// is not left without a Show my password button.
func TestImportHandoverRecordedNotPostedIsPostedAfterAStop(t *testing.T) {
	api := newMailboxes()
	var dying *offerDyingStore
	e := newEnv(t, api, commands.Config{People: emailPeople{directory()}, Domains: []string{"example.com"}, ImportConcurrency: 1},
		func(s commands.Store) commands.Store {
			dying = &offerDyingStore{storeAndImports: s.(storeAndImports), target: "second@example.com"}
			return dying
		})
	staleImport(t, e, dying)
	ctx := t.Context()
	runCtx, kill := context.WithCancel(ctx)
	dying.kill = kill
	e.core.Sweep(runCtx) // runs row 0, and dies having recorded row 1's hand-over
	if got := len(e.msgr.handoverCalls("offer")); got != 1 {
		t.Fatalf("before the stop: %d hand-overs posted, want 1 (row 0)", got)
	}
	dying.mu.Lock()
	dying.back = true
	dying.mu.Unlock()
	e.clk.Advance(time.Minute)
	e.core.Sweep(ctx) // resumes: row 1 is found at the provider
	seen := map[string]int{}
	for _, o := range e.msgr.handoverCalls("offer") {
		seen[o.View.Handover.Target()]++
	}
	if seen["first@example.com"] != 1 || seen["second@example.com"] != 1 || seen["third@example.com"] != 1 {
		t.Errorf("hand-overs posted: %v; want each of the three rows' once", seen)
	}
}
