package google_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mailbot/mailbot/apiclient/google"
)

// BenchmarkOperations is one round trip per operation to the sandbox over
// HTTPS on loopback (the connection kept alive, the token fetched once);
// list reads a page of 50 of a domain of 100 users. It reports the token
// requests of the whole run, which must stay at 1.
func BenchmarkOperations(b *testing.B) {
	ops := []struct {
		name string
		run  func(ctx context.Context, c *google.Client, i int) error
	}{
		{"register", func(ctx context.Context, c *google.Client, i int) error {
			_, err := c.RegisterDomain(ctx, fmt.Sprintf("d%d.example", i))
			return err
		}},
		{"status", func(ctx context.Context, c *google.Client, _ int) error {
			_, err := c.DomainStatus(ctx, "example.com")
			return err
		}},
		{"dns", func(ctx context.Context, c *google.Client, _ int) error {
			_, err := c.MailDNS(ctx, "example.com")
			return err
		}},
		{"add", func(ctx context.Context, c *google.Client, i int) error {
			_, err := c.AddMailbox(ctx, "example.com", fmt.Sprintf("u%d", i), password, true)
			return err
		}},
		{"reset", func(ctx context.Context, c *google.Client, _ int) error {
			_, err := c.SetPassword(ctx, "example.com", "user0001", password, false)
			return err
		}},
		{"block", func(ctx context.Context, c *google.Client, i int) error {
			_, err := c.SetLoginEnabled(ctx, "example.com", "user0001", i%2 == 0)
			return err
		}},
		{"lookup", func(ctx context.Context, c *google.Client, _ int) error {
			_, err := c.LookupMailbox(ctx, "example.com", "user0001")
			return err
		}},
		{"list100", func(ctx context.Context, c *google.Client, _ int) error {
			_, err := c.ListMailboxes(ctx, "example.com", "", 50)
			return err
		}},
		{"check", func(ctx context.Context, c *google.Client, _ int) error {
			return c.Check(ctx)
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			e := setup(b)
			e.sim.AddMailboxes("example.com", 100)
			ctx := b.Context()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if err := op.run(ctx, e.c, i); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(e.sim.TokenRequests()), "token-requests/run")
		})
	}
}
