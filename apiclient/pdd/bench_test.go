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
		if _, err := e.c.AddMailbox(ctx, "example.com", fmt.Sprintf("user%d", i), password); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegisterDomainParallel measures throughput from many goroutines
// sharing one client.
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
