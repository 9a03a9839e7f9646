package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/bot"
)

// parseExposition reads text with the Prometheus project's own parser of
// the text format (a test-only dependency: the binary does not link it), so
// that what mailbot writes is checked by a reader it did not write.
func parseExposition(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the Prometheus text parser rejects /metrics: %v\n%.3000s", err, text)
	}
	return fams
}

// labelsOf is a series' labels, le left out.
func labelsOf(m *dto.Metric) map[string]string {
	l := make(map[string]string)
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// docFamily is one row of README.md's metrics table: the type and, by label
// name, the values the label may take (nil: any value).
type docFamily struct {
	kind   string
	labels map[string][]string
}

var backticked = regexp.MustCompile("`([^`]*)`")

// documentedMetrics reads the metrics table of README.md.
func documentedMetrics(t *testing.T) map[string]docFamily {
	t.Helper()
	raw, err := os.ReadFile("README.md")
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
			t.Fatalf("README metrics row %q: want 3 cells", line)
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
		if _, dup := doc[name]; dup {
			t.Fatalf("README lists %s twice", name)
		}
		doc[name] = f
	}
	if len(doc) < 10 {
		t.Fatalf("README.md's metrics table has %d rows; did its format change?", len(doc))
	}
	return doc
}

// checkDocumented checks fams against the README's table: every documented
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
			t.Errorf("%s is a %s, README says %s", name, got, d.kind)
		}
		seen := make(map[string]map[string]bool)
		for _, m := range f.GetMetric() {
			l := labelsOf(m)
			if got, want := slices.Sorted(maps.Keys(l)), slices.Sorted(maps.Keys(d.labels)); !slices.Equal(got, want) {
				t.Errorf("%s series with labels %v, README lists %v", name, got, want)
			}
			for k, v := range l {
				if vs := d.labels[k]; vs != nil && !slices.Contains(vs, v) {
					t.Errorf("%s{%s=%q}: a value README does not list", name, k, v)
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
			t.Errorf("/metrics has %s, which README.md does not document", name)
		}
	}
}

// serveRegistry registers every metric serve registers.
func serveRegistry() *bot.Registry {
	reg := newRegistry()
	bot.NewMetrics(reg)
	newMeteredAPI(nil, reg)
	newRetryCounter(reg)
	return reg
}

func TestMetricsDocumented(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	writeMetrics(&buf, serveRegistry())
	fams := parseExposition(t, buf.String())
	checkDocumented(t, fams, documentedMetrics(t))
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
	retries := fams["mailbot_pdd_retries_total"]
	if n := len(retries.GetMetric()); n != 2*len(pdd.RetryReasons()) {
		t.Errorf("mailbot_pdd_retries_total has %d series, want 2 operations × %d reasons", n, len(pdd.RetryReasons()))
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
	fams := parseExposition(t, buf.String())
	info := fams["mailbot_build_info"].GetMetric()
	if len(info) != 1 || info[0].GetGauge().GetValue() != 1 {
		t.Fatalf("mailbot_build_info = %v, want one series at 1", info)
	}
	want := map[string]string{"version": v, "commit": c, "goversion": g}
	if diff := cmp.Diff(want, labelsOf(info[0])); diff != "" {
		t.Errorf("mailbot_build_info labels (-want +got):\n%s", diff)
	}
}

func TestRegistryExposition(t *testing.T) {
	t.Parallel()
	reg := bot.NewRegistry()
	odd := "a \"quoted\" \\ back\nslash é"
	reg.NewCounterVec("t_events_total", "Events,\nby kind \\ odd.", "kind").WithLabelValues(odd).Add(2.5)
	g := reg.NewGauge("t_level", "A level.")
	g.Inc()
	g.Inc()
	g.Dec()
	h := reg.NewHistogramVec("t_seconds", "Times.", []float64{0.1, 1}, "op").WithLabelValues("x")
	for _, v := range []float64{0.05, 0.1, 0.5, 1, 7} { // the bounds are inclusive (le)
		h.Observe(v)
	}
	var buf bytes.Buffer
	if _, err := reg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	fams := parseExposition(t, buf.String())

	ev := fams["t_events_total"]
	if ev.GetHelp() != "Events,\nby kind \\ odd." || labelsOf(ev.GetMetric()[0])["kind"] != odd || ev.GetMetric()[0].GetCounter().GetValue() != 2.5 {
		t.Errorf("counter with escapes read back as %v", ev)
	}
	if v := fams["t_level"].GetMetric()[0].GetGauge().GetValue(); v != 1 {
		t.Errorf("gauge = %v, want 1", v)
	}
	hist := fams["t_seconds"].GetMetric()[0].GetHistogram()
	var got [][2]float64
	for _, b := range hist.GetBucket() {
		got = append(got, [2]float64{b.GetUpperBound(), float64(b.GetCumulativeCount())})
	}
	want := [][2]float64{{0.1, 2}, {1, 4}, {math.Inf(1), 5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("histogram buckets (-want +got):\n%s", diff)
	}
	if hist.GetSampleCount() != 5 || math.Abs(hist.GetSampleSum()-8.65) > 1e-9 {
		t.Errorf("histogram count %d sum %v, want 5 and 8.65", hist.GetSampleCount(), hist.GetSampleSum())
	}
}

func TestRegistryRefusesMisuse(t *testing.T) {
	t.Parallel()
	for name, misuse := range map[string]func(r *bot.Registry){
		"twice":          func(r *bot.Registry) { r.NewCounter("x_total", "X."); r.NewGauge("x_total", "X.") },
		"label count":    func(r *bot.Registry) { r.NewCounterVec("x_total", "X.", "a", "b").WithLabelValues("1") },
		"unsorted":       func(r *bot.Registry) { r.NewHistogram("x_seconds", "X.", []float64{1, 0.5}) },
		"negative count": nil,
	} {
		if misuse == nil {
			c := bot.NewRegistry().NewCounter("x_total", "X.")
			c.Add(-1)
			if c.Value() != 0 {
				t.Errorf("%s: a counter went down to %v", name, c.Value())
			}
			continue
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			misuse(bot.NewRegistry())
		}()
	}
}

// TestRegistryConcurrent counts from many goroutines while scraping; run
// it with -race.
func TestRegistryConcurrent(t *testing.T) {
	t.Parallel()
	reg := bot.NewRegistry()
	vec := reg.NewCounterVec("t_total", "T.", "k")
	h := reg.NewHistogram("t_seconds", "T.", []float64{1})
	ctx, cancel := context.WithCancel(t.Context())
	scraped := make(chan error, 1)
	go func() {
		var err error
		for ctx.Err() == nil && err == nil {
			_, err = reg.WriteTo(&bytes.Buffer{})
		}
		scraped <- err
	}()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				vec.WithLabelValues(fmt.Sprint(j % 3)).Inc()
				h.Observe(float64(i))
			}
		})
	}
	wg.Wait()
	cancel()
	if err := <-scraped; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, _ = reg.WriteTo(&buf)
	fams := parseExposition(t, buf.String())
	var total float64
	for _, m := range fams["t_total"].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	if total != 8000 || fams["t_seconds"].GetMetric()[0].GetHistogram().GetSampleCount() != 8000 {
		t.Errorf("counted %v and observed %d, want 8000 each", total, fams["t_seconds"].GetMetric()[0].GetHistogram().GetSampleCount())
	}
}

func TestPDDCodesKnown(t *testing.T) {
	t.Parallel()
	for op, codes := range pddErrorCodes {
		for _, c := range codes {
			if !c.Known() {
				t.Errorf("%s: code %q is not one apiclient knows", op, c)
			}
			if got := outcomeCode(&pdd.Error{Op: op, Code: c}); got != string(c) {
				t.Errorf("outcomeCode(%s) = %q, want the code itself", c, got)
			}
		}
	}
	if got := outcomeCode(&pdd.Error{Code: "never-heard-of-it"}); got != "other" {
		t.Errorf("an unknown code is labelled %q, want other", got)
	}
}
