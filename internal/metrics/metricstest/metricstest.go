// Package metricstest reads the Prometheus text format for tests, with the
// Prometheus project's own parser (a test-only dependency: the binary does
// not link it), so that what mailbot writes is checked by a reader it did
// not write.
package metricstest

import (
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Parse reads text in the Prometheus text format, failing t when the
// parser rejects it.
func Parse(t testing.TB, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the Prometheus text parser rejects the exposition: %v\n%.3000s", err, text)
	}
	return fams
}

// Labels is a series' labels by name (a histogram's le left out).
func Labels(m *dto.Metric) map[string]string {
	l := make(map[string]string)
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}
