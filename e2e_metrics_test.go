package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mailbot/mailbot/internal/health"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
)

// testE2EMetricsWhileSlackDown is a defect of the metrics while Slack is down, through the
// binary: while serve retries Slack's auth.test (the Web API answers 503),
// /metrics already holds every documented series, with
// mailbot_socket_connected and mailbot_database_up at 0, and SIGTERM
// stops the retries.
func testE2EMetricsWhileSlackDown(t *testing.T, bin string) {
	w := newWorld(t, bin)
	var authTests atomic.Int64
	slackDown := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/auth.test") {
			authTests.Add(1)
		}
		http.Error(rw, "down for maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(slackDown.Close)
	const pass = "SECRETDBPASS-e2e-slack-down"
	w.extra = append(w.extra, pass)
	p := w.start("mailbot", w.env(map[string]string{
		"SLACK_API_URL":        slackDown.URL,
		"MAILBOT_HTTP_ADDR":    freeAddr(t),
		"MAILBOT_DATABASE_URL": "postgres://mailbot:" + pass + "@" + closedAddr(t) + "/mailbot?sslmode=disable",
	}), "serve")
	if err := w.fake.Wait(e2eWait, "auth.test retried", func() bool { return authTests.Load() >= 2 || !p.running() }); err != nil || !p.running() {
		t.Fatalf("serve did not retry auth.test (%v, running %v)", err, p.running())
	}
	body := checkStartingMetrics(t, p, true)
	if strings.Contains(body, pass) {
		t.Error("/metrics shows the database password")
	}
	p.term()
	if code := p.wait(e2eWait); code != 0 {
		t.Errorf("serve stopped while retrying auth.test: exit status %d, want 0", code)
	}
}

// checkStartingMetrics scrapes p, which is still starting, and checks that
// every series docs/metrics.md documents is there (mailbot_database_up with a
// database), with the socket and the database down. It returns the body.
func checkStartingMetrics(t *testing.T, p *proc, withDatabase bool) string {
	t.Helper()
	status, _, body := fetch(t, http.MethodGet, p.http+health.MetricsPath)
	if status != http.StatusOK {
		t.Fatalf("/metrics while starting: %d", status)
	}
	fams := metricstest.Parse(t, body)
	checkDocumented(t, fams, documentedMetrics(t, withDatabase))
	down := []string{"mailbot_socket_connected"}
	if withDatabase {
		down = append(down, "mailbot_database_up")
	}
	for _, name := range down {
		if m := fams[name].GetMetric(); len(m) != 1 || m[0].GetGauge().GetValue() != 0 {
			t.Errorf("%s while starting = %v, want one series at 0", name, m)
		}
	}
	return body
}
