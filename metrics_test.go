package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
	"github.com/mailbot/mailbot/providers"
)

// metricsDoc documents every metric mailbot exports, in a table.
const metricsDoc = "docs/metrics.md"

// docFamily is one row of the metrics table of metricsDoc.
type docFamily = metricstest.DocFamily

// databaseOnly are the families serve exports only with a database.
var databaseOnly = map[string]bool{"mailbot_database_up": true}

// documentedMetrics reads the metrics table of metricsDoc.
// Without a database, the rows of databaseOnly are left out.
func documentedMetrics(t *testing.T, withDatabase bool) map[string]docFamily {
	t.Helper()
	doc := metricstest.ReadDoc(t, metricsDoc)
	if !withDatabase {
		for name := range databaseOnly {
			delete(doc, name)
		}
	}
	return doc
}

// checkDocumented checks fams against metricsDoc's table: every documented
// family is there with its type and labels, every documented label value
// has a series, and every mailbot_ family, label and value is documented.
func checkDocumented(t *testing.T, fams map[string]*dto.MetricFamily, doc map[string]docFamily) {
	t.Helper()
	for name, d := range doc {
		f, ok := fams[name]
		if !ok {
			t.Errorf("/metrics lacks %s", name)
			continue
		}
		if got := strings.ToLower(f.GetType().String()); got != d.Kind {
			t.Errorf("%s is a %s, %s says %s", name, got, metricsDoc, d.Kind)
		}
		seen := make(map[string]map[string]bool)
		for _, m := range f.GetMetric() {
			l := metricstest.Labels(m)
			if got, want := slices.Sorted(maps.Keys(l)), slices.Sorted(maps.Keys(d.Labels)); !slices.Equal(got, want) {
				t.Errorf("%s series with labels %v, %s lists %v", name, got, metricsDoc, want)
			}
			for k, v := range l {
				if vs := d.Labels[k]; vs != nil && !slices.Contains(vs, v) {
					t.Errorf("%s{%s=%q}: a value %s does not list", name, k, v, metricsDoc)
				}
				if seen[k] == nil {
					seen[k] = make(map[string]bool)
				}
				seen[k][v] = true
			}
		}
		if len(f.GetMetric()) == 0 {
			t.Errorf("%s has no series", name)
		}
		for k, vs := range d.Labels {
			for _, v := range vs {
				if !seen[k][v] {
					t.Errorf("%s has no series with %s=%q", name, k, v)
				}
			}
		}
	}
	for name := range fams {
		if _, ok := doc[name]; strings.HasPrefix(name, "mailbot_") && !ok {
			t.Errorf("/metrics has %s, which %s does not document", name, metricsDoc)
		}
	}
}

// forProvider is doc as a serve of provider shows it: a family labelled by
// provider lists provider (the table must name it, or allow any) and no other, since one
// process drives one provider.
func forProvider(t *testing.T, doc map[string]docFamily, provider string) map[string]docFamily {
	t.Helper()
	out := make(map[string]docFamily, len(doc))
	for name, d := range doc {
		if vs, ok := d.Labels["provider"]; ok && vs != nil { // nil: any provider
			if !slices.Contains(vs, provider) {
				t.Errorf("%s lists %s with providers %v, not %s", metricsDoc, name, vs, provider)
			}
			labels := maps.Clone(d.Labels)
			labels["provider"] = []string{provider}
			d.Labels = labels
		}
		out[name] = d
	}
	return out
}

// TestMetricsDocumented checks a fresh serve's registry against metricsDoc's
// table: without a database every row but mailbot_database_up, with one
// every row.
func TestMetricsDocumented(t *testing.T) {
	t.Parallel()
	for _, withDatabase := range []bool{false, true} {
		for _, provider := range []string{apiclient.ProviderPDD, apiclient.ProviderYandex360, apiclient.ProviderMailcow} {
			var buf bytes.Buffer
			writeMetrics(&buf, newServeMetrics(provider, withDatabase).reg)
			checkDocumented(t, metricstest.Parse(t, buf.String()), forProvider(t, documentedMetrics(t, withDatabase), provider))
		}
		var buf bytes.Buffer
		writeMetrics(&buf, newServeMetrics(apiclient.ProviderPDD, withDatabase).reg)
		fams := metricstest.Parse(t, buf.String())
		for _, name := range []string{"go_goroutines", "go_info", "go_memstats_heap_alloc_bytes", "go_gc_duration_seconds",
			"process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds", "process_start_time_seconds"} {
			if fams[name] == nil {
				t.Errorf("/metrics lacks %s", name)
			}
		}
		for name, f := range fams {
			if strings.HasPrefix(name, "mailbot_") && f.GetHelp() == "" {
				t.Errorf("%s has no HELP text", name)
			}
		}
		// Every operation with every reason: a rate of retries has its series
		// before the first retry.
		retries := fams["mailbot_provider_retries_total"]
		if n := len(retries.GetMetric()); n != len(apiclient.Ops())*len(providers.RetryReasons()) {
			t.Errorf("mailbot_provider_retries_total has %d series, want %d operations × %d reasons", n, len(apiclient.Ops()), len(providers.RetryReasons()))
		}
	}
}

func TestMetricsBuildInfo(t *testing.T) {
	t.Parallel()
	v, c, g := buildInfo()
	if got := fmt.Sprintf("mailbot %s (%s, %s)", v, c, g); got != versionLine() || v == "" || c == "" || g == "" {
		t.Errorf("buildInfo() = %q, %q, %q; versionLine() = %q", v, c, g, versionLine())
	}
	var buf bytes.Buffer
	_, _ = newRegistry().WriteTo(&buf)
	fams := metricstest.Parse(t, buf.String())
	info := fams["mailbot_build_info"].GetMetric()
	if len(info) != 1 || info[0].GetGauge().GetValue() != 1 {
		t.Fatalf("mailbot_build_info = %v, want one series at 1", info)
	}
	want := map[string]string{"version": v, "commit": c, "goversion": g}
	if diff := cmp.Diff(want, metricstest.Labels(info[0])); diff != "" {
		t.Errorf("mailbot_build_info labels (-want +got):\n%s", diff)
	}
}

// brokenProvider fails LookupMailbox with an error that is no provider
// answer, as a bug would.
type brokenProvider struct{ commands.Provider }

func (brokenProvider) LookupMailbox(context.Context, string, string) (*apiclient.Mailbox, error) {
	return nil, errors.New("a bug")
}

// TestProviderOutcomes drives the PDD adapter, metered and hooked as serve
// does, against the sandbox with faults injected, and checks the outcome
// and the retries each operation is counted under.
func TestProviderOutcomes(t *testing.T) {
	t.Parallel()
	sim := pddsim.New()
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	ms := newServeMetrics(apiclient.ProviderPDD, false)
	adapter, err := pdd.NewAdapter(srv.URL, sim.NewAccount(), apiclient.WithRetryHook(ms.provider.CountRetry),
		apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	p, ctx := ms.provider.Meter(adapter), context.Background()
	add := func() error { _, err := p.AddMailbox(ctx, "example.com", "alice", "Secret-123", false); return err }
	inject := func(f pddsim.Fault) func() {
		return func() {
			if err := sim.InjectFault(f, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name   string
		before func()
		call   func() error
	}{
		{"register", nil, func() error { _, err := p.RegisterDomain(ctx, "example.com"); return err }},
		{"status, unknown twice", func() { sim.FailNextWith(2, pddsim.CodeUnknown) },
			func() error { _, err := p.DomainStatus(ctx, "example.com"); return err }},
		{"add, bad token", func() { sim.FailNextWith(1, pddsim.CodeBadToken) }, add},
		{"add, 502", inject(pddsim.FaultBadGateway), add},
		{"add", nil, add}, // the 502 came before the sandbox added it
		{"add, exists", nil, add},
		{"reset, reset once", inject(pddsim.FaultReset),
			func() error { _, err := p.SetPassword(ctx, "example.com", "alice", "Secret-456", false); return err }},
		{"block", nil, func() error { _, err := p.SetLoginEnabled(ctx, "example.com", "alice", false); return err }},
		{"unblock", nil, func() error { _, err := p.SetLoginEnabled(ctx, "example.com", "alice", true); return err }},
		{"list", nil, func() error { _, err := p.ListMailboxes(ctx, "example.com", "", 10); return err }},
		{"lookup, a bug", nil, func() error {
			_, err := ms.provider.Meter(brokenProvider{adapter}).LookupMailbox(ctx, "example.com", "alice")
			return err
		}},
	} {
		if c.before != nil {
			c.before()
		}
		t.Logf("%s: %v", c.name, c.call())
	}
	var buf bytes.Buffer
	writeMetrics(&buf, ms.reg)
	fams := metricstest.Parse(t, buf.String())
	want := map[string]float64{ // op/outcome and op/reason of every series not at 0
		"register/ok": 1, "status/temporary": 1, "add/credentials": 1, "add/uncertain": 1, "add/ok": 1, "add/refused": 1,
		"reset/ok": 1, "block/ok": 1, "unblock/ok": 1, "list/ok": 1, "lookup/internal": 1,
		"retries status/temporary": 1, "retries reset/uncertain": 1,
	}
	got := make(map[string]float64)
	for family, prefix := range map[string]string{"mailbot_provider_requests_total": "", "mailbot_provider_retries_total": "retries "} {
		for _, m := range fams[family].GetMetric() {
			l := metricstest.Labels(m)
			if v := m.GetCounter().GetValue(); v != 0 && l["provider"] == apiclient.ProviderPDD {
				got[prefix+l["op"]+"/"+l["outcome"]+l["reason"]] = v
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("provider series not at 0 (-want +got):\n%s", diff)
	}
}

// BenchmarkScrape writes serve's whole registry, with a database, and the
// runtime and process metrics: one scrape of /metrics.
func BenchmarkScrape(b *testing.B) {
	reg := newServeMetrics(apiclient.ProviderPDD, true).reg
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		writeMetrics(&buf, reg)
	}
	b.ReportMetric(float64(buf.Len()), "bytes/scrape")
}
