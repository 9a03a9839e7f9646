package main

import (
	"bytes"
	"net/http"
	"runtime"
	"strings"

	vm "github.com/VictoriaMetrics/metrics"

	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands/meteredstore"
	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/providers"
)

// newRegistry returns the registry that /metrics serves, holding
// mailbot_build_info. The bot's, the provider's and the database's series
// are registered on it by the caller (see [serveMetrics]); there is no
// global registry, so tests can build as many as they like.
func newRegistry() *metrics.Registry {
	reg := metrics.NewRegistry()
	v, c, g := buildInfo()
	reg.NewGaugeVec("mailbot_build_info", "1, labelled with mailbot's version, commit and Go version.",
		"version", "commit", "goversion").WithLabelValues(v, c, g).Set(1)
	return reg
}

// serveMetrics are the series serve feeds, each layer's own, all
// registered on reg before the listener is up: every documented series
// exists from the first scrape, also while serve still waits for Slack or
// its database.
type serveMetrics struct {
	reg        *metrics.Registry
	bot        *bot.Metrics
	provider   *providers.Metrics            // MAILBOT_PROVIDER's
	providers  map[string]*providers.Metrics // every provider in use, by name
	databaseUp *metrics.Gauge                // nil without MAILBOT_DATABASE_URL
}

// newServeMetrics registers serve's series, those of provider's calls
// and of each of more (MAILBOT_ROUTES' providers); mailbot_database_up
// only with a database.
func newServeMetrics(provider string, withDatabase bool, more ...string) *serveMetrics {
	reg := newRegistry()
	m := &serveMetrics{reg: reg, bot: bot.NewMetrics(reg), provider: providers.NewMetrics(reg, provider)}
	m.providers = map[string]*providers.Metrics{provider: m.provider}
	for _, p := range more {
		if m.providers[p] == nil {
			m.providers[p] = m.provider.Also(p)
		}
	}
	if withDatabase {
		m.databaseUp = meteredstore.NewGauge(reg)
	}
	return m
}

// buildInfo is versionLine's version, commit and Go version.
func buildInfo() (version, commit, goVersion string) {
	rest := strings.TrimPrefix(versionLine(), "mailbot ")
	version, rest, _ = strings.Cut(rest, " (")
	commit, rest, _ = strings.Cut(rest, ", ")
	goVersion = strings.TrimSuffix(rest, ")")
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return version, commit, goVersion
}

// metricsHandler serves GET /metrics: reg's families, then the Go runtime
// (go_*) and process (process_*) metrics of github.com/VictoriaMetrics/metrics,
// in the Prometheus text format. More than metricsInFlight scrapes at once
// answer 503.
func metricsHandler(reg *metrics.Registry) http.Handler {
	sem := make(chan struct{}, metricsInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
		default:
			http.Error(w, "too many scrapes at once", http.StatusServiceUnavailable)
			return
		}
		var buf bytes.Buffer
		writeMetrics(&buf, reg)
		h := w.Header()
		h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
	})
}

// writeMetrics writes reg and the runtime and process metrics.
func writeMetrics(buf *bytes.Buffer, reg *metrics.Registry) {
	_, _ = reg.WriteTo(buf)
	vm.WriteProcessMetrics(buf)
	vm.WriteFDMetrics(buf)
}
