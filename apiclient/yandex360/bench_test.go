package yandex360_test

import (
	"fmt"
	"testing"
)

// benchOps are the operations benchmarked, each one round trip or more
// over HTTPS to the sandbox (the organisation has 25 users, example.org
// and its default domain).
var benchOps = []struct {
	name string
	run  func(b *testing.B, e *env, i int) error
}{
	{"Check", func(b *testing.B, e *env, _ int) error { return e.c.Check(b.Context()) }},
	{"RegisterDomain", func(b *testing.B, e *env, i int) error {
		_, err := e.c.RegisterDomain(b.Context(), fmt.Sprintf("d%d.example", i))
		return err
	}},
	{"DomainStatus", func(b *testing.B, e *env, _ int) error {
		_, err := e.c.DomainStatus(b.Context(), "example.org")
		return err
	}},
	{"MailDNS", func(b *testing.B, e *env, _ int) error { _, err := e.c.MailDNS(b.Context(), "example.org"); return err }},
	{"AddMailbox", func(b *testing.B, e *env, i int) error {
		_, err := e.c.AddMailbox(b.Context(), "example.org", fmt.Sprintf("bench%d", i), password, true)
		return err
	}},
	{"SetPassword", func(b *testing.B, e *env, _ int) error {
		_, err := e.c.SetPassword(b.Context(), "example.org", "user0025", password, true)
		return err
	}},
	{"SetLoginEnabled", func(b *testing.B, e *env, i int) error {
		_, err := e.c.SetLoginEnabled(b.Context(), "example.org", "user0025", i%2 == 0)
		return err
	}},
	{"LookupMailbox", func(b *testing.B, e *env, _ int) error {
		_, err := e.c.LookupMailbox(b.Context(), "example.org", "user0025")
		return err
	}},
	{"ListMailboxes", func(b *testing.B, e *env, _ int) error {
		_, err := e.c.ListMailboxes(b.Context(), "example.org", "", 25)
		return err
	}},
}

// BenchmarkOperations measures each operation against the sandbox over
// HTTPS on loopback.
func BenchmarkOperations(b *testing.B) {
	for _, op := range benchOps {
		b.Run(op.name, func(b *testing.B) {
			e := setup(b)
			if err := e.sim.AddMailboxes("example.org", 25); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if err := op.run(b, e, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
