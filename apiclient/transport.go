package apiclient

import (
	"net"
	"net/http"
	"time"
)

// NewTransport returns an HTTP transport for one upstream (the PDD API,
// Slack's Web API, Slack's response_url hosts) that keeps warm as many
// connections as maxConns requests may use at once (at least 2), so that a
// burst of maxConns concurrent requests and every burst after it reuse
// those connections instead of opening new ones, each with its own TLS
// handshake. http.DefaultTransport keeps only 2 idle connections per host.
//
// It is http.DefaultTransport's configuration otherwise: the proxy from the
// environment (HTTPS_PROXY, NO_PROXY), HTTP/2 when the server offers it,
// idle connections closed after 90 s, a TLS handshake bounded by 10 s, and
// no limit on connections per host (a limit would queue requests behind
// it). Timeouts of a whole request stay the client's business: the PDD
// client keeps its per-request timeout.
func NewTransport(maxConns int) *http.Transport {
	n := max(maxConns, 2)
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		t = &http.Transport{DialContext: d.DialContext, ExpectContinueTimeout: time.Second}
	}
	t.Proxy = http.ProxyFromEnvironment
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConnsPerHost = n
	if t.MaxIdleConns != 0 && t.MaxIdleConns < n { // 0 is no limit
		t.MaxIdleConns = n
	}
	t.MaxConnsPerHost = 0
	t.IdleConnTimeout = 90 * time.Second
	t.TLSHandshakeTimeout = 10 * time.Second
	return t
}
