package pdd_test

import (
	"fmt"
	"testing"
)

// BenchmarkRegisterDomain is one register round trip to the sandbox over
// loopback (the owner registering again), over HTTP and HTTPS.
func BenchmarkRegisterDomain(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			e := setup(b, tr.tls)
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.c.RegisterDomain(ctx, "example.com"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAddMailbox creates a new mailbox per round trip over HTTP.
func BenchmarkAddMailbox(b *testing.B) {
	e := setup(b, false)
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := e.c.AddMailbox(ctx, "example.com", fmt.Sprintf("user%d", i), password, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegisterDomainParallel measures throughput from many goroutines
// sharing one adapter.
func BenchmarkRegisterDomainParallel(b *testing.B) {
	e := setup(b, false)
	ctx := b.Context()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.c.RegisterDomain(ctx, "example.com"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAdapter is one call of each operation of the adapter to the
// sandbox over HTTPS on loopback, retries off.
func BenchmarkAdapter(b *testing.B) {
	e := newAdapterEnv(b)
	e.sim.AddMailboxes("example.com", 60)
	ctx := b.Context()
	i := 0
	ops := []struct {
		name string
		fn   func() error
	}{
		{"register", func() error { _, err := e.a.RegisterDomain(ctx, "example.com"); return err }},
		{"status", func() error { _, err := e.a.DomainStatus(ctx, "example.com"); return err }},
		{"add", func() error {
			i++
			_, err := e.a.AddMailbox(ctx, "example.com", fmt.Sprintf("bench%d", i), password, false)
			return err
		}},
		{"reset", func() error { _, err := e.a.SetPassword(ctx, "example.com", "user0001", password, false); return err }},
		{"block", func() error { _, err := e.a.SetLoginEnabled(ctx, "example.com", "user0001", false); return err }},
		{"lookup", func() error { _, err := e.a.LookupMailbox(ctx, "example.com", "user0060"); return err }},
		{"list", func() error { _, err := e.a.ListMailboxes(ctx, "example.com", "", 30); return err }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := op.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
