package pgstore_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// BenchmarkApproveTwoReplicas measures the decision's latency: one
// request at a time, clicked by four admins at once, two on each of two
// Stores (replicas) on one database. It reports the p50 and p99 of every
// Approve call and of the winning one (the click that runs the
// operation).
func BenchmarkApproveTwoReplicas(b *testing.B) {
	dsn := pgtest.NewDatabase(b)
	stores := []commands.Store{open(b, dsn), open(b, dsn)}
	const clickers = 4
	var mu sync.Mutex
	var all, winners []time.Duration
	now, i := time.Now(), 0
	for b.Loop() {
		b.StopTimer()
		i++
		p := pending(fmt.Sprint(i), now)
		if err := stores[0].Submit(b.Context(), p); err != nil {
			b.Fatal(err)
		}
		runs := 0
		start := make(chan struct{})
		var wg sync.WaitGroup
		for c := range clickers {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				_, res, err := stores[c%2].Approve(b.Context(), p, fmt.Sprintf("U0ADMIN%d", c), 1, now)
				d := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					b.Error(err)
				}
				all = append(all, d)
				if res == commands.ApproveRun {
					runs++
					winners = append(winners, d)
				}
			})
		}
		b.StartTimer()
		close(start)
		wg.Wait()
		if runs != 1 {
			b.Fatalf("request %d ran %d times", i, runs)
		}
	}
	report(b, "all", all)
	report(b, "run", winners)
}

// report reports the p50 and p99 of ds in milliseconds.
func report(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(int(q*float64(len(ds))), len(ds)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}

// BenchmarkSubmit measures recording a new request.
func BenchmarkSubmit(b *testing.B) {
	s := open(b, pgtest.NewDatabase(b))
	now, i := time.Now(), 0
	for b.Loop() {
		i++
		if err := s.Submit(b.Context(), pending(fmt.Sprint(i), now)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditBeginComplete measures the two writes around a PDD call.
func BenchmarkAuditBeginComplete(b *testing.B) {
	s := open(b, pgtest.NewDatabase(b))
	e := commands.AuditEntry{Event: commands.EventRun, Actor: "U0REQUESTER", Action: commands.ActionAddMailbox,
		Domain: "example.com", Login: "ada.lovelace"}
	for b.Loop() {
		id, err := s.Begin(b.Context(), e)
		if err == nil {
			err = s.Complete(b.Context(), id, commands.AuditEntry{Outcome: commands.OutcomeOK, UID: "42"})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHistory measures what a call costs as the history grows: at
// 100 decided requests and 1k audit entries, and at a year of use (100k
// and 1M), with 300 pending requests in both. "sweep" is one sweep pass
// with nothing due (the three claims and the retention, which is a no-op
// within its hour); "home" the Home tab's reads (the pending requests, all
// and one requester's, and the latest entries); "approve" one Approve
// that runs a new request.
//
//	go test -run XXX -bench History -benchtime 2s ./commands/pgstore
func BenchmarkHistory(b *testing.B) {
	now := time.Now()
	// The retention with nothing due: every pruning after the first.
	pruneAt := now.Add(-365 * 24 * time.Hour)
	sizes := []struct {
		name string
		h    pgtest.History
		s    *pgstore.Store
	}{
		{"1k", pgtest.History{Decided: 100, Pending: 300, Audit: 1000}, nil},
		{"1M", year, nil},
	}
	for i := range sizes {
		dsn := pgtest.NewDatabase(b)
		sizes[i].s = open(b, dsn)
		if err := pgtest.FillHistory(b.Context(), dsn, sizes[i].h, now); err != nil {
			b.Fatal(err)
		}
	}
	ctx := b.Context()
	ops := []struct {
		name string
		call func(s *pgstore.Store, i int) error
	}{
		{"sweep", func(s *pgstore.Store, _ int) error {
			_, err1 := s.ClaimExpired(ctx, now, 50)
			_, err2 := s.ClaimReminders(ctx, now.Add(-time.Hour), now, 50)
			_, err3 := s.ClaimStale(ctx, now.Add(-commands.StaleRun), "stale", 50)
			_, _, err4 := s.Prune(ctx, pruneAt)
			return errors.Join(err1, err2, err3, err4)
		}},
		{"home", func(s *pgstore.Store, _ int) error {
			_, err1 := s.Pending(ctx, "", commands.HomeLimit)
			_, err2 := s.Pending(ctx, "U0REQ7", commands.HomeLimit)
			_, err3 := s.Audit(ctx, time.Time{}, commands.HomeLimit, true)
			return errors.Join(err1, err2, err3)
		}},
		{"approve", func(s *pgstore.Store, i int) error {
			_, _, err := s.Approve(ctx, pending(fmt.Sprint("bench-", i), now), "U0ADA", 1, now)
			return err
		}},
	}
	// Each call at both sizes one after the other, so that both meet the
	// same load on the machine.
	for _, op := range ops {
		for _, size := range sizes {
			b.Run(op.name+"/"+size.name, func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					if err := op.call(size.s, i); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
