package meteredstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/commands/meteredstore"
	"github.com/mailbot/mailbot/internal/metrics"
)

// downStore is a memory store whose database is down while down is set:
// its reads fail as a store that cannot reach it does.
type downStore struct {
	*memstore.Store
	down bool
}

func (s *downStore) Get(ctx context.Context, id string) (commands.Record, bool, error) {
	if s.down {
		return commands.Record{}, false, fmt.Errorf("reading %s: %w", id, commands.ErrStoreUnavailable)
	}
	return s.Store.Get(ctx, id)
}

// TestDatabaseUp: mailbot_database_up is 0 until the store opens, 1 once
// it has, 0 after a call that could not reach the database and 1 again
// after one that could; the call's own answer passes through unchanged.
func TestDatabaseUp(t *testing.T) {
	t.Parallel()
	up := meteredstore.NewGauge(metrics.NewRegistry())
	if v := up.Value(); v != 0 {
		t.Fatalf("before the store opens: %v, want 0", v)
	}
	inner := &downStore{Store: memstore.New(memstore.Options{})}
	st := meteredstore.New(inner, up)
	if v := up.Value(); v != 1 {
		t.Fatalf("once the store opened: %v, want 1", v)
	}
	inner.down = true
	if _, _, err := st.Get(t.Context(), "abcdefghij"); !errors.Is(err, commands.ErrStoreUnavailable) {
		t.Fatalf("Get while down = %v, want the store's ErrStoreUnavailable", err)
	}
	if v := up.Value(); v != 0 {
		t.Errorf("after a call that could not reach the database: %v, want 0", v)
	}
	inner.down = false
	if _, ok, err := st.Get(t.Context(), "abcdefghij"); err != nil || ok {
		t.Fatalf("Get of an unknown request = %v, %v; want not found", ok, err)
	}
	if v := up.Value(); v != 1 {
		t.Errorf("after a call that reached the database: %v, want 1", v)
	}
}

// plainStore is a store that keeps no imports: only commands.Store's
// methods are promoted.
type plainStore struct{ commands.Store }

// TestImportsNeedAnImportStore: the import calls reach a store that keeps
// imports, and answer an error, leaving up as it was, for one that does
// not.
func TestImportsNeedAnImportStore(t *testing.T) {
	t.Parallel()
	up := meteredstore.NewGauge(metrics.NewRegistry())
	st := meteredstore.New(plainStore{memstore.New(memstore.Options{})}, up)
	if _, _, err := st.GetImport(t.Context(), "abcdefghij"); err == nil {
		t.Error("GetImport on a store without imports succeeded")
	}
	if v := up.Value(); v != 1 {
		t.Errorf("after a call the store could not take: %v, want 1", v)
	}
	withImports := meteredstore.New(memstore.New(memstore.Options{}), up)
	if _, ok, err := withImports.GetImport(t.Context(), "abcdefghij"); err != nil || ok {
		t.Errorf("GetImport of an unknown import = %v, %v; want not found", ok, err)
	}
}
