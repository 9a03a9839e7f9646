package providers

import (
	"context"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/metrics"
)

// statusProvider answers every status read with the same domain.
type statusProvider struct {
	commands.Provider
	d *apiclient.Domain
}

func (s statusProvider) DomainStatus(context.Context, string) (*apiclient.Domain, error) {
	return s.d, nil
}

// TestMeteredCallAllocatesNothing: counting and timing a successful call
// allocates nothing (its series are resolved once, not per call) and
// counts it under its operation's "ok".
func TestMeteredCallAllocatesNothing(t *testing.T) {
	m := NewMetrics(metrics.NewRegistry(), apiclient.ProviderPDD)
	p := m.Meter(statusProvider{d: &apiclient.Domain{Name: "example.com"}})
	ctx := t.Context()
	n := testing.AllocsPerRun(100, func() {
		if _, err := p.DomainStatus(ctx, "example.com"); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("a metered status read allocates %.0f times, want none", n)
	}
	ok := m.requests.WithLabelValues(apiclient.ProviderPDD, string(apiclient.OpDomainStatus), outcomeOK)
	if got := ok.Value(); got != 101 { // AllocsPerRun's warm-up run and its 100
		t.Errorf("status/ok = %v, want 101", got)
	}
}

// BenchmarkMeteredStatus is the metered wrapper's own cost of a status
// read: its series found, the call timed and counted.
func BenchmarkMeteredStatus(b *testing.B) {
	m := NewMetrics(metrics.NewRegistry(), apiclient.ProviderPDD)
	p := m.Meter(statusProvider{d: &apiclient.Domain{Name: "example.com"}})
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.DomainStatus(ctx, "example.com"); err != nil {
			b.Fatal(err)
		}
	}
}
