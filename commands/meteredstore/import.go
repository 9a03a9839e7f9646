package meteredstore

import (
	"context"
	"errors"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// The import methods of the metered store: both of mailbot's stores keep
// imports.

var errNoImports = errors.New("this store keeps no imports")

func (s *Store) imports() (commands.ImportStore, error) {
	is, ok := s.st.(commands.ImportStore)
	if !ok {
		return nil, errNoImports
	}
	return is, nil
}

func (s *Store) SaveImport(ctx context.Context, imp commands.Import) error {
	is, err := s.imports()
	if err != nil {
		return err
	}
	return s.seen(is.SaveImport(ctx, imp))
}

func (s *Store) GetImport(ctx context.Context, id string) (commands.ImportRecord, bool, error) {
	is, err := s.imports()
	if err != nil {
		return commands.ImportRecord{}, false, err
	}
	rec, ok, err := is.GetImport(ctx, id)
	return rec, ok, s.seen(err)
}

func (s *Store) LeaseImport(ctx context.Context, id, runner string, now, stale time.Time) (commands.ImportRecord, bool, error) {
	is, err := s.imports()
	if err != nil {
		return commands.ImportRecord{}, false, err
	}
	rec, ok, err := is.LeaseImport(ctx, id, runner, now, stale)
	return rec, ok, s.seen(err)
}

func (s *Store) RenewImport(ctx context.Context, id, runner string, now time.Time) (bool, error) {
	is, err := s.imports()
	if err != nil {
		return false, err
	}
	ok, err := is.RenewImport(ctx, id, runner, now)
	return ok, s.seen(err)
}

func (s *Store) ClaimRow(ctx context.Context, id string, i int, runner string) (commands.RowState, error) {
	is, err := s.imports()
	if err != nil {
		return "", err
	}
	st, err := is.ClaimRow(ctx, id, i, runner)
	return st, s.seen(err)
}

func (s *Store) FinishRow(ctx context.Context, id string, i int, runner string, to commands.RowState, detail string) error {
	is, err := s.imports()
	if err != nil {
		return err
	}
	return s.seen(is.FinishRow(ctx, id, i, runner, to, detail))
}

func (s *Store) AttachImport(ctx context.Context, id string, progress, notice commands.MessageRef) error {
	is, err := s.imports()
	if err != nil {
		return err
	}
	return s.seen(is.AttachImport(ctx, id, progress, notice))
}

func (s *Store) FinishImport(ctx context.Context, id, runner string, now time.Time) (bool, error) {
	is, err := s.imports()
	if err != nil {
		return false, err
	}
	ok, err := is.FinishImport(ctx, id, runner, now)
	return ok, s.seen(err)
}

func (s *Store) StaleImports(ctx context.Context, stale time.Time, limit int) ([]string, error) {
	is, err := s.imports()
	if err != nil {
		return nil, err
	}
	ids, err := is.StaleImports(ctx, stale, limit)
	return ids, s.seen(err)
}

var _ commands.ImportStore = (*Store)(nil)
