package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap/zaptest"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/internal/health"
	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
)

// httpTestTimeout bounds every wait in these tests, so that a hang fails
// instead of stalling the run.
const httpTestTimeout = 10 * time.Second

// errNotStopped is a serveHTTP that outlived its ctx by httpTestTimeout.
var errNotStopped = errors.New("serveHTTP did not return after its ctx ended")

// startHTTP serves srv on a loopback port through serveHTTP and returns the
// base URL and a stop function that cancels serveHTTP's ctx and returns its
// result (errNotStopped if it hangs). It may be called from any goroutine,
// more than once; the server is stopped at the end of the test in any case.
func startHTTP(t *testing.T, srv *http.Server) (baseURL string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ctx, srv, ln) }()
	var (
		once   sync.Once
		result error
	)
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case result = <-done:
			case <-time.After(httpTestTimeout):
				result = errNotStopped
			}
		})
		return result
	}
	t.Cleanup(func() {
		if err := stop(); errors.Is(err, errNotStopped) {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String(), stop
}

// startHealth serves newHTTPServer on a loopback port.
func startHealth(t *testing.T, ready func() bool, reg *metrics.Registry) (baseURL string, stop func() error) {
	t.Helper()
	srv := newHTTPServer("127.0.0.1:0", ready, reg, zaptest.NewLogger(t))
	return startHTTP(t, srv)
}

// fetch sends one request and returns the status, a header and the body.
func fetch(t testing.TB, method, url string) (status int, header http.Header, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: httpTestTimeout}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func TestHTTPServerHealthz(t *testing.T) {
	t.Parallel()
	// Liveness does not depend on readiness.
	base, _ := startHealth(t, func() bool { return false }, metrics.NewRegistry())
	status, h, body := fetch(t, http.MethodGet, base+health.HealthzPath)
	if status != http.StatusOK || body != "ok\n" {
		t.Errorf("GET %s = %d %q, want 200 %q", health.HealthzPath, status, body, "ok\n")
	}
	if got := h.Get("Cache-Control"); got != "no-store" {
		t.Errorf("GET %s: Cache-Control = %q, want no-store", health.HealthzPath, got)
	}
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, "text/plain") {
		t.Errorf("GET %s: Content-Type = %q, want text/plain", health.HealthzPath, got)
	}
}

func TestHTTPServerReadyzFollowsReady(t *testing.T) {
	t.Parallel()
	var ready atomic.Bool
	base, _ := startHealth(t, ready.Load, metrics.NewRegistry())
	for _, step := range []struct {
		ready      bool
		wantStatus int
		wantBody   string
	}{
		{false, http.StatusServiceUnavailable, "not ready\n"},
		{true, http.StatusOK, "ready\n"},
		{false, http.StatusServiceUnavailable, "not ready\n"}, // e.g. the socket dropped, or shutdown began
		{true, http.StatusOK, "ready\n"},
	} {
		ready.Store(step.ready)
		status, _, body := fetch(t, http.MethodGet, base+health.ReadyzPath)
		if status != step.wantStatus || body != step.wantBody {
			t.Errorf("ready %v: GET %s = %d %q, want %d %q", step.ready, health.ReadyzPath, status, body, step.wantStatus, step.wantBody)
		}
	}
}

func TestHTTPServerMetrics(t *testing.T) {
	t.Parallel()
	reg := newRegistry()
	reg.NewCounter("mailbot_test_events_total", "Test events.").Add(3)
	base, _ := startHealth(t, func() bool { return true }, reg)

	status, h, body := fetch(t, http.MethodGet, base+health.MetricsPath)
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200; body:\n%s", health.MetricsPath, status, body)
	}
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, "text/plain") {
		t.Errorf("GET %s: Content-Type = %q, want the Prometheus text format", health.MetricsPath, got)
	}
	want := []string{"mailbot_test_events_total 3", "go_goroutines ", "go_info{"}
	if runtime.GOOS == "linux" {
		want = append(want, "process_resident_memory_bytes ", "process_start_time_seconds ")
	}
	for _, w := range want {
		if !strings.Contains(body, "\n"+w) {
			t.Errorf("GET %s: body lacks a line starting %q", health.MetricsPath, w)
		}
	}
}

func TestHTTPServerRoutes(t *testing.T) {
	t.Parallel()
	base, _ := startHealth(t, func() bool { return true }, metrics.NewRegistry())
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodHead, health.HealthzPath, http.StatusOK},
		{http.MethodHead, health.ReadyzPath, http.StatusOK},
		{http.MethodPost, health.HealthzPath, http.StatusMethodNotAllowed},
		{http.MethodPost, health.ReadyzPath, http.StatusMethodNotAllowed},
		{http.MethodDelete, health.MetricsPath, http.StatusMethodNotAllowed},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/debug/pprof/", http.StatusNotFound},
		{http.MethodGet, health.HealthzPath + "/x", http.StatusNotFound},
	} {
		status, header, _ := fetch(t, tc.method, base+tc.path)
		if status != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, status, tc.want)
		}
		if allow := header.Get("Allow"); status == http.StatusMethodNotAllowed && allow != "GET, HEAD" {
			t.Errorf("%s %s: Allow = %q, want %q", tc.method, tc.path, allow, "GET, HEAD")
		}
	}
}

func TestHTTPServerLimits(t *testing.T) {
	t.Parallel()
	srv := newHTTPServer(":8080", func() bool { return true }, metrics.NewRegistry(), zaptest.NewLogger(t))
	if srv.Addr != ":8080" {
		t.Errorf("Addr = %q, want %q", srv.Addr, ":8080")
	}
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout,
		"ReadTimeout":       srv.ReadTimeout,
		"WriteTimeout":      srv.WriteTimeout,
		"IdleTimeout":       srv.IdleTimeout,
	} {
		if d <= 0 || d > 5*time.Minute {
			t.Errorf("%s = %v, want a bound between 0 and 5m", name, d)
		}
	}
	if srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 1<<20 {
		t.Errorf("MaxHeaderBytes = %d, want a bound below the 1 MiB default", srv.MaxHeaderBytes)
	}
	if srv.ErrorLog == nil {
		t.Error("ErrorLog is nil: the server's errors would bypass zap")
	}
}

func TestServeHTTPStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	base, stop := startHealth(t, func() bool { return true }, metrics.NewRegistry())
	if status, _, _ := fetch(t, http.MethodGet, base+health.HealthzPath); status != http.StatusOK {
		t.Fatalf("GET %s before stop = %d, want 200", health.HealthzPath, status)
	}
	if err := stop(); err != nil {
		t.Fatalf("serveHTTP after its ctx ended = %v, want nil", err)
	}
	if conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		_ = conn.Close()
		t.Error("the listener still accepts connections after serveHTTP returned")
	}
}

func TestServeHTTPFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	srv := &http.Server{
		ReadHeaderTimeout: time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			close(entered)
			<-release
			_, _ = io.WriteString(w, "finished")
		}),
	}
	base, stop := startHTTP(t, srv)

	type result struct {
		status int
		body   string
	}
	got := make(chan result, 1)
	go func() {
		resp, err := (&http.Client{Timeout: httpTestTimeout}).Get(base + "/slow")
		if err != nil {
			got <- result{body: err.Error()}
			return
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		got <- result{resp.StatusCode, string(b)}
	}()
	select {
	case <-entered:
	case <-time.After(httpTestTimeout):
		t.Fatal("the request never reached the handler")
	}

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("serveHTTP returned (%v) while a request was in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if r := <-got; r.status != http.StatusOK || r.body != "finished" {
		t.Errorf("the request in flight during shutdown got %d %q, want 200 %q", r.status, r.body, "finished")
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("serveHTTP = %v, want nil after a graceful stop", err)
		}
	case <-time.After(httpTestTimeout):
		t.Fatal("serveHTTP did not return after the last request finished")
	}
}

func TestServeHTTPReportsAListenerFailure(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = ln.Close() // Accept fails at once
	srv := newHTTPServer(ln.Addr().String(), func() bool { return true }, metrics.NewRegistry(), zaptest.NewLogger(t))
	done := make(chan error, 1)
	go func() { done <- serveHTTP(t.Context(), srv, ln) }() // ctx stays live
	select {
	case err := <-done:
		if err == nil || errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serveHTTP on a closed listener = %v, want the accept error", err)
		}
	case <-time.After(httpTestTimeout):
		t.Fatal("serveHTTP did not return although its listener is closed")
	}
}

// TestServeMetricsFromStart runs serve through run() against the fake
// Slack and the sandbox: before any command, /metrics already holds every
// series docs/metrics.md documents; after a register and an add, the counters
// moved, and no label or line carries the user, the domain, the login, a
// token or a secret the sandbox handed out.
func TestServeMetricsFromStart(t *testing.T) {
	env, fake, sim := serveEnv(t)
	var out lockedBuffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"mailbot", "serve"}, envFrom(env), strings.NewReader(""), &out, &out)
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run = %v, want nil after the stop", err)
			}
		case <-time.After(httpTestTimeout):
			t.Error("serve did not stop")
		}
	}()
	base := "http://" + env["MAILBOT_HTTP_ADDR"]
	if err := fake.Wait(httpTestTimeout, "readyz 200", func() bool { return httpStatus(base+health.ReadyzPath) == http.StatusOK }); err != nil {
		t.Fatalf("%v; logs:\n%s", err, out.String())
	}
	doc := documentedMetrics(t, false)
	_, _, body := fetch(t, http.MethodGet, base+health.MetricsPath)
	checkDocumented(t, metricstest.Parse(t, body), doc)

	var replies string // the register's verification secret is in it
	for _, c := range [][2]string{{"/maildomain", "register example.com"}, {"/mailbox", "add alice@example.com"}} {
		id, err := fake.SlashCommand("UADMIN1", "CGENERAL", c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		posts, err := fake.WaitPosts(id, 1, httpTestTimeout)
		if err != nil {
			t.Fatal(err)
		}
		replies += posts[0].Raw
	}
	// The counters move just after the reply is handed over: scrape until
	// they show the two commands.
	wants := []struct {
		family string
		labels map[string]string
	}{
		{"mailbot_commands_total", map[string]string{"command": "/maildomain", "outcome": "ok"}},
		{"mailbot_commands_total", map[string]string{"command": "/mailbox", "outcome": "ok"}},
		{"mailbot_provider_requests_total", map[string]string{"provider": "pdd", "op": "register", "outcome": "ok"}},
		{"mailbot_provider_requests_total", map[string]string{"provider": "pdd", "op": "add", "outcome": "ok"}},
	}
	var fams map[string]*dto.MetricFamily
	counted := func() bool {
		_, _, body = fetch(t, http.MethodGet, base+health.MetricsPath)
		fams = metricstest.Parse(t, body)
		for _, w := range wants {
			if counterValue(fams, w.family, w.labels) != 1 {
				return false
			}
		}
		return true
	}
	if err := fake.Wait(httpTestTimeout, "the commands counted", counted); err != nil {
		for _, w := range wants {
			t.Errorf("%s%v = %v, want 1", w.family, w.labels, counterValue(fams, w.family, w.labels))
		}
	}
	checkDocumented(t, fams, doc)
	password, _ := sim.Mailbox("alice@example.com")
	secrets := regexp.MustCompile(`\b[0-9a-f]{12}\b`).FindAllString(replies, -1)
	if len(secrets) < 2 || password == "" {
		t.Fatalf("the replies hold %d verification secrets and the sandbox password %q: the commands did not run", len(secrets), password)
	}
	for _, s := range append(secrets, "UADMIN1", "CGENERAL", "example.com", "alice", password, env["PDD_TOKEN"],
		slackfake.AppToken, slackfake.BotToken) {
		if s != "" && strings.Contains(body, s) {
			t.Errorf("/metrics shows %q", s)
		}
	}
}

// counterValue is the value of the family's series with exactly labels,
// or -1 without one.
func counterValue(fams map[string]*dto.MetricFamily, family string, labels map[string]string) float64 {
	for _, m := range fams[family].GetMetric() {
		if cmp.Equal(metricstest.Labels(m), labels) {
			return m.GetCounter().GetValue()
		}
	}
	return -1
}
