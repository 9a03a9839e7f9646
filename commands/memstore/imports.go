package memstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// maxImports bounds the imports kept: past it, the oldest done go first.
const maxImports = 1000

var _ commands.ImportStore = (*Store)(nil)

// SaveImport records imp with every row new.
func (s *Store) SaveImport(ctx context.Context, imp commands.Import) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.im == nil {
		s.im = map[string]*commands.ImportRecord{}
	}
	if _, ok := s.im[imp.ID]; ok {
		return fmt.Errorf("memstore: import %s exists", imp.ID)
	}
	if len(s.im) >= maxImports {
		s.forgetImports()
	}
	rec := &commands.ImportRecord{Import: imp, State: commands.ImportSaved, States: make([]commands.RowRecord, len(imp.Rows))}
	rec.Rows = slices.Clone(imp.Rows)
	for i, r := range imp.Rows {
		rec.States[i] = commands.RowRecord{ImportRow: r, State: commands.RowNew}
	}
	s.im[imp.ID] = rec
	return nil
}

// forgetImports drops the done imports, oldest first, to seven eighths
// of the bound.
func (s *Store) forgetImports() {
	var done []*commands.ImportRecord
	for _, r := range s.im {
		if r.State == commands.ImportDone {
			done = append(done, r)
		}
	}
	slices.SortFunc(done, func(a, b *commands.ImportRecord) int { return a.Done.Compare(b.Done) })
	for _, r := range done {
		if len(s.im) < maxImports*7/8 {
			return
		}
		delete(s.im, r.ID)
	}
}

// GetImport returns a copy of the import with the ID.
func (s *Store) GetImport(ctx context.Context, id string) (commands.ImportRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	if !ok {
		return commands.ImportRecord{}, false, nil
	}
	return copyImport(r), true, nil
}

func copyImport(r *commands.ImportRecord) commands.ImportRecord {
	c := *r
	c.Rows = slices.Clone(r.Rows)
	c.States = slices.Clone(r.States)
	return c
}

// LeaseImport gives runner the import's lease.
func (s *Store) LeaseImport(ctx context.Context, id, runner string, now, stale time.Time) (commands.ImportRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	switch {
	case !ok || r.State == commands.ImportDone:
		return commands.ImportRecord{}, false, nil
	case r.Runner != "" && r.Runner != runner && r.Renewed.After(stale):
		return copyImport(r), false, nil
	}
	r.State, r.Runner, r.Renewed = commands.ImportRunning, runner, now
	return copyImport(r), true, nil
}

// RenewImport renews runner's lease.
func (s *Store) RenewImport(ctx context.Context, id, runner string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	if !ok || r.Runner != runner || r.State != commands.ImportRunning {
		return false, nil
	}
	r.Renewed = now
	return true, nil
}

// ClaimRow claims row i for runner.
func (s *Store) ClaimRow(ctx context.Context, id string, i int, runner string) (commands.RowState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	if !ok || i < 0 || i >= len(r.States) {
		return "", fmt.Errorf("memstore: no row %d of import %s", i, id)
	}
	if r.Runner != runner || r.State != commands.ImportRunning {
		return "", fmt.Errorf("memstore: %s does not hold the lease of import %s", runner, id)
	}
	row := &r.States[i]
	switch {
	case row.State == commands.RowNew:
		row.State, row.Runner = commands.RowClaimed, runner
		return commands.RowNew, nil
	case row.State == commands.RowClaimed && row.Runner != runner:
		row.Runner = runner
		return commands.RowClaimed, nil
	case row.State == commands.RowClaimed:
		return "", fmt.Errorf("memstore: row %d of import %s is claimed by %s already", i, id, runner)
	}
	return row.State, nil
}

// FinishRow records the outcome of runner's claimed row i.
func (s *Store) FinishRow(ctx context.Context, id string, i int, runner string, to commands.RowState, detail string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	if !ok || i < 0 || i >= len(r.States) {
		return fmt.Errorf("memstore: no row %d of import %s", i, id)
	}
	row := &r.States[i]
	if row.State != commands.RowClaimed || row.Runner != runner || !to.Final() {
		return fmt.Errorf("memstore: row %d of import %s is not claimed by %s", i, id, runner)
	}
	row.State, row.Detail = to, detail
	return nil
}

// AttachImport records where the import's messages are.
func (s *Store) AttachImport(ctx context.Context, id string, progress, notice commands.MessageRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	if !ok {
		return fmt.Errorf("memstore: no import %s", id)
	}
	r.Progress, r.Notice = progress, notice
	return nil
}

// FinishImport marks runner's import done, once.
func (s *Store) FinishImport(ctx context.Context, id, runner string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.im[id]
	if !ok || r.State != commands.ImportRunning || r.Runner != runner {
		return false, nil
	}
	for _, row := range r.States {
		if !row.State.Final() {
			return false, nil
		}
	}
	r.State, r.Done = commands.ImportDone, now
	return true, nil
}

// StaleImports lists running imports whose lease is stale.
func (s *Store) StaleImports(ctx context.Context, stale time.Time, limit int) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, r := range s.im {
		if len(ids) < limit && r.State == commands.ImportRunning && !r.Renewed.After(stale) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
