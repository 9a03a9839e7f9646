package pdd_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// pathEnv is the sandbox over HTTPS on loopback, an adapter sending
// through its transport as the serve command builds one (a client with a
// timeout, retries on), and a bare client of the same transport as the
// floor bot has.
type pathEnv struct {
	a           *pdd.Adapter
	bare        *http.Client
	base, token string
}

func newPathEnv(b *testing.B) *pathEnv {
	sim := pddsim.New()
	token := sim.NewAccount()
	ts := httptest.NewTLSServer(sim)
	b.Cleanup(ts.Close)
	tr := ts.Client().Transport
	a, err := pdd.NewAdapter(ts.URL, token, apiclient.WithTransport(tr))
	if err != nil {
		b.Fatal(err)
	}
	// Registered and not verified, as a burst's domains are: each answer
	// carries the verification secrets.
	if _, err := a.RegisterDomain(b.Context(), benchDomain); err != nil {
		b.Fatal(err)
	}
	return &pathEnv{a: a, bare: &http.Client{Timeout: 10 * time.Second, Transport: tr}, base: ts.URL, token: token}
}

// benchDomain is the domain BenchmarkPath reads and registers.
const benchDomain = "bench.example"

// bareRequest is the floor bot's PDD request: the request built, sent,
// its body read, nothing decoded.
func (e *pathEnv) bareRequest(b *testing.B, method, endpoint, domain, want string) {
	form := url.Values{"domain": {domain}}
	target, body := e.base+"/api2/admin/"+endpoint, io.Reader(nil)
	if method == http.MethodPost {
		body = strings.NewReader(form.Encode())
	} else {
		target += "?" + form.Encode()
	}
	req, err := http.NewRequestWithContext(b.Context(), method, target, body)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("PddToken", e.token)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := e.bare.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(string(data), want) {
		b.Fatalf("%s %s: %d %q %v", method, endpoint, res.StatusCode, data, err)
	}
	_ = res.Body.Close()
}

// BenchmarkPath is the PDD status read (of a domain registered, and of
// one unknown: a register's read first) and register as the core makes
// them, each beside the bare request the floor bot makes to the same
// sandbox: the difference is the adapter's client path.
func BenchmarkPath(b *testing.B) {
	e := newPathEnv(b)
	const ok = `"success":"ok"`
	cases := []struct {
		name string
		fn   func()
	}{
		{"status/bare", func() { e.bareRequest(b, http.MethodGet, "domain/registration_status", benchDomain, ok) }},
		{"status/adapter", func() {
			if _, err := e.a.DomainStatus(b.Context(), benchDomain); err != nil {
				b.Fatal(err)
			}
		}},
		{"status-unknown/bare", func() {
			e.bareRequest(b, http.MethodGet, "domain/registration_status", "unknown.example", `"success":"error"`)
		}},
		{"status-unknown/adapter", func() {
			if _, err := e.a.DomainStatus(b.Context(), "unknown.example"); apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
				b.Fatalf("status of an unknown domain: %v, want not found", err)
			}
		}},
		{"register/bare", func() { e.bareRequest(b, http.MethodPost, "domain/register", benchDomain, ok) }},
		{"register/adapter", func() {
			if _, err := e.a.RegisterDomain(b.Context(), benchDomain); err != nil {
				b.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
		})
	}
}
