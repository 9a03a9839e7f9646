package mailcow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mailbot/mailbot/apiclient/mailcow"
)

// BenchmarkOperations is one round trip per operation to the sandbox over
// HTTPS on loopback (the connection kept alive); list reads a domain of
// 100 mailboxes and returns a page of 50.
func BenchmarkOperations(b *testing.B) {
	ops := []struct {
		name string
		run  func(ctx context.Context, c *mailcow.Client, i int) error
	}{
		{"register", func(ctx context.Context, c *mailcow.Client, i int) error {
			_, err := c.RegisterDomain(ctx, fmt.Sprintf("d%d.example", i))
			return err
		}},
		{"status", func(ctx context.Context, c *mailcow.Client, _ int) error {
			_, err := c.DomainStatus(ctx, "example.com")
			return err
		}},
		{"dns", func(ctx context.Context, c *mailcow.Client, _ int) error {
			_, err := c.MailDNS(ctx, "example.com")
			return err
		}},
		{"add", func(ctx context.Context, c *mailcow.Client, i int) error {
			_, err := c.AddMailbox(ctx, "big.example", fmt.Sprintf("u%d", i), password, true)
			return err
		}},
		{"reset", func(ctx context.Context, c *mailcow.Client, _ int) error {
			_, err := c.SetPassword(ctx, "example.com", "taken", password, false)
			return err
		}},
		{"block", func(ctx context.Context, c *mailcow.Client, i int) error {
			_, err := c.SetLoginEnabled(ctx, "example.com", "taken", i%2 == 0)
			return err
		}},
		{"lookup", func(ctx context.Context, c *mailcow.Client, _ int) error {
			_, err := c.LookupMailbox(ctx, "example.com", "taken")
			return err
		}},
		{"list100", func(ctx context.Context, c *mailcow.Client, _ int) error {
			_, err := c.ListMailboxes(ctx, "list.example", "", 50)
			return err
		}},
		{"check", func(ctx context.Context, c *mailcow.Client, _ int) error {
			return c.Check(ctx)
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			e := setup(b)
			if op.name == "list100" {
				e.sim.AddMailboxes("list.example", 100)
			}
			e.sim.SetMailboxLimit("big.example", 1<<20) // room for every add
			ctx := b.Context()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if err := op.run(ctx, e.c, i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
