package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// pending returns a request created at now, expiring a day later.
func pending(id string, now time.Time) commands.Pending {
	return commands.Pending{ID: id, Requester: "U0REQUESTER", Channel: "C0HELPDESK",
		Op:      commands.Operation{Action: commands.ActionAddMailbox, Domain: "example.com", Login: "ada.lovelace." + id},
		Created: now, Expires: now.Add(24 * time.Hour)}
}

// waitUp polls s until it answers, for up to 20 s.
func waitUp(t *testing.T, s *pgstore.Store) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, "the store to answer again after the database's return",
		func() bool { return s.Ping(t.Context()) == nil })
}

func TestOutage(t *testing.T) {
	proxy := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	a := open(t, proxy.DSN(), pgstore.WithCallTimeout(5*time.Second))
	b := open(t, proxy.DSN(), pgstore.WithCallTimeout(5*time.Second))
	ctx, now := t.Context(), time.Now()
	ran, waiting := pending("ran-before", now), pending("waiting", now)
	if _, res, err := a.Approve(ctx, ran, "U0ADA", 1, now); err != nil || res != commands.ApproveRun {
		t.Fatalf("Approve before the outage = %v, %v", res, err)
	}
	if err := a.Submit(ctx, waiting); err != nil {
		t.Fatal(err)
	}
	id, err := a.Begin(ctx, commands.AuditEntry{Event: commands.EventRun, RequestID: ran.ID})
	if err != nil {
		t.Fatal(err)
	}

	proxy.Cut()
	calls := map[string]func(s *pgstore.Store) error{
		"Ping":   func(s *pgstore.Store) error { return s.Ping(ctx) },
		"Submit": func(s *pgstore.Store) error { return s.Submit(ctx, pending("new", now)) },
		"Attach": func(s *pgstore.Store) error {
			return s.Attach(ctx, waiting.ID, commands.MessageRef{Channel: "C", TS: "1"})
		},
		"Get": func(s *pgstore.Store) error { _, _, err := s.Get(ctx, waiting.ID); return err },
		"Approve": func(s *pgstore.Store) error {
			_, _, err := s.Approve(ctx, waiting, "U0BOB", 1, now)
			return err
		},
		"End": func(s *pgstore.Store) error {
			_, _, err := s.End(ctx, waiting, commands.StateDenied, "U0BOB", now)
			return err
		},
		"Finish":         func(s *pgstore.Store) error { return s.Finish(ctx, ran.ID, commands.StateDone, "ok", now) },
		"Pending":        func(s *pgstore.Store) error { _, err := s.Pending(ctx, "", 0); return err },
		"ClaimExpired":   func(s *pgstore.Store) error { _, err := s.ClaimExpired(ctx, now.Add(48*time.Hour), 0); return err },
		"ClaimReminders": func(s *pgstore.Store) error { _, err := s.ClaimReminders(ctx, now, now, 0); return err },
		"Begin": func(s *pgstore.Store) error {
			_, err := s.Begin(ctx, commands.AuditEntry{Event: commands.EventRun})
			return err
		},
		"Complete": func(s *pgstore.Store) error { return s.Complete(ctx, id, commands.AuditEntry{Outcome: "ok"}) },
		"AppendAudit": func(s *pgstore.Store) error {
			return s.AppendAudit(ctx, commands.AuditEntry{Event: commands.EventDenied})
		},
		"Audit": func(s *pgstore.Store) error { _, err := s.Audit(ctx, time.Time{}, 0, false); return err },
	}
	for name, call := range calls {
		for i, s := range []*pgstore.Store{a, b} {
			if err := call(s); !errors.Is(err, commands.ErrStoreUnavailable) {
				t.Errorf("%s on replica %d during the outage = %v, want ErrStoreUnavailable", name, i, err)
			}
		}
	}

	proxy.Restore()
	waitUp(t, a)
	waitUp(t, b)
	// Nothing ran twice, nothing changed during the outage, and the
	// waiting request is decided now, once.
	if _, res, err := b.Approve(ctx, ran, "U0BOB", 1, now); err != nil || res != commands.ApproveClosed {
		t.Errorf("Approve after the outage of the request run before = %v, %v; want closed", res, err)
	}
	if rec, _, err := b.Get(ctx, waiting.ID); err != nil || rec.State != commands.StatePending || !rec.Message.IsZero() {
		t.Errorf("the waiting request after the outage: %+v, %v; want pending as before", rec, err)
	}
	if _, res, err := b.Approve(ctx, waiting, "U0BOB", 1, now); err != nil || res != commands.ApproveRun {
		t.Errorf("Approve after the outage = %v, %v; want run", res, err)
	}
	if _, res, err := a.Approve(ctx, waiting, "U0CYD", 1, now); err != nil || res != commands.ApproveClosed {
		t.Errorf("a second Approve after the outage = %v, %v; want closed", res, err)
	}
}

func TestOutageDuringApprovals(t *testing.T) {
	proxy := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	stores := []*pgstore.Store{
		open(t, proxy.DSN(), pgstore.WithCallTimeout(3*time.Second)),
		open(t, proxy.DSN(), pgstore.WithCallTimeout(3*time.Second)),
	}
	now := time.Now()
	const requests, clickers = 12, 4
	var reqs []commands.Pending
	for i := range requests {
		p := pending(fmt.Sprintf("r%02d", i), now)
		if err := stores[0].Submit(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, p)
	}
	var runs [requests]atomic.Int32
	var failed atomic.Int32
	firstRun := make(chan struct{})
	var onceRun sync.Once
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for r := range requests {
		for c := range clickers {
			wg.Go(func() {
				s := stores[c%2]
				for ctx.Err() == nil { // click until the click is answered
					_, res, err := s.Approve(ctx, reqs[r], fmt.Sprintf("U0ADMIN%d", c), 1, now)
					if err == nil {
						if res == commands.ApproveRun {
							runs[r].Add(1)
							onceRun.Do(func() { close(firstRun) })
						}
						return
					}
					if !errors.Is(err, commands.ErrStoreUnavailable) {
						t.Errorf("Approve during the outage: %v, want ErrStoreUnavailable", err)
						return
					}
					failed.Add(1)
				}
			})
		}
	}
	// Cut while the clicks are under way, and restore once a call has
	// failed.
	<-firstRun
	proxy.Cut()
	if err := stores[0].Ping(ctx); !errors.Is(err, commands.ErrStoreUnavailable) {
		t.Errorf("Ping during the outage = %v, want ErrStoreUnavailable", err)
	}
	proxy.Restore()
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the clicks did not all get an answer within 30 s")
	}
	for r := range requests {
		rec, _, err := stores[1].Get(t.Context(), reqs[r].ID)
		switch n := runs[r].Load(); {
		case err != nil:
			t.Errorf("%s: %v", reqs[r].ID, err)
		case n > 1:
			t.Errorf("%s ran %d times", reqs[r].ID, n)
		case rec.State != commands.StateRunning:
			t.Errorf("%s is %s, want running", reqs[r].ID, rec.State)
		case n == 0:
			// The commit happened and its answer was lost with the
			// connection: the request is running and nobody runs it.
			t.Logf("%s: the winning click's answer was lost in the outage; it ran nowhere", reqs[r].ID)
		}
	}
	t.Logf("%d clicks failed during the outage", failed.Load())
}
