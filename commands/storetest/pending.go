package storetest

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// testSubmitOnePending: while a request of an action on a target is
// pending (and not past its expiry), a second one of the same action on
// the same target is refused with a *commands.PendingExistsError naming
// the first, and not recorded; another action, another target, or the
// same once the first is decided or past its expiry is recorded.
func testSubmitOnePending(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	first := request("r1", now)
	submit(t, s, first)
	second := first
	second.ID, second.Requester, second.Created = "r2", "U0SOMEONEELSE", now.Add(time.Minute)
	err := s.Submit(t.Context(), second)
	var pe *commands.PendingExistsError
	if !errors.As(err, &pe) || pe.ID != first.ID {
		t.Fatalf("Submit of a second pending add of the same mailbox = %v, want a PendingExistsError naming %s", err, first.ID)
	}
	if _, ok, err := s.Get(t.Context(), second.ID); ok || err != nil {
		t.Errorf("the refused request was recorded (ok %v, %v)", ok, err)
	}
	other := second
	other.ID, other.Op.Action = "r3", commands.ActionResetPassword
	submit(t, s, other)
	if _, ended, err := s.End(t.Context(), first, commands.StateCancelled, first.Requester, now.Add(time.Minute)); !ended || err != nil {
		t.Fatalf("End(r1) = %v, %v", ended, err)
	}
	second.ID = "r4"
	submit(t, s, second)
	late := other
	late.ID, late.Created, late.Expires = "r5", other.Expires, other.Expires.Add(24*time.Hour)
	submit(t, s, late) // r3 is pending but at its expiry: it no longer counts
}

// testSubmitOnePendingConcurrent: of several submits of the same action
// on the same target at once, on one replica or several, exactly one is
// recorded.
func testSubmitOnePendingConcurrent(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	stores := replicas(t, s, 2)
	now := clock()
	var ok atomic.Int64
	const n = 8
	together(n, func(i int) {
		p := request("c0", now)
		p.ID = "c" + string(rune('a'+i))
		if err := stores[i%len(stores)].Submit(t.Context(), p); err == nil {
			ok.Add(1)
		} else if !errors.As(err, new(*commands.PendingExistsError)) {
			t.Errorf("Submit(%s) = %v, want nil or a PendingExistsError", p.ID, err)
		}
	})
	if got := ok.Load(); got != 1 {
		t.Errorf("%d of %d concurrent submits of one target were recorded, want 1", got, n)
	}
}
