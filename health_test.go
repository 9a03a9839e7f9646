package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zaptest"
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
func startHealth(t *testing.T, ready func() bool, g prometheus.Gatherer) (baseURL string, stop func() error) {
	t.Helper()
	srv := newHTTPServer("127.0.0.1:0", ready, g, zaptest.NewLogger(t))
	return startHTTP(t, srv)
}

// fetch sends one request and returns the status, a header and the body.
func fetch(t *testing.T, method, url string) (status int, header http.Header, body string) {
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
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func TestHTTPServerHealthz(t *testing.T) {
	t.Parallel()
	// Liveness does not depend on readiness.
	base, _ := startHealth(t, func() bool { return false }, prometheus.NewRegistry())
	status, h, body := fetch(t, http.MethodGet, base+healthzPath)
	if status != http.StatusOK || body != "ok\n" {
		t.Errorf("GET %s = %d %q, want 200 %q", healthzPath, status, body, "ok\n")
	}
	if got := h.Get("Cache-Control"); got != "no-store" {
		t.Errorf("GET %s: Cache-Control = %q, want no-store", healthzPath, got)
	}
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, "text/plain") {
		t.Errorf("GET %s: Content-Type = %q, want text/plain", healthzPath, got)
	}
}

func TestHTTPServerReadyzFollowsReady(t *testing.T) {
	t.Parallel()
	var ready atomic.Bool
	base, _ := startHealth(t, ready.Load, prometheus.NewRegistry())
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
		status, _, body := fetch(t, http.MethodGet, base+readyzPath)
		if status != step.wantStatus || body != step.wantBody {
			t.Errorf("ready %v: GET %s = %d %q, want %d %q", step.ready, readyzPath, status, body, step.wantStatus, step.wantBody)
		}
	}
}

func TestHTTPServerMetrics(t *testing.T) {
	t.Parallel()
	reg := newRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "mailbot_test_events_total", Help: "Test events."})
	reg.MustRegister(c)
	c.Add(3)
	base, _ := startHealth(t, func() bool { return true }, reg)

	status, h, body := fetch(t, http.MethodGet, base+metricsPath)
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200; body:\n%s", metricsPath, status, body)
	}
	if got := h.Get("Content-Type"); !strings.HasPrefix(got, "text/plain") {
		t.Errorf("GET %s: Content-Type = %q, want the Prometheus text format", metricsPath, got)
	}
	want := []string{"mailbot_test_events_total 3", "go_goroutines ", "go_info{"}
	if runtime.GOOS == "linux" {
		want = append(want, "process_resident_memory_bytes ", "process_start_time_seconds ")
	}
	for _, w := range want {
		if !strings.Contains(body, "\n"+w) {
			t.Errorf("GET %s: body lacks a line starting %q", metricsPath, w)
		}
	}
}

func TestHTTPServerRoutes(t *testing.T) {
	t.Parallel()
	base, _ := startHealth(t, func() bool { return true }, prometheus.NewRegistry())
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodHead, healthzPath, http.StatusOK},
		{http.MethodHead, readyzPath, http.StatusOK},
		{http.MethodPost, healthzPath, http.StatusMethodNotAllowed},
		{http.MethodPost, readyzPath, http.StatusMethodNotAllowed},
		{http.MethodDelete, metricsPath, http.StatusMethodNotAllowed},
		{http.MethodGet, "/", http.StatusNotFound},
		{http.MethodGet, "/debug/pprof/", http.StatusNotFound},
		{http.MethodGet, healthzPath + "/x", http.StatusNotFound},
	} {
		if status, _, _ := fetch(t, tc.method, base+tc.path); status != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, status, tc.want)
		}
	}
}

func TestHTTPServerLimits(t *testing.T) {
	t.Parallel()
	srv := newHTTPServer(":8080", func() bool { return true }, prometheus.NewRegistry(), zaptest.NewLogger(t))
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
	if srv.WriteTimeout <= metricsTimeout {
		t.Errorf("WriteTimeout %v <= metricsTimeout %v: a slow scrape would be cut instead of answered", srv.WriteTimeout, metricsTimeout)
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
	base, stop := startHealth(t, func() bool { return true }, prometheus.NewRegistry())
	if status, _, _ := fetch(t, http.MethodGet, base+healthzPath); status != http.StatusOK {
		t.Fatalf("GET %s before stop = %d, want 200", healthzPath, status)
	}
	if err := stop(); err != nil {
		t.Fatalf("serveHTTP after its ctx ended = %v, want nil", err)
	}
	if conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		conn.Close()
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
		defer resp.Body.Close()
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
	ln.Close() // Accept fails at once
	srv := newHTTPServer(ln.Addr().String(), func() bool { return true }, prometheus.NewRegistry(), zaptest.NewLogger(t))
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

func TestHealthNewRegistry(t *testing.T) {
	t.Parallel()
	// Two registries side by side: nothing is registered globally.
	_ = newRegistry()
	families, err := newRegistry().Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	names := make(map[string]bool)
	for _, f := range families {
		names[f.GetName()] = true
	}
	want := []string{"go_goroutines", "go_info", "go_memstats_heap_alloc_bytes"}
	if runtime.GOOS == "linux" {
		want = append(want, "process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds")
	}
	for _, w := range want {
		if !names[w] {
			t.Errorf("newRegistry().Gather() lacks %s", w)
		}
	}
}
