// Package metrics is mailbot's registry of Prometheus metrics: counters,
// gauges and histograms with real `le` buckets, written in the text
// exposition format (0.0.4) with HELP and TYPE lines. Each layer registers
// the few series it feeds; package main serves the registry on /metrics.
package metrics

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry holds metric families and writes them in the Prometheus text
// exposition format (version 0.0.4), with HELP and TYPE lines. It is a
// few atomic counters under a map: mailbot's metrics need nothing more,
// and the Prometheus client would add its protobuf dependency to the
// binary (docs/performance.md, "Footprint"). A Registry is safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	families []*family
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{} }

// NewCounter registers a counter without labels.
func (r *Registry) NewCounter(name, help string) *Counter {
	return r.add(name, help, "counter", nil, func() series { return new(Counter) }).with(nil).(*Counter)
}

// NewCounterVec registers a family of counters by the given label names.
func (r *Registry) NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{r.add(name, help, "counter", labels, func() series { return new(Counter) })}
}

// NewGauge registers a gauge without labels.
func (r *Registry) NewGauge(name, help string) *Gauge {
	return r.add(name, help, "gauge", nil, func() series { return new(Gauge) }).with(nil).(*Gauge)
}

// NewGaugeVec registers a family of gauges by the given label names.
func (r *Registry) NewGaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{r.add(name, help, "gauge", labels, func() series { return new(Gauge) })}
}

// NewHistogram registers a histogram without labels, with the given
// upper bounds (increasing; +Inf is implied).
func (r *Registry) NewHistogram(name, help string, buckets []float64) *Histogram {
	return r.NewHistogramVec(name, help, buckets).WithLabelValues()
}

// NewHistogramVec registers a family of histograms by the given label
// names, each with the given upper bounds (increasing; +Inf is implied).
func (r *Registry) NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if !slices.IsSorted(buckets) {
		panic("metrics: histogram " + name + ": buckets not sorted")
	}
	b := slices.Clone(buckets)
	return &HistogramVec{r.add(name, help, "histogram", labels, func() series {
		return &Histogram{bounds: b, counts: make([]atomic.Uint64, len(b)+1)}
	})}
}

func (r *Registry) add(name, help, kind string, labels []string, newSeries func() series) *family {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.families {
		if f.name == name {
			panic("metrics: metric " + name + " registered twice")
		}
	}
	f := &family{name: name, help: help, kind: kind, labels: labels, newSeries: newSeries, series: make(map[string]entry)}
	r.families = append(r.families, f)
	return f
}

// WriteTo writes every family, sorted by name, in the text format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	var buf []byte
	for _, f := range r.sorted() {
		buf = f.appendText(buf)
	}
	n, err := w.Write(buf)
	return int64(n), err
}

func (r *Registry) sorted() []*family {
	r.mu.Lock()
	fams := slices.Clone(r.families)
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	return fams
}

// series is one labelled series of a family.
type series interface {
	// appendText appends the series' sample lines; labels is the
	// series' label pairs (`a="x",b="y"`), empty without labels.
	appendText(b []byte, name, labels string) []byte
}

// family is a metric name with its help, type and series.
type family struct {
	name, help, kind string
	labels           []string
	newSeries        func() series

	mu     sync.RWMutex
	series map[string]entry // by label pairs
}

// entry is a series with its label values.
type entry struct {
	values []string
	s      series
}

// with returns the series of the label values, creating it at 0.
func (f *family) with(values []string) series {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("metrics: metric %s has %d labels, got %d values", f.name, len(f.labels), len(values)))
	}
	var buf [128]byte // the key of a known series is looked up without allocating
	key := appendLabelPairs(buf[:0], f.labels, values)
	f.mu.RLock()
	e, ok := f.series[string(key)]
	f.mu.RUnlock()
	if ok {
		return e.s
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok = f.series[string(key)]; !ok {
		e = entry{slices.Clone(values), f.newSeries()}
		f.series[string(key)] = e
	}
	return e.s
}

// snapshot is the family's series sorted by their label pairs.
func (f *family) snapshot() (keys []string, entries []entry) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	keys = slices.Sorted(maps.Keys(f.series))
	entries = make([]entry, len(keys))
	for i, k := range keys {
		entries[i] = f.series[k]
	}
	return keys, entries
}

func (f *family) appendText(b []byte) []byte {
	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, f.kind...)
	b = append(b, '\n')
	keys, entries := f.snapshot()
	for i, e := range entries {
		b = e.s.appendText(b, f.name, keys[i])
	}
	return b
}

// appendLabelPairs appends `a="x",b="y"`, the values escaped for the
// text format.
func appendLabelPairs(b []byte, names, values []string) []byte {
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n...)
		b = append(b, '=', '"')
		b = appendEscaped(b, values[i], true)
		b = append(b, '"')
	}
	return b
}

// appendEscaped appends s with backslashes and line feeds escaped, and
// double quotes too in a label value (HELP text keeps them).
func appendEscaped(b []byte, s string, quotes bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quotes:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendSample appends `name{labels} value`.
func appendSample(b []byte, name, labels string, v float64) []byte {
	b = append(b, name...)
	if labels != "" {
		b = append(b, '{')
		b = append(b, labels...)
		b = append(b, '}')
	}
	b = append(b, ' ')
	switch {
	case math.IsInf(v, 1):
		b = append(b, "+Inf"...)
	case math.IsInf(v, -1):
		b = append(b, "-Inf"...)
	default:
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, '\n')
}

// atomicFloat is a float64 updated atomically.
type atomicFloat struct{ bits atomic.Uint64 }

func (f *atomicFloat) load() float64   { return math.Float64frombits(f.bits.Load()) }
func (f *atomicFloat) store(v float64) { f.bits.Store(math.Float64bits(v)) }
func (f *atomicFloat) add(v float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Counter is a value that only goes up.
type Counter struct{ v atomicFloat }

// Inc adds 1.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds v; a negative v is ignored, since a counter never goes down.
func (c *Counter) Add(v float64) {
	if v > 0 {
		c.v.add(v)
	}
}

// Value is the counter's value.
func (c *Counter) Value() float64 { return c.v.load() }

func (c *Counter) appendText(b []byte, name, labels string) []byte {
	return appendSample(b, name, labels, c.Value())
}

// CounterVec is a family of counters by label values.
type CounterVec struct{ f *family }

// WithLabelValues returns the counter of the values, in the order of the
// family's label names, creating it at 0.
func (v *CounterVec) WithLabelValues(values ...string) *Counter { return v.f.with(values).(*Counter) }

// Gauge is a value that goes up and down.
type Gauge struct{ v atomicFloat }

// Set sets the gauge to v.
func (g *Gauge) Set(v float64) { g.v.store(v) }

// Inc adds 1.
func (g *Gauge) Inc() { g.v.add(1) }

// Dec subtracts 1.
func (g *Gauge) Dec() { g.v.add(-1) }

// Value is the gauge's value.
func (g *Gauge) Value() float64 { return g.v.load() }

func (g *Gauge) appendText(b []byte, name, labels string) []byte {
	return appendSample(b, name, labels, g.Value())
}

// GaugeVec is a family of gauges by label values.
type GaugeVec struct{ f *family }

// WithLabelValues returns the gauge of the values, in the order of the
// family's label names, creating it at 0.
func (v *GaugeVec) WithLabelValues(values ...string) *Gauge { return v.f.with(values).(*Gauge) }

// Histogram counts observations in buckets of upper bounds (the
// Prometheus "le" buckets), with their sum and count.
type Histogram struct {
	bounds []float64
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sum    atomicFloat
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v) // the first bound >= v
	h.counts[i].Add(1)
	h.sum.add(v)
}

func (h *Histogram) appendText(b []byte, name, labels string) []byte {
	sep := ""
	if labels != "" {
		sep = ","
	}
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
		le := "+Inf"
		if i < len(h.bounds) {
			le = strconv.FormatFloat(h.bounds[i], 'g', -1, 64)
		}
		b = appendSample(b, name+"_bucket", labels+sep+`le="`+le+`"`, float64(n))
	}
	b = appendSample(b, name+"_sum", labels, h.sum.load())
	return appendSample(b, name+"_count", labels, float64(n))
}

// HistogramVec is a family of histograms by label values.
type HistogramVec struct{ f *family }

// WithLabelValues returns the histogram of the values, in the order of
// the family's label names, creating it empty.
func (v *HistogramVec) WithLabelValues(values ...string) *Histogram {
	return v.f.with(values).(*Histogram)
}
