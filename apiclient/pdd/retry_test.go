package pdd_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// TestRetries injects faults into the sandbox and counts what it saw:
// "unknown" is retried for both operations, a failure after the request was
// sent only for register.
func TestRetries(t *testing.T) {
	t.Parallel()
	unknown := func(n int) func(*testing.T, *env) {
		return func(_ *testing.T, e *env) { e.sim.FailNext(n) }
	}
	fault := func(f pddsim.Fault, n int) func(*testing.T, *env) {
		return func(t *testing.T, e *env) {
			if err := e.sim.InjectFault(f, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	code := func(c pddsim.Code) func(*testing.T, *env) {
		return func(_ *testing.T, e *env) { e.sim.FailNextWith(1, c) }
	}
	isCode := func(c pddsim.Code) func(error) bool {
		return func(err error) bool { return codeOf(err) == string(c) }
	}
	isStatus := func(status int, reason string) func(error) bool {
		return func(err error) bool {
			var re *apiclient.Error
			return errors.As(err, &re) && re.HTTPStatus == status && strings.Contains(re.Message, reason)
		}
	}
	isSentTransport := func(err error) bool {
		var te *apiclient.Error
		return errors.As(err, &te) && te.HTTPStatus == 0 && te.Sent
	}
	tests := []struct {
		name         string
		inject       func(*testing.T, *env)
		call         call
		wantErr      func(error) bool // nil: success
		wantRequests int
		wantClass    apiclient.Class // of the error, if any
		wantMailbox  bool            // whether u@example.com exists afterwards
	}{
		{"register: unknown twice", unknown(2), register("example.com"), nil, 3, 0, false},
		{"register: unknown 3 times", unknown(3), register("example.com"), isCode(pddsim.CodeUnknown), 3, apiclient.ClassTemporary, false},
		{"add: unknown twice", unknown(2), add("example.com", "u", password), nil, 3, 0, true},
		{"add: unknown 3 times", unknown(3), add("example.com", "u", password), isCode(pddsim.CodeUnknown), 3, apiclient.ClassTemporary, false},
		{"register: 502 twice", fault(pddsim.FaultBadGateway, 2), register("example.com"), nil, 3, 0, false},
		{"register: 502 3 times", fault(pddsim.FaultBadGateway, 3), register("example.com"), isStatus(502, "502 Bad Gateway"), 3, apiclient.ClassTemporary, false},
		{"add: 502 once", fault(pddsim.FaultBadGateway, 1), add("example.com", "u", password), isStatus(502, "unexpected HTTP status"), 1, apiclient.ClassUncertain, false},
		{"register: reset once", fault(pddsim.FaultReset, 1), register("example.com"), nil, 2, 0, false},
		{"add: reset once", fault(pddsim.FaultReset, 1), add("example.com", "u", password), isSentTransport, 1, apiclient.ClassUncertain, true},
		{"register: truncated once", fault(pddsim.FaultTruncated, 1), register("example.com"), isStatus(200, "truncated"), 1, apiclient.ClassUncertain, false},
		{"add: truncated once", fault(pddsim.FaultTruncated, 1), add("example.com", "u", password), isStatus(200, "truncated"), 1, apiclient.ClassUncertain, true},
		{"register: other codes are final", code(pddsim.CodeBlocked), register("example.com"), isCode(pddsim.CodeBlocked), 1, apiclient.ClassRefused, false},
		{"add: other codes are final", code(pddsim.CodeNoReply), add("example.com", "u", password), isCode(pddsim.CodeNoReply), 1, apiclient.ClassRefused, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			before := e.sim.Requests("")
			tc.inject(t, e)
			err := tc.call(t, e)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Errorf("error = %v, want none", err)
			case tc.wantErr != nil && !tc.wantErr(err):
				t.Errorf("error = %v (%T), not the one expected", err, err)
			case apiclient.ClassOf(err) != tc.wantClass:
				t.Errorf("error %v of class %s, want %s", err, apiclient.ClassOf(err), tc.wantClass)
			}
			if got := e.sim.Requests("") - before; got != tc.wantRequests {
				t.Errorf("the sandbox saw %d requests, want %d", got, tc.wantRequests)
			}
			if _, ok := e.sim.Mailbox("u@example.com"); ok != tc.wantMailbox {
				t.Errorf("u@example.com exists = %t, want %t", ok, tc.wantMailbox)
			}
			checkNoSecrets(t, err, e.token, password)
		})
	}
}

// TestRetryPolicy checks that Attempts bounds the requests.
func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	for _, attempts := range []int{1, 2, 5} {
		e := setup(t, false, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: attempts}))
		e.sim.FailNext(10)
		before := e.sim.Requests("")
		_, err := e.c.RegisterDomain(t.Context(), "example.com")
		var apiErr *apiclient.Error
		if !errors.As(err, &apiErr) || apiErr.Attempts != attempts {
			t.Errorf("Attempts %d: error = %v, want unknown after %d attempts", attempts, err, attempts)
		}
		if got := e.sim.Requests("") - before; got != attempts {
			t.Errorf("Attempts %d: the sandbox saw %d requests", attempts, got)
		}
	}
}

// TestNeverSent checks that a request that never left (the dial failed) is
// retried for add too, and says it was not sent.
func TestNeverSent(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
		},
	}}
	c, err := pdd.NewAdapter("http://127.0.0.1:9", "TOKEN", apiclient.WithHTTPClient(hc), apiclient.WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AddMailbox(t.Context(), "example.com", "u", password, false)
	var te *apiclient.Error
	if !errors.As(err, &te) || te.Sent || te.Op != apiclient.OpAdd || te.Class != apiclient.ClassTemporary {
		t.Fatalf("error = %v, want a temporary error of add, not sent", err)
	}
	if got := dials.Load(); got != 3 {
		t.Errorf("dialled %d times, want 3", got)
	}
	checkNoSecrets(t, err, "TOKEN", password)
}

// attemptTimeout is the per-attempt timeout of the timeout tests: long
// enough for a dial and a TLS handshake on a busy machine under -race, so
// that every attempt reaches the sandbox before it times out.
const attemptTimeout = 250 * time.Millisecond

// TestTimeout gives each attempt attemptTimeout against a sandbox that
// answers after a minute: register is retried, add is not.
func TestTimeout(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			tests := []struct {
				name         string
				call         call
				wantRequests int
			}{
				{"register", register("example.com"), 3},
				{"add", add("example.com", "u", password), 1},
			}
			for _, tc := range tests {
				e := setup(t, tr.tls, apiclient.WithTimeout(attemptTimeout))
				e.sim.SetLatency(time.Minute)
				before := e.sim.Requests("")
				start := time.Now()
				err := tc.call(t, e)
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("%s: took %s, want about 3×%s", tc.name, took, attemptTimeout)
				}
				var te *apiclient.Error
				if !errors.As(err, &te) || !te.Timeout || !te.Sent || te.Class != apiclient.ClassUncertain || !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%s: error = %v, want an uncertain error, sent, that timed out", tc.name, err)
				}
				if got := e.sim.Requests("") - before; got != tc.wantRequests {
					t.Errorf("%s: the sandbox saw %d requests, want %d", tc.name, got, tc.wantRequests)
				}
				checkNoSecrets(t, err, e.token, password)
			}
		})
	}
}

// TestCancel cancels the caller's context before, during a request and
// during a backoff.
func TestCancel(t *testing.T) {
	t.Parallel()
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		e := setup(t, false)
		before := e.sim.Requests("")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := e.c.RegisterDomain(ctx, "example.com")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if got := e.sim.Requests("") - before; got != 0 {
			t.Errorf("the sandbox saw %d requests, want none", got)
		}
	})
	t.Run("during a request", func(t *testing.T) {
		t.Parallel()
		e := setup(t, false)
		e.sim.SetLatency(time.Minute)
		before := e.sim.Requests("")
		ctx, cancel := context.WithCancel(t.Context())
		// The sandbox has the request, and holds it for its latency: cancel.
		e.sim.OnRequest(func(pddsim.Op) { cancel() })
		start := time.Now()
		_, err := e.c.RegisterDomain(ctx, "example.com")
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Errorf("error = %v after %s, want context.Canceled soon", err, time.Since(start))
		}
		var te *apiclient.Error
		if !errors.As(err, &te) || !te.Sent {
			t.Errorf("error = %v, want an error of a request that was sent", err)
		}
		if got := e.sim.Requests("") - before; got != 1 {
			t.Errorf("the sandbox saw %d requests, want 1 (no retry once cancelled)", got)
		}
	})
	t.Run("during a backoff", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		// The hook runs when the retry is decided, just before its backoff
		// of an hour: cancel there.
		var hooked []string
		hook := apiclient.WithRetryHook(func(_ apiclient.Op, reason string) {
			hooked = append(hooked, reason)
			cancel()
		})
		e := setup(t, false, hook, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}))
		e.sim.FailNext(3)
		before := e.sim.Requests("")
		start := time.Now()
		_, err := e.c.RegisterDomain(ctx, "example.com")
		if codeOf(err) != string(pddsim.CodeUnknown) || time.Since(start) > 5*time.Second {
			t.Errorf("error = %v after %s, want the last answer, unknown, soon", err, time.Since(start))
		}
		if got := e.sim.Requests("") - before; got != 1 {
			t.Errorf("the sandbox saw %d requests, want 1", got)
		}
		if len(hooked) != 1 || hooked[0] != apiclient.ClassTemporary.String() {
			t.Errorf("retry hook calls = %v, want one, temporary", hooked)
		}
	})
}

// TestConcurrentUse runs one adapter from many goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	e.sim.FailNext(5)
	errc := make(chan error, 20)
	for i := range 20 {
		go func() {
			_, err := e.c.AddMailbox(t.Context(), "example.com", "user"+string(rune('a'+i)), password, false)
			errc <- err
		}()
	}
	for range 20 {
		if err := <-errc; err != nil {
			t.Errorf("AddMailbox = %v", err)
		}
	}
}

// codeOf is the PDD code err carries, or "".
func codeOf(err error) string {
	var e *apiclient.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
