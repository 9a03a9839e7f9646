package metrics

// Gather returns a snapshot of the counters and gauges, by family sorted
// by name, for tests that read a value. Its getters are named as in the
// Prometheus data model, so that code written to read the Prometheus
// client's Gather reads this one. The error is always nil.
func (r *Registry) Gather() ([]*MetricFamily, error) {
	var out []*MetricFamily
	for _, f := range r.sorted() {
		mf := &MetricFamily{Name: f.name}
		_, entries := f.snapshot()
		for _, e := range entries {
			m := new(Metric)
			for i, n := range f.labels {
				m.Label = append(m.Label, &LabelPair{Name: n, Value: e.values[i]})
			}
			switch s := e.s.(type) {
			case *Counter:
				m.Counter = &Value{s.Value()}
			case *Gauge:
				m.Gauge = &Value{s.Value()}
			}
			mf.Metric = append(mf.Metric, m)
		}
		out = append(out, mf)
	}
	return out, nil
}

// MetricFamily is a family in a snapshot of [Registry.Gather].
type MetricFamily struct {
	Name   string
	Metric []*Metric
}

// GetName is the family's name.
func (f *MetricFamily) GetName() string { return f.Name }

// GetMetric is the family's series.
func (f *MetricFamily) GetMetric() []*Metric { return f.Metric }

// Metric is one series in a snapshot: its labels, and its value if it is
// a counter or a gauge.
type Metric struct {
	Label          []*LabelPair
	Counter, Gauge *Value
}

// GetLabel is the series' labels, in the order of the family's names.
func (m *Metric) GetLabel() []*LabelPair { return m.Label }

// GetCounter is the counter's value; nil for another type.
func (m *Metric) GetCounter() *Value { return m.Counter }

// GetGauge is the gauge's value; nil for another type.
func (m *Metric) GetGauge() *Value { return m.Gauge }

// LabelPair is a label's name and value.
type LabelPair struct{ Name, Value string }

// GetName is the label's name.
func (l *LabelPair) GetName() string { return l.Name }

// GetValue is the label's value.
func (l *LabelPair) GetValue() string { return l.Value }

// Value is a counter's or gauge's value.
type Value struct{ Value float64 }

// GetValue is the value, 0 for a nil Value.
func (v *Value) GetValue() float64 {
	if v == nil {
		return 0
	}
	return v.Value
}
