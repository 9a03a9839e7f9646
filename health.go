package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/internal/health"
	"github.com/mailbot/mailbot/internal/metrics"
)

// Limits of the health and metrics listener; its paths and the bound of its
// graceful stop are in internal/health, which the manifests' tests read
// too. Its clients are the kubelet and
// Prometheus on the cluster network: small requests, quick answers.
const (
	httpReadHeaderTimeout = 5 * time.Second
	httpReadTimeout       = 10 * time.Second
	httpWriteTimeout      = 30 * time.Second
	httpIdleTimeout       = 2 * time.Minute
	httpMaxHeaderBytes    = 16 << 10

	// metricsInFlight caps concurrent scrapes: more answer 503.
	metricsInFlight = 4
)

// debugRoutes is the profiling endpoints of a binary built with -tags
// pprof (pprof.go), served for the paths the health routes do not name;
// nil in the release binary.
var debugRoutes http.Handler

// newHTTPServer returns the health and metrics server of MAILBOT_HTTP_ADDR:
//
//   - GET /healthz answers 200 "ok" while the process lives (Kubernetes
//     liveness). It does not look at the Slack connection: a dropped socket
//     is the bot's to reconnect, and restarting the process would not help.
//   - GET /readyz answers 200 only while ready() is true and 503 otherwise
//     (Kubernetes readiness). The caller's ready reports whether the Socket
//     Mode connection is up, and turns false when shutdown begins.
//   - GET /metrics serves reg and the Go runtime and process metrics, in
//     the Prometheus text format: see [writeMetrics].
//
// The caller skips the listener when MAILBOT_HTTP_ADDR is empty, and owns
// the listener: see [serveHTTP]. Nothing here carries a secret: the probes
// answer fixed words and the metrics hold no token, password or user ID.
func newHTTPServer(addr string, ready func() bool, reg *metrics.Registry, logger *zap.Logger) *http.Server {
	logger = logger.Named("http")
	errLog, err := zap.NewStdLogAt(logger, zap.WarnLevel)
	if err != nil { // only for an invalid level, which WarnLevel is not
		errLog = zap.NewStdLog(logger)
	}
	rt := routes{
		health.HealthzPath: func(w http.ResponseWriter, _ *http.Request) { writeProbe(w, http.StatusOK, "ok") },
		health.ReadyzPath: func(w http.ResponseWriter, _ *http.Request) {
			if ready() {
				writeProbe(w, http.StatusOK, "ready")
				return
			}
			writeProbe(w, http.StatusServiceUnavailable, "not ready")
		},
		health.MetricsPath: metricsHandler(reg).ServeHTTP,
	}
	return &http.Server{
		Addr:              addr,
		Handler:           rt,
		ReadHeaderTimeout: httpReadHeaderTimeout,
		ReadTimeout:       httpReadTimeout,
		WriteTimeout:      httpWriteTimeout,
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
		ErrorLog:          errLog,
	}
}

// routes are the listener's GET routes by exact path. The three routes
// need no http.ServeMux, which records the file and line of every
// route's registration (runtime.Caller), reading the binary's file and
// line tables into the process at start for nothing. As the mux would, a
// method other than GET or HEAD is answered 405 with the methods allowed,
// and any other path 404 (or, in a profiling build, debugRoutes).
type routes map[string]http.HandlerFunc

func (rt routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, ok := rt[r.URL.Path]
	switch {
	case !ok && debugRoutes != nil:
		debugRoutes.ServeHTTP(w, r)
	case !ok:
		http.NotFound(w, r)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
	default:
		h(w, r)
	}
}

// writeProbe answers a probe with a short plain-text body that no cache keeps.
func writeProbe(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body+"\n")
}

// serveHTTP serves srv on ln until ctx ends, then shuts srv down gracefully:
// it stops accepting, lets requests in flight finish for up to
// health.ShutdownTimeout, and then closes what is left. It returns nil after a
// shutdown that ctx asked for, and an error when serving fails on its own
// (the listener broke) or the graceful stop ran out of time. It closes ln.
//
// The caller binds ln itself (net.Listen("tcp", cfg.HTTPAddr)), so that an
// address in use stops start-up with a clear error. To keep /readyz
// answering 503 while the bot drains its work after SIGTERM, pass a ctx that
// ends when the bot has stopped, not the signal's ctx.
func serveHTTP(ctx context.Context, srv *http.Server, ln net.Listener) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("http listener %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), health.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(stopCtx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("http listener %s: shutdown: %w", ln.Addr(), err)
	}
	return nil
}
