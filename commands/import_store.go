package commands

import (
	"context"
	"time"
)

// ImportStore keeps imports and their rows, so that an import cut off
// by a restart resumes, on any replica, with no row run twice. A Store
// that implements it can run imports; memstore and pgstore do. It holds
// no secret.
//
// An import is run by one runner at a time, under a lease renewed while
// it runs; each row is claimed by compare-and-set before it runs and its
// outcome recorded after.
type ImportStore interface {
	// SaveImport records imp with every row new. An import with the
	// same ID is an error.
	SaveImport(ctx context.Context, imp Import) error
	// GetImport returns the import with the ID and its rows' states.
	GetImport(ctx context.Context, id string) (rec ImportRecord, ok bool, err error)
	// LeaseImport gives runner the import's lease at now when it is not
	// done and nobody holds it, runner holds it already, or its holder's
	// last renewal is at or before stale. ok is false, nothing changed,
	// otherwise. Of concurrent calls, at most one gets a lease.
	LeaseImport(ctx context.Context, id, runner string, now, stale time.Time) (ImportRecord, bool, error)
	// RenewImport renews runner's lease at now; false when runner no
	// longer holds it.
	RenewImport(ctx context.Context, id, runner string, now time.Time) (bool, error)
	// ClaimRow claims row i (from 0) of the import for runner: a new row
	// becomes claimed (RowNew is returned: run it); a row claimed by
	// another runner is taken over (RowClaimed is returned: its answer may
	// have been lost, look it up first); a finished row is left as it is
	// (its state is returned). Only the lease's holder may claim.
	ClaimRow(ctx context.Context, id string, i int, runner string) (RowState, error)
	// FinishRow records the outcome of runner's claimed row i: its final
	// state and, on failure, the reason in words (no secret).
	FinishRow(ctx context.Context, id string, i int, runner string, to RowState, detail string) error
	// AttachImport records where the import's progress message and ops
	// notice are.
	AttachImport(ctx context.Context, id string, progress, notice MessageRef) error
	// FinishImport marks runner's import done at now; ok is true for
	// one call only, ever: that caller sends the summary.
	FinishImport(ctx context.Context, id, runner string, now time.Time) (bool, error)
	// StaleImports lists running imports (leased once, not done) whose
	// lease was last renewed at or before stale, at most limit. A saved
	// import, never leased, waits for its approval and is not listed.
	StaleImports(ctx context.Context, stale time.Time, limit int) ([]string, error)
}

// RowState is where a row of an import is: new → claimed → created,
// existing or failed.
type RowState string

// The states of a row.
const (
	RowNew      RowState = "new"
	RowClaimed  RowState = "claimed"
	RowCreated  RowState = "created"  // created by this import (found after a lost answer too)
	RowExisting RowState = "existing" // the mailbox existed before: nothing was done
	RowFailed   RowState = "failed"
)

// Final reports whether the row has its outcome.
func (s RowState) Final() bool { return s == RowCreated || s == RowExisting || s == RowFailed }

// ImportState is where an import is: saved → running → done.
type ImportState string

// The states of an import.
const (
	ImportSaved   ImportState = "saved"
	ImportRunning ImportState = "running"
	ImportDone    ImportState = "done"
)

// RowRecord is a row as the store keeps it.
type RowRecord struct {
	ImportRow
	State  RowState
	Runner string
	Detail string // why it failed, in words
}

// ImportRecord is an import as the store keeps it.
type ImportRecord struct {
	Import
	State    ImportState
	Runner   string
	Renewed  time.Time
	Done     time.Time
	Progress MessageRef // the requester's progress message
	Notice   MessageRef // the ops notice
	States   []RowRecord
}
