package metrics_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
)

func TestRegistryExposition(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
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
	fams := metricstest.Parse(t, buf.String())

	ev := fams["t_events_total"]
	if ev.GetHelp() != "Events,\nby kind \\ odd." || metricstest.Labels(ev.GetMetric()[0])["kind"] != odd || ev.GetMetric()[0].GetCounter().GetValue() != 2.5 {
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
	for name, misuse := range map[string]func(r *metrics.Registry){
		"twice":          func(r *metrics.Registry) { r.NewCounter("x_total", "X."); r.NewGauge("x_total", "X.") },
		"label count":    func(r *metrics.Registry) { r.NewCounterVec("x_total", "X.", "a", "b").WithLabelValues("1") },
		"unsorted":       func(r *metrics.Registry) { r.NewHistogram("x_seconds", "X.", []float64{1, 0.5}) },
		"negative count": nil,
	} {
		if misuse == nil {
			c := metrics.NewRegistry().NewCounter("x_total", "X.")
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
			misuse(metrics.NewRegistry())
		}()
	}
}

// TestRegistryConcurrent counts from many goroutines while scraping; run
// it with -race.
func TestRegistryConcurrent(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
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
	fams := metricstest.Parse(t, buf.String())
	var total float64
	for _, m := range fams["t_total"].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	if total != 8000 || fams["t_seconds"].GetMetric()[0].GetHistogram().GetSampleCount() != 8000 {
		t.Errorf("counted %v and observed %d, want 8000 each", total, fams["t_seconds"].GetMetric()[0].GetHistogram().GetSampleCount())
	}
}

// BenchmarkCountKnownSeries is the hot path of every command: the
// counter of known label values, looked up and incremented, from many
// goroutines at once.
func BenchmarkCountKnownSeries(b *testing.B) {
	vec := metrics.NewRegistry().NewCounterVec("b_total", "B.", "command", "outcome")
	vec.WithLabelValues("/mailbox", "ok")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			vec.WithLabelValues("/mailbox", "ok").Inc()
		}
	})
}
