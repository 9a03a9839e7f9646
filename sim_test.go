package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/internal/testkit"
	"github.com/mailbot/mailbot/providers"
)

// simTimeout bounds each wait of the sim tests.
const simTimeout = 10 * time.Second

// simRun is `mailbot sim` running in run().
type simRun struct {
	lines  []string        // the first lines of stdout
	rest   *testkit.Buffer // stdout after them
	stderr *testkit.Buffer
	cancel context.CancelFunc
	errc   chan error
}

// startSimCommand runs `mailbot sim --addr 127.0.0.1:0 extra...` and reads the
// first n lines of its stdout.
func startSimCommand(t *testing.T, n int, extra ...string) *simRun {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	s := &simRun{rest: &testkit.Buffer{}, stderr: &testkit.Buffer{}, cancel: cancel, errc: make(chan error, 1)}
	env := map[string]string{"MAILBOT_LOG_LEVEL": "debug"}
	args := append([]string{"mailbot", "sim", "--addr", "127.0.0.1:0"}, extra...)
	go func() {
		err := run(ctx, args, envFrom(env), strings.NewReader(""), pw, s.stderr)
		_ = pw.Close() // an io.Pipe writer's Close always returns nil
		s.errc <- err
	}()
	linec := make(chan []string, 1)
	go func() {
		r := bufio.NewReader(pr)
		var lines []string
		for range n {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
		linec <- lines
		_, _ = io.Copy(s.rest, r)
	}()
	select {
	case s.lines = <-linec:
	case <-time.After(simTimeout):
		cancel()
		t.Fatalf("mailbot sim printed nothing within %s; stderr: %s", simTimeout, s.stderr)
	}
	if len(s.lines) != n {
		cancel()
		t.Fatalf("mailbot sim printed %q, want %d lines; run: %v; stderr: %s", s.lines, n, <-s.errc, s.stderr)
	}
	t.Cleanup(cancel)
	return s
}

// stop cancels the context, as a signal would, and returns run's error.
func (s *simRun) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.errc:
		return err
	case <-time.After(simTimeout):
		t.Fatalf("mailbot sim did not return within %s of the signal", simTimeout)
		return nil
	}
}

// value returns the value of the line "name=value" at index i.
func (s *simRun) value(t *testing.T, i int, name string) string {
	t.Helper()
	v, ok := strings.CutPrefix(s.lines[i], name+"=")
	if !ok {
		t.Fatalf("line %d = %q, want %s=...", i+1, s.lines[i], name)
	}
	return v
}

var simTokenRe = regexp.MustCompile(`^[A-Z2-7]{52}$`)

// TestSim runs `mailbot sim`, registers a domain over HTTP as curl would,
// adds a mailbox with apiclient, and stops it as a signal would.
func TestSim(t *testing.T) {
	t.Parallel()
	s := startSimCommand(t, 2)
	base, token := s.value(t, 0, "PDD_BASE_URL"), s.value(t, 1, "PDD_TOKEN")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+$`).MatchString(base) {
		t.Errorf("PDD_BASE_URL = %q, want http://127.0.0.1:<port>", base)
	}
	if !simTokenRe.MatchString(token) {
		t.Errorf("PDD_TOKEN = %q, want 52 base32 characters", token)
	}

	// curl -H 'PddToken: <token>' -d domain=example.com <base>/api2/admin/domain/register
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api2/admin/domain/register", strings.NewReader("domain=example.com"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("PddToken", token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	err = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("register: HTTP %d, %v", res.StatusCode, err)
	}
	secrets, _ := got["secrets"].(map[string]any)
	hex12 := regexp.MustCompile(`^[0-9a-f]{12}$`)
	if name, _ := secrets["name"].(string); !hex12.MatchString(name) {
		t.Errorf("secrets.name = %v, want 12 hex characters", secrets["name"])
	}
	if content, _ := secrets["content"].(string); !hex12.MatchString(content) {
		t.Errorf("secrets.content = %v, want 12 hex characters", secrets["content"])
	}
	delete(got, "secrets")
	want := map[string]any{"domain": "example.com", "status": "domain-activate", "stage": "owner-check", "success": "ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("register answer (-want +got):\n%s", diff)
	}

	const password = "Pa&ss+w%rd;1"
	c, err := pdd.NewAdapter(base, token)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := c.AddMailbox(t.Context(), "example.com", "ivan", password, false); err != nil || m.Address != "ivan@example.com" {
		t.Errorf("AddMailbox = %+v, %v; want ivan@example.com", m, err)
	}

	if err := s.stop(t); err != nil {
		t.Errorf("run after the signal = %v, want nil", err)
	}
	if rest := s.rest.String(); rest != "" {
		t.Errorf("stdout after the two lines: %q, want nothing", rest)
	}
	logs := s.stderr.String()
	if !strings.Contains(logs, `"provider":"pdd"`) || !strings.Contains(logs, "sandbox stopped") || !strings.Contains(logs, "/api2/admin/email/add") {
		t.Errorf("logs %q: want the provider, the requests and the stop", logs)
	}
	for _, secret := range []string{token, password, url.QueryEscape(password), secrets["name"].(string)} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs hold the secret %q:\n%s", secret, logs)
		}
	}
}

// TestSimTLS runs `mailbot sim --tls`: the certificate authority in
// SSL_CERT_FILE makes the server trusted, and the file goes at the end.
func TestSimTLS(t *testing.T) {
	t.Parallel()
	s := startSimCommand(t, 3, "--tls")
	base, token, caFile := s.value(t, 0, "PDD_BASE_URL"), s.value(t, 1, "PDD_TOKEN"), s.value(t, 2, "SSL_CERT_FILE")
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Errorf("PDD_BASE_URL = %q, want https://127.0.0.1:<port>", base)
	}
	pemBytes, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatalf("SSL_CERT_FILE: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("SSL_CERT_FILE %s holds no PEM certificate", caFile)
	}

	// Without the authority the server is not trusted: TLS is real.
	untrusted, err := pdd.NewAdapter(base, token, apiclient.WithHTTPClient(&http.Client{}), apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	var notTrusted *apiclient.Error // its cause is text only: the adapter scrubs transport errors
	if _, err := untrusted.RegisterDomain(t.Context(), "example.com"); !errors.As(err, &notTrusted) || notTrusted.Sent ||
		!strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("RegisterDomain without SSL_CERT_FILE = %v, want an unknown authority error, the request not sent", err)
	}

	for _, host := range []string{"127.0.0.1", "localhost"} {
		u := strings.Replace(base, "127.0.0.1", host, 1)
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		c, err := pdd.NewAdapter(u, token, apiclient.WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.RegisterDomain(t.Context(), "example.com")
		if err != nil || d.Status != string(pddsim.StatusDomainActivate) || d.Secrets == nil {
			t.Errorf("RegisterDomain via %s = %+v, %v; want domain-activate with secrets", u, d, err)
		}
	}

	if err := s.stop(t); err != nil {
		t.Errorf("run after the signal = %v, want nil", err)
	}
	if _, err := os.Stat(caFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SSL_CERT_FILE %s after the stop: %v, want it removed", caFile, err)
	}
}

// TestSimStopsWithRequestsInFlight stops the sandbox while a request waits
// out a minute of latency: run returns nil at once, the request is dropped.
func TestSimStopsWithRequestsInFlight(t *testing.T) {
	t.Parallel()
	s := startSimCommand(t, 2)
	base, token := s.value(t, 0, "PDD_BASE_URL"), s.value(t, 1, "PDD_TOKEN")
	res, err := http.PostForm(base+"/sim/latency", url.Values{"d": {"1m"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	c, err := pdd.NewAdapter(base, token, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.RegisterDomain(t.Context(), "example.com")
		errc <- err
	}()
	waitSimRequest(t, base, pddsim.OpRegisterDomain)
	start := time.Now()
	if err := s.stop(t); err != nil {
		t.Errorf("run after the signal = %v, want nil", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("stop took %s with a request in flight, want it prompt", took)
	}
	var pe *apiclient.Error
	if err := <-errc; !errors.As(err, &pe) || pe.HTTPStatus != 0 || pe.Code != "" {
		t.Errorf("the request in flight got %v, want a provider error without an answer", err)
	}
}

// waitSimRequest waits until one request of op has arrived at the
// sandbox, and fails the test if none does within simTimeout.
func waitSimRequest(t *testing.T, base string, op pddsim.Op) {
	t.Helper()
	testkit.Eventually(t, simTimeout, "a "+string(op)+" request at the sandbox", func() bool {
		res, err := http.Get(base + "/sim/requests")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var counts map[string]int
		if err := json.NewDecoder(res.Body).Decode(&counts); err != nil {
			t.Fatalf("/sim/requests: %v", err)
		}
		return counts[string(op)] > 0
	})
}

// TestSimRefuses checks command lines `mailbot sim` cannot run.
func TestSimRefuses(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"extra argument", []string{"--addr", "127.0.0.1:0", "now"}, `unexpected argument "now"`},
		{"unknown flag", []string{"--port", "1"}, "flag provided but not defined: -port"},
		{"bad address", []string{"--addr", "127.0.0.1:99999"}, "invalid port"},
		{"address in use", []string{"--addr", busy.Addr().String()}, "address already in use"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr testkit.Buffer
			err := run(t.Context(), append([]string{"mailbot", "sim"}, tc.args...), envFrom(nil), strings.NewReader(""), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "sim: ") {
				t.Errorf("run(sim %q) = %v, want an error with %q", tc.args, err, tc.wantErr)
			}
			if stdout.String() != "" {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
		})
	}
}

func TestSimHelp(t *testing.T) {
	t.Parallel()
	var stdout, stderr testkit.Buffer
	err := run(t.Context(), []string{"mailbot", "sim", "-h"}, envFrom(nil), strings.NewReader(""), &stdout, &stderr)
	if err != nil || !strings.Contains(stdout.String(), "usage: mailbot sim") || !strings.Contains(stdout.String(), "-tls") {
		t.Errorf("run(sim -h) = %v, stdout %q; want nil and the usage", err, stdout.String())
	}
}

// TestSimProviderLine: `mailbot sim --provider P` prints
// MAILBOT_PROVIDER=P first, so that the lines pasted select the provider
// they configure; plain `mailbot sim` prints the two PDD lines (TestSim).
func TestSimProviderLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ provider, next string }{{"pdd", "PDD_BASE_URL"}, {"mailcow", "MAILCOW_URL"}, {"google", "GOOGLE_BASE_URL"}} {
		t.Run(tc.provider, func(t *testing.T) {
			t.Parallel()
			s := startSimCommand(t, 2, "--provider", tc.provider)
			if got := s.value(t, 0, "MAILBOT_PROVIDER"); got != tc.provider {
				t.Errorf("MAILBOT_PROVIDER = %q, want %s", got, tc.provider)
			}
			s.value(t, 1, tc.next)
			if err := s.stop(t); err != nil {
				t.Errorf("run after the signal = %v, want nil", err)
			}
		})
	}
}

// TestSimSeveralProviders: `mailbot sim --provider pdd,mailcow --tls`
// serves both sandboxes at once, each at its own address behind one
// certificate authority, and prints MAILBOT_PROVIDER=pdd, then each one's
// variables, then SSL_CERT_FILE: what a first try of a deployment with
// MAILBOT_ROUTES needs. Each sandbox answers its own adapter.
func TestSimSeveralProviders(t *testing.T) {
	t.Parallel()
	s := startSimCommand(t, 7, "--provider", "pdd,mailcow", "--tls")
	if got := s.value(t, 0, "MAILBOT_PROVIDER"); got != "pdd" {
		t.Errorf("MAILBOT_PROVIDER = %q, want pdd, the first named", got)
	}
	pddURL, token := s.value(t, 1, "PDD_BASE_URL"), s.value(t, 2, "PDD_TOKEN")
	mailcowURL, key, mx := s.value(t, 3, "MAILCOW_URL"), s.value(t, 4, "MAILCOW_API_KEY"), s.value(t, 5, "MAILCOW_MX")
	caFile := s.value(t, 6, "SSL_CERT_FILE")
	if pddURL == mailcowURL || !strings.HasPrefix(pddURL, "https://") || !strings.HasPrefix(mailcowURL, "https://") {
		t.Fatalf("PDD_BASE_URL = %q, MAILCOW_URL = %q: want two https addresses", pddURL, mailcowURL)
	}
	pemBytes, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatalf("SSL_CERT_FILE: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	p, err := pdd.NewAdapter(pddURL, token, apiclient.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := p.RegisterDomain(t.Context(), "example.com"); err != nil || d.Status != string(pddsim.StatusDomainActivate) {
		t.Errorf("PDD RegisterDomain = %+v, %v; want domain-activate", d, err)
	}
	m, err := mailcow.New(mailcowURL, key, mx, apiclient.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.RegisterDomain(t.Context(), "old.example"); err != nil {
		t.Errorf("mailcow RegisterDomain = %v, want the domain added", err)
	}
	if _, err := m.DomainStatus(t.Context(), "example.com"); apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
		t.Errorf("mailcow DomainStatus of PDD's domain = %v, want not found: two sandboxes, not one", err)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("run after the signal = %v, want nil", err)
	}
	if _, err := os.Stat(caFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SSL_CERT_FILE %s after the stop: %v, want it removed", caFile, err)
	}
}

// TestSimRefusesProviders: an unknown provider in --provider's list, or
// one named twice, is a usage error, and nothing is served.
func TestSimRefusesProviders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ list, want string }{
		{"pdd,exchange", `"exchange"`},
		{"mailcow,mailcow", "named twice"},
	} {
		var stdout, stderr testkit.Buffer
		err := run(t.Context(), []string{"mailbot", "sim", "--addr", "127.0.0.1:0", "--provider", tc.list}, envFrom(nil), strings.NewReader(""), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) || stdout.String() != "" {
			t.Errorf("sim --provider %s = %v, stdout %q, stderr %q; want a refusal with %s and nothing printed", tc.list, err, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// simTLS is the sandboxes' certificate authority and server TLS, as
// mailbot sim --tls makes them.
func simTLS(host string) (caFile string, _ *tls.Config, _ error) { return providers.SimTLS(host) }
