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

// importTests are the import cases of the suite, for a store that keeps
// imports (both of mailbot's do).
var importTests = []struct {
	name string
	fn   func(t *testing.T, open func(t *testing.T) commands.Store)
}{
	{"ImportSaveGet", testImportSaveGet},
	{"ImportLease", testImportLease},
	{"ImportRowsClaimedOnceAcrossReplicas", testImportClaimOnce},
	{"ImportResumeTakesOverClaims", testImportResume},
	{"ImportStale", testImportStale},
}

// importStore opens a store and fails the test when it keeps no imports.
func importStore(t *testing.T, open func(t *testing.T) commands.Store) (commands.Store, commands.ImportStore) {
	s := open(t)
	is, ok := s.(commands.ImportStore)
	if !ok {
		t.Fatalf("%T keeps no imports", s)
	}
	return s, is
}

func anImport(id string, n int, created time.Time) commands.Import {
	imp := commands.Import{ID: id, Requester: "U0REQUESTER", Channel: "C0HELPDESK", Reason: "new office", Digest: "d1g", Created: created}
	for i := range n {
		owner := ""
		if i%2 == 0 {
			owner = "U0ADA"
		}
		imp.Rows = append(imp.Rows, commands.ImportRow{Line: i + 2, Domain: "example.com", Login: fmt.Sprintf("user%04d", i), Owner: owner, Given: "Ада", Family: "O'Neil"})
	}
	return imp
}

func testImportSaveGet(t *testing.T, open func(t *testing.T) commands.Store) {
	_, is := importStore(t, open)
	ctx, now := t.Context(), clock()
	imp := anImport("imp1", 3, now)
	if err := is.SaveImport(ctx, imp); err != nil {
		t.Fatal(err)
	}
	if err := is.SaveImport(ctx, imp); err == nil {
		t.Error("a second import with the same ID was saved")
	}
	rec, ok, err := is.GetImport(ctx, "imp1")
	if err != nil || !ok {
		t.Fatalf("GetImport = %v, %v", ok, err)
	}
	if diff := cmp.Diff(imp, rec.Import, opts); diff != "" {
		t.Errorf("import read back (-saved +read):\n%s", diff)
	}
	if rec.State != commands.ImportSaved || len(rec.States) != 3 || rec.States[1].State != commands.RowNew {
		t.Errorf("a saved import: %s, rows %+v", rec.State, rec.States)
	}
	if _, ok, err := is.GetImport(ctx, "nope"); ok || err != nil {
		t.Errorf("GetImport(unknown) = %v, %v", ok, err)
	}
	if ids, err := is.StaleImports(ctx, now.Add(time.Hour), 10); err != nil || len(ids) != 0 {
		t.Errorf("a saved import, never leased (waiting for approval), is listed as stale: %v, %v", ids, err)
	}
	ref := commands.MessageRef{Channel: "D1", TS: "1.2"}
	if err := is.AttachImport(ctx, "imp1", ref, commands.MessageRef{Channel: "C1", TS: "3.4"}); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := is.GetImport(ctx, "imp1"); rec.Progress != ref || rec.Notice.TS != "3.4" {
		t.Errorf("attached messages read back as %+v, %+v", rec.Progress, rec.Notice)
	}
}

func testImportLease(t *testing.T, open func(t *testing.T) commands.Store) {
	_, is := importStore(t, open)
	ctx, now := t.Context(), clock()
	if err := is.SaveImport(ctx, anImport("imp1", 2, now)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := is.LeaseImport(ctx, "imp1", "r1", now, now.Add(-time.Minute)); !ok || err != nil {
		t.Fatalf("first lease: %v, %v", ok, err)
	}
	if _, ok, _ := is.LeaseImport(ctx, "imp1", "r2", now, now.Add(-time.Minute)); ok {
		t.Fatal("a fresh lease was taken by another runner")
	}
	if ok, err := is.RenewImport(ctx, "imp1", "r2", now); ok || err != nil {
		t.Errorf("a runner without the lease renewed it: %v, %v", ok, err)
	}
	if _, err := is.ClaimRow(ctx, "imp1", 0, "r2"); err == nil {
		t.Error("a runner without the lease claimed a row")
	}
	later := now.Add(2 * time.Minute)
	if _, ok, _ := is.LeaseImport(ctx, "imp1", "r2", later, later.Add(-time.Minute)); !ok {
		t.Fatal("a stale lease was not taken over")
	}
	if ok, _ := is.RenewImport(ctx, "imp1", "r1", later); ok {
		t.Error("the runner whose lease was taken over renewed it")
	}
	for i := range 2 {
		if st, err := is.ClaimRow(ctx, "imp1", i, "r2"); st != commands.RowNew || err != nil {
			t.Fatalf("ClaimRow(%d) = %s, %v", i, st, err)
		}
		if err := is.FinishRow(ctx, "imp1", i, "r2", commands.RowCreated, ""); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := is.FinishImport(ctx, "imp1", "r2", later); !ok || err != nil {
		t.Fatalf("FinishImport = %v, %v", ok, err)
	}
	if ok, _ := is.FinishImport(ctx, "imp1", "r2", later); ok {
		t.Error("an import finished twice")
	}
	if _, ok, _ := is.LeaseImport(ctx, "imp1", "r3", later.Add(time.Hour), later.Add(time.Minute)); ok {
		t.Error("a done import was leased")
	}
}

// testImportClaimOnce: runners on two replicas race for every row (each
// holding the lease in turn is not needed: the holder is one runner
// whose workers call from both replicas); each row is claimed once.
func testImportClaimOnce(t *testing.T, open func(t *testing.T) commands.Store) {
	s, is := importStore(t, open)
	ctx, now := t.Context(), clock()
	const n = 40
	if err := is.SaveImport(ctx, anImport("imp1", n, now)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := is.LeaseImport(ctx, "imp1", "r1", now, now.Add(-time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	stores := replicas(t, s, 2)
	var mu sync.Mutex
	won := map[int]int{}
	var wg sync.WaitGroup
	for w := range 4 {
		rs := stores[w%2].(commands.ImportStore)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				st, err := rs.ClaimRow(ctx, "imp1", i, "r1")
				if err == nil && st == commands.RowNew {
					mu.Lock()
					won[i]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if won[i] != 1 {
			t.Errorf("row %d claimed as new %d times, want once", i, won[i])
		}
	}
}

// testImportResume: a runner stops with rows claimed and one finished;
// the next runner finds the finished row final, takes the claimed ones
// over (RowClaimed: look them up) and claims the rest as new.
func testImportResume(t *testing.T, open func(t *testing.T) commands.Store) {
	_, is := importStore(t, open)
	ctx, now := t.Context(), clock()
	if err := is.SaveImport(ctx, anImport("imp1", 4, now)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := is.LeaseImport(ctx, "imp1", "dead", now, now.Add(-time.Minute)); !ok {
		t.Fatal("no lease")
	}
	for _, i := range []int{0, 1} {
		if _, err := is.ClaimRow(ctx, "imp1", i, "dead"); err != nil {
			t.Fatal(err)
		}
	}
	if err := is.FinishRow(ctx, "imp1", 0, "dead", commands.RowFailed, "the PDD API answered occupied"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := is.FinishImport(ctx, "imp1", "dead", now); ok {
		t.Fatal("an import with rows left was finished")
	}
	later := now.Add(time.Minute)
	if _, ok, _ := is.LeaseImport(ctx, "imp1", "next", later, now); !ok {
		t.Fatal("a lease last renewed at the stale mark was not taken over")
	}
	var got []commands.RowState
	for i := range 4 {
		st, err := is.ClaimRow(ctx, "imp1", i, "next")
		if err != nil {
			t.Fatalf("ClaimRow(%d): %v", i, err)
		}
		got = append(got, st)
	}
	want := []commands.RowState{commands.RowFailed, commands.RowClaimed, commands.RowNew, commands.RowNew}
	if !slices.Equal(got, want) {
		t.Errorf("claims after the resume = %v, want %v", got, want)
	}
	if err := is.FinishRow(ctx, "imp1", 0, "next", commands.RowCreated, ""); err == nil {
		t.Error("a finished row was finished again")
	}
	if rec, _, _ := is.GetImport(ctx, "imp1"); rec.States[0].Detail != "the PDD API answered occupied" {
		t.Errorf("row 0 detail = %q", rec.States[0].Detail)
	}
}

func testImportStale(t *testing.T, open func(t *testing.T) commands.Store) {
	_, is := importStore(t, open)
	ctx, now := t.Context(), clock()
	for i, id := range []string{"a", "b", "c"} {
		if err := is.SaveImport(ctx, anImport(id, 1, now)); err != nil {
			t.Fatal(err)
		}
		at := now.Add(time.Duration(i) * time.Minute)
		if _, ok, _ := is.LeaseImport(ctx, id, "r"+id, at, at.Add(-time.Minute)); !ok {
			t.Fatal("no lease")
		}
	}
	ids, err := is.StaleImports(ctx, now.Add(time.Minute), 10)
	if err != nil || !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("StaleImports = %v, %v; want a and b (renewed at or before the mark)", ids, err)
	}
	if ok, _ := is.RenewImport(ctx, "a", "ra", now.Add(5*time.Minute)); !ok {
		t.Fatal("renew failed")
	}
	if ids, _ := is.StaleImports(ctx, now.Add(time.Minute), 10); !slices.Equal(ids, []string{"b"}) {
		t.Errorf("after a's renewal: %v, want b", ids)
	}
}
