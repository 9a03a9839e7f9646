package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
)

// metricsDoc documents every metric mailbot exports, in a table.
const metricsDoc = "docs/metrics.md"

// docFamily is one row of the metrics table of metricsDoc: the type and, by label
// name, the values the label may take (nil: any value).
type docFamily struct {
	kind   string
	labels map[string][]string
}

// databaseOnly are the families serve exports only with a database.
var databaseOnly = map[string]bool{"mailbot_database_up": true}

var backticked = regexp.MustCompile("`([^`]*)`")

// documentedMetrics reads the metrics table of metricsDoc.
// Without a database, the rows of databaseOnly are left out.
func documentedMetrics(t *testing.T, withDatabase bool) map[string]docFamily {
	t.Helper()
	raw, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := make(map[string]docFamily)
	for line := range strings.SplitSeq(string(raw), "\n") {
		if !strings.HasPrefix(line, "| `mailbot_") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 5 {
			t.Fatalf("%s: metrics row %q: want 3 cells", metricsDoc, line)
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		f := docFamily{kind: strings.TrimSpace(cells[2]), labels: make(map[string][]string)}
		for clause := range strings.SplitSeq(cells[3], ";") {
			label, values, ok := strings.Cut(clause, ":")
			if !ok {
				continue
			}
			var vs []string
			for _, m := range backticked.FindAllStringSubmatch(values, -1) {
				vs = append(vs, m[1])
			}
			f.labels[strings.Trim(strings.TrimSpace(label), "`")] = vs
		}
		if !withDatabase && databaseOnly[name] {
			continue
		}
		if _, dup := doc[name]; dup {
			t.Fatalf("%s lists %s twice", metricsDoc, name)
		}
		doc[name] = f
	}
	if len(doc) < 10 {
		t.Fatalf("%s's metrics table has %d rows; did its format change?", metricsDoc, len(doc))
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
		if got := strings.ToLower(f.GetType().String()); got != d.kind {
			t.Errorf("%s is a %s, %s says %s", name, got, metricsDoc, d.kind)
		}
		seen := make(map[string]map[string]bool)
		for _, m := range f.GetMetric() {
			l := metricstest.Labels(m)
			if got, want := slices.Sorted(maps.Keys(l)), slices.Sorted(maps.Keys(d.labels)); !slices.Equal(got, want) {
				t.Errorf("%s series with labels %v, %s lists %v", name, got, metricsDoc, want)
			}
			for k, v := range l {
				if vs := d.labels[k]; vs != nil && !slices.Contains(vs, v) {
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
		for k, vs := range d.labels {
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

// TestMetricsDocumented checks a fresh serve's registry against metricsDoc's
// table: without a database every row but mailbot_database_up, with one
// every row.
func TestMetricsDocumented(t *testing.T) {
	t.Parallel()
	for _, withDatabase := range []bool{false, true} {
		var buf bytes.Buffer
		writeMetrics(&buf, newServeMetrics(providerPDD, withDatabase).reg)
		fams := metricstest.Parse(t, buf.String())
		checkDocumented(t, fams, documentedMetrics(t, withDatabase))
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
		if n := len(retries.GetMetric()); n != len(pddOps)*len(apiclient.RetryReasons()) {
			t.Errorf("mailbot_provider_retries_total has %d series, want %d operations × %d reasons", n, len(pddOps), len(apiclient.RetryReasons()))
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

// TestPDDOutcome checks the answer class of each kind of PDD failure.
func TestPDDOutcome(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, outcomeOK},
		{&apiclient.Error{Op: apiclient.OpAddMailbox, Code: apiclient.CodeOccupied}, outcomeRefused},
		{&apiclient.Error{Op: apiclient.OpRegisterDomain, Code: "never-heard-of-it"}, outcomeRefused},
		{&apiclient.Error{Op: apiclient.OpRegisterDomain, Code: apiclient.CodeUnknown}, outcomeTemporary},
		{&apiclient.Error{Op: apiclient.OpRegisterDomain, Code: apiclient.CodeBadToken}, outcomeCredentials},
		{&apiclient.Error{Op: apiclient.OpAddMailbox, Code: apiclient.CodeNoAuth}, outcomeCredentials},
		{&apiclient.ResponseError{Op: apiclient.OpAddMailbox, StatusCode: http.StatusForbidden}, outcomeCredentials},
		{&apiclient.ResponseError{Op: apiclient.OpAddMailbox, StatusCode: http.StatusNotFound}, outcomeRefused},
		{&apiclient.ResponseError{Op: apiclient.OpRegisterDomain, StatusCode: http.StatusBadGateway}, outcomeTemporary},
		{&apiclient.ResponseError{Op: apiclient.OpAddMailbox, StatusCode: http.StatusBadGateway}, outcomeUncertain},
		{&apiclient.ResponseError{Op: apiclient.OpAddMailbox, StatusCode: http.StatusOK}, outcomeUncertain},
		{&apiclient.TransportError{Op: apiclient.OpAddMailbox, Err: errors.New("refused")}, outcomeTemporary},
		{&apiclient.TransportError{Op: apiclient.OpAddMailbox, Sent: true, Err: errors.New("reset")}, outcomeUncertain},
		{errors.New("a bug"), outcomeInternal},
	} {
		if got := pddOutcome(tc.err); got != tc.want {
			t.Errorf("pddOutcome(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// BenchmarkScrape writes serve's whole registry, with a database, and the
// runtime and process metrics: one scrape of /metrics.
func BenchmarkScrape(b *testing.B) {
	reg := newServeMetrics(providerPDD, true).reg
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		writeMetrics(&buf, reg)
	}
	b.ReportMetric(float64(buf.Len()), "bytes/scrape")
}
