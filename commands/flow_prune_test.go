package commands_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// pruningStore is the memory store with a Prune that records its calls
// and answers err.
type pruningStore struct {
	commands.Store
	mu    sync.Mutex
	calls []time.Time
	err   error
}

func (p *pruningStore) Prune(ctx context.Context, now time.Time) (int64, int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, now)
	return 2, 3, p.err
}

// TestSweepPrunes checks that every sweep asks a store that prunes to do
// so, at the core's clock, and logs what it deleted or why it could not.
func TestSweepPrunes(t *testing.T) {
	t.Parallel()
	var ps *pruningStore
	e := newEnv(t, &fakeProvider{}, commands.Config{}, func(s commands.Store) commands.Store {
		ps = &pruningStore{Store: s}
		return ps
	})
	e.sweep(0, 0)
	e.clk.Advance(time.Minute)
	ps.err = errors.New("database away")
	e.sweep(0, 0)
	if len(ps.calls) != 2 || !ps.calls[0].Equal(start) || !ps.calls[1].Equal(start.Add(time.Minute)) {
		t.Errorf("Prune calls at %v, want one per sweep at the clock's time", ps.calls)
	}
	if n := e.logs.FilterMessage("old history deleted").Len(); n != 2 {
		t.Errorf("%d log lines of deleted history, want 2", n)
	}
	if n := e.logs.FilterMessage("old history not deleted: trying again later").Len(); n != 1 {
		t.Errorf("%d log lines of a failed pruning, want 1", n)
	}
}
