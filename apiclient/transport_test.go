package apiclient_test

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// burstServer is the sandbox behind an HTTPS server on loopback that counts
// the connections it accepts and holds each burst of n requests until all
// n have arrived, so that a burst has n requests in flight at once.
type burstServer struct {
	ts     *httptest.Server
	token  string
	conns  atomic.Int64
	n      int
	stuck  atomic.Bool // a burst never filled up
	mu     sync.Mutex
	count  int
	filled chan struct{}
}

func newBurstServer(tb testing.TB, n int, h2 bool) *burstServer {
	tb.Helper()
	sim := pddsim.New()
	s := &burstServer{token: sim.NewAccount(), n: n, filled: make(chan struct{})}
	sim.OnRequest(func(pddsim.Op) { s.arrive() })
	s.ts = httptest.NewUnstartedServer(sim)
	s.ts.EnableHTTP2 = h2
	s.ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.ts.StartTLS()
	tb.Cleanup(s.ts.Close)
	return s
}

// arrive holds a request until the burst's n requests have all arrived.
func (s *burstServer) arrive() {
	s.mu.Lock()
	filled := s.filled
	if s.count++; s.count == s.n {
		close(filled)
		s.count, s.filled = 0, make(chan struct{})
	}
	s.mu.Unlock()
	select {
	case <-filled:
	case <-time.After(10 * time.Second): // a guard against a hang, not a clock
		s.stuck.Store(true)
	}
}

// trust makes t trust the server's certificate.
func (s *burstServer) trust(t *http.Transport) *http.Transport {
	pool := x509.NewCertPool()
	pool.AddCert(s.ts.Certificate())
	t.TLSClientConfig = &tls.Config{RootCAs: pool}
	return t
}

// burst runs n concurrent registers of one domain through c.
func (s *burstServer) burst(tb testing.TB, c *pdd.Adapter) {
	var wg sync.WaitGroup
	errs := make(chan error, s.n)
	for range s.n {
		wg.Go(func() {
			if _, err := c.RegisterDomain(tb.Context(), "example.com"); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Error(err)
	}
	if s.stuck.Load() {
		tb.Fatalf("a burst of %d requests never had them all in flight", s.n)
	}
}

// transportsUnderTest are Go's default transport (2 idle connections per
// host) and NewTransport's.
func transportsUnderTest(n int) []struct {
	name  string
	tuned bool
	make  func() *http.Transport
} {
	return []struct {
		name  string
		tuned bool
		make  func() *http.Transport
	}{
		{"default", false, func() *http.Transport { return http.DefaultTransport.(*http.Transport).Clone() }},
		{"tuned", true, func() *http.Transport { return apiclient.NewTransport(n) }},
	}
}

// TestTransportBursts sends two bursts of n concurrent requests over
// HTTP/1.1 and TLS: NewTransport(n) opens n connections in all, the
// default transport opens new ones for the second burst.
func TestTransportBursts(t *testing.T) {
	t.Parallel()
	const n = 8
	for _, tr := range transportsUnderTest(n) {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			s := newBurstServer(t, n, false)
			c, err := pdd.NewAdapter(s.ts.URL, s.token, apiclient.WithTransport(s.trust(tr.make())))
			if err != nil {
				t.Fatal(err)
			}
			s.burst(t, c)
			if got := s.conns.Load(); got != n {
				t.Errorf("first burst: %d connections, want %d (one per request in flight)", got, n)
			}
			s.burst(t, c)
			got := s.conns.Load()
			if tr.tuned && got > n {
				t.Errorf("two bursts: %d connections, want at most %d", got, n)
			}
			if !tr.tuned && got <= n {
				t.Errorf("two bursts with the default transport: %d connections, want more than %d (else this test proves nothing)", got, n)
			}
		})
	}
}

func TestNewTransport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want int }{{-1, 2}, {0, 2}, {1, 2}, {8, 8}, {500, 500}} {
		tr := apiclient.NewTransport(tc.in)
		if tr.MaxIdleConnsPerHost != tc.want || tr.MaxIdleConns < tc.want && tr.MaxIdleConns != 0 {
			t.Errorf("NewTransport(%d): MaxIdleConnsPerHost %d, MaxIdleConns %d; want %d and at least that", tc.in, tr.MaxIdleConnsPerHost, tr.MaxIdleConns, tc.want)
		}
		if tr.MaxConnsPerHost != 0 || !tr.ForceAttemptHTTP2 || tr.Proxy == nil ||
			tr.IdleConnTimeout != 90*time.Second || tr.TLSHandshakeTimeout != 10*time.Second {
			t.Errorf("NewTransport(%d) = %+v: want no per-host limit, HTTP/2, the proxy from the environment, 90s idle, 10s handshake", tc.in, tr)
		}
	}
	if _, err := pdd.NewAdapter(pdd.DefaultBaseURL, "T", apiclient.WithTransport(nil)); err == nil {
		t.Error("WithTransport(nil): no error")
	}
	if _, err := pdd.NewAdapter(pdd.DefaultBaseURL, "T", apiclient.WithTransport(apiclient.NewTransport(2)), apiclient.WithHTTPClient(&http.Client{})); err == nil {
		t.Error("WithTransport and WithHTTPClient together: no error")
	}
}

// BenchmarkBurst sends bursts of 8 concurrent registers over TLS on
// loopback, after one burst to warm up, and reports the new connections per
// burst: with the default transport every burst but the first opens 6, with
// NewTransport none (over HTTP/2 both use one connection).
func BenchmarkBurst(b *testing.B) {
	const n = 8
	for _, proto := range []struct {
		name string
		h2   bool
	}{{"http1", false}, {"h2", true}} {
		for _, tr := range transportsUnderTest(n) {
			b.Run(proto.name+"/"+tr.name, func(b *testing.B) {
				s := newBurstServer(b, n, proto.h2)
				c, err := pdd.NewAdapter(s.ts.URL, s.token, apiclient.WithTransport(s.trust(tr.make())))
				if err != nil {
					b.Fatal(err)
				}
				s.burst(b, c)
				warm := s.conns.Load()
				b.ReportAllocs()
				for b.Loop() {
					s.burst(b, c)
				}
				b.ReportMetric(float64(warm), "conns-first-burst")
				b.ReportMetric(float64(s.conns.Load()-warm)/float64(b.N), "new-conns/burst")
			})
		}
	}
}
