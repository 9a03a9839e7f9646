package pdd_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// failUnknown makes the sandbox answer "unknown" to the next n requests.
func failUnknown(n int) func(*testing.T, *env) {
	return func(_ *testing.T, e *env) { e.sim.FailNext(n) }
}

// faults queues the faults in the sandbox, one request each.
func faults(fs ...pddsim.Fault) func(*testing.T, *env) {
	return func(t *testing.T, e *env) {
		for _, f := range fs {
			if err := e.sim.InjectFault(f, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestNothingDone sorts the outcomes of failed calls against the sandbox
// over HTTP: certainly nothing done (the operation may be offered again),
// maybe done (the mailbox may exist), or a definitive failure (neither).
func TestNothingDone(t *testing.T) {
	t.Parallel()
	takenByOther := func(t *testing.T, e *env) {
		if _, err := e.client(t, e.sim.NewAccount()).RegisterDomain(t.Context(), "other.example"); err != nil {
			t.Fatal(err)
		}
	}
	mailboxExists := func(t *testing.T, e *env) {
		if _, err := e.c.AddMailbox(t.Context(), "example.com", "taken", "Secret-1", false); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name         string
		inject       func(*testing.T, *env)
		call         call
		wantNothing  bool
		wantMaybe    bool
		wantRequests int
	}{
		{"register: unknown after the retries", failUnknown(3), register("example.com"), true, false, 3},
		{"add: unknown after the retries", failUnknown(3), add("example.com", "u", password), true, false, 3},
		{"register: 502 after the retries", faults("502", "502", "502"), register("example.com"), true, false, 3},
		{"register: 502, unknown, 502", func(t *testing.T, e *env) {
			faults("502")(t, e)
			e.sim.FailNext(1)
			faults("502")(t, e)
		}, register("example.com"), true, false, 3},
		{"add: 502", faults("502"), add("example.com", "u", password), false, true, 1},
		{"add: reset", faults("reset"), add("example.com", "u", password), false, true, 1},
		{"add: truncated", faults("truncated"), add("example.com", "u", password), false, true, 1},
		{"register: truncated", faults("truncated"), register("new.example"), false, true, 1},
		{"register: reset 3 times", faults("reset", "reset", "reset"), register("new.example"), false, true, 3},
		{"register: reset, then 502 twice", faults("reset", "502", "502"), register("new.example"), false, true, 3},
		{"register: reset, then unknown twice", func(t *testing.T, e *env) {
			faults("reset")(t, e)
			e.sim.FailNext(2)
		}, register("new.example"), false, true, 3},
		{"register: occupied", takenByOther, register("other.example"), false, false, 1},
		{"add: occupied", mailboxExists, add("example.com", "taken", password), false, false, 1},
		{"add: not allowed", takenByOther, add("other.example", "u", password), false, false, 1},
		{"add: bad password", nil, add("example.com", "u", "short"), false, false, 1},
		{"add: blocked", func(_ *testing.T, e *env) { e.sim.FailNextWith(1, pddsim.CodeBlocked) }, add("example.com", "u", password), false, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			if tc.inject != nil {
				tc.inject(t, e)
			}
			before := e.sim.Requests("")
			err := tc.call(t, e)
			if err == nil {
				t.Fatal("the call succeeded, want an error")
			}
			if got := apiclient.NothingDone(err); got != tc.wantNothing {
				t.Errorf("NothingDone(%v) = %t, want %t", err, got, tc.wantNothing)
			}
			if got := apiclient.MayHaveHappened(err); got != tc.wantMaybe {
				t.Errorf("MayHaveHappened(%v) = %t, want %t", err, got, tc.wantMaybe)
			}
			if got := e.sim.Requests("") - before; got != tc.wantRequests {
				t.Errorf("the sandbox saw %d requests, want %d", got, tc.wantRequests)
			}
			wrapped := fmt.Errorf("run: %w", err)
			if apiclient.NothingDone(wrapped) != tc.wantNothing || apiclient.MayHaveHappened(wrapped) != tc.wantMaybe {
				t.Errorf("a wrapped error is judged otherwise than %v", err)
			}
		})
	}
}

// TestNothingDoneUnsent covers requests that never left: a refused
// connection, and a context that ended before sending.
func TestNothingDoneUnsent(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	if err := l.Close(); err != nil { // nothing listens there now: the connection is refused
		t.Fatal(err)
	}
	refused, err := pdd.NewAdapter(closed, "TOKEN", apiclient.WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	e := setup(t, false)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, tc := range []struct {
		name string
		c    *pdd.Adapter
		ctx  context.Context
	}{
		{"refused", refused, t.Context()},
		{"context cancelled", e.c, cancelled},
		{"context expired", e.c, expired},
	} {
		before := e.sim.Requests("")
		_, regErr := tc.c.RegisterDomain(tc.ctx, "example.com")
		_, addErr := tc.c.AddMailbox(tc.ctx, "example.com", "u", password, false)
		for _, err := range []error{regErr, addErr} {
			if err == nil || !apiclient.NothingDone(err) || apiclient.MayHaveHappened(err) {
				t.Errorf("%s: NothingDone(%v) = %t, MayHaveHappened = %t; want true, false", tc.name, err, apiclient.NothingDone(err), apiclient.MayHaveHappened(err))
			}
		}
		if got := e.sim.Requests("") - before; got != 0 {
			t.Errorf("%s: the sandbox saw %d requests, want none", tc.name, got)
		}
	}
}

// TestNothingDoneTimeout: an add that timed out was sent, so it may have
// happened; so may a register.
func TestNothingDoneTimeout(t *testing.T) {
	t.Parallel()
	e := setup(t, false, apiclient.WithTimeout(attemptTimeout))
	e.sim.SetLatency(time.Minute)
	for _, c := range []call{add("example.com", "u", password), register("example.com")} {
		err := c(t, e)
		if err == nil || apiclient.NothingDone(err) || !apiclient.MayHaveHappened(err) {
			t.Errorf("NothingDone(%v) = %t, MayHaveHappened = %t; want false, true", err, apiclient.NothingDone(err), apiclient.MayHaveHappened(err))
		}
	}
}

// TestNothingDoneStatuses answers other HTTP statuses: 429 is a refusal
// before any work; 404 and 400 are definitive.
func TestNothingDoneStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status      int
		wantNothing bool
	}{{429, true}, {404, false}, {400, false}} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
		}))
		c, err := pdd.NewAdapter(ts.URL, "TOKEN", apiclient.WithRetry(fastRetry))
		if err != nil {
			t.Fatal(err)
		}
		_, regErr := c.RegisterDomain(t.Context(), "example.com")
		_, addErr := c.AddMailbox(t.Context(), "example.com", "u", password, false)
		for _, err := range []error{regErr, addErr} {
			if apiclient.NothingDone(err) != tc.wantNothing || apiclient.MayHaveHappened(err) {
				t.Errorf("HTTP %d: NothingDone(%v) = %t, MayHaveHappened = %t; want %t, false", tc.status, err, apiclient.NothingDone(err), apiclient.MayHaveHappened(err), tc.wantNothing)
			}
		}
		ts.Close()
	}
	for _, err := range []error{nil, errors.New("internal"), context.Canceled} {
		if apiclient.NothingDone(err) || apiclient.MayHaveHappened(err) {
			t.Errorf("NothingDone(%v) or MayHaveHappened: true, want false", err)
		}
	}
}

// retryCall is one retry hook call: the operation, and the class of the
// failure retried.
type retryCall struct {
	Op     apiclient.Op
	Reason string
}

// retryRecorder records the retry hook's calls.
type retryRecorder struct {
	mu    sync.Mutex
	calls []retryCall
}

func (r *retryRecorder) hook(op apiclient.Op, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, retryCall{op, reason})
}

func (r *retryRecorder) take() []retryCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

// TestRetryHook checks that the hook hears of every retry, with its reason,
// and of nothing else.
func TestRetryHook(t *testing.T) {
	t.Parallel()
	reg, addOp := apiclient.OpRegister, apiclient.OpAdd
	temporary, uncertain := apiclient.ClassTemporary.String(), apiclient.ClassUncertain.String()
	repeat := func(c retryCall, n int) []retryCall {
		var out []retryCall
		for range n {
			out = append(out, c)
		}
		return out
	}
	tests := []struct {
		name    string
		opts    []apiclient.Option
		inject  func(*testing.T, *env)
		call    call
		want    []retryCall
		wantErr bool
	}{
		{"success", nil, nil, register("example.com"), nil, false},
		{"register: unknown twice", nil, failUnknown(2), register("example.com"), repeat(retryCall{reg, temporary}, 2), false},
		{"register: unknown 3 times", nil, failUnknown(3), register("example.com"), repeat(retryCall{reg, temporary}, 2), true},
		{"add: unknown once", nil, failUnknown(1), add("example.com", "u", password), []retryCall{{addOp, temporary}}, false},
		{"register: 502, reset", nil, faults("502", "reset"), register("example.com"), []retryCall{{reg, temporary}, {reg, uncertain}}, false},
		{"add: 502 is not retried", nil, faults("502"), add("example.com", "u", password), nil, true},
		{"add: reset is not retried", nil, faults("reset"), add("example.com", "u", password), nil, true},
		{"register: timeouts", []apiclient.Option{apiclient.WithTimeout(attemptTimeout)}, func(_ *testing.T, e *env) { e.sim.SetLatency(time.Minute) },
			register("example.com"), repeat(retryCall{reg, uncertain}, 2), true},
		{"add: occupied is final", nil, func(_ *testing.T, e *env) { e.sim.FailNextWith(1, pddsim.CodeOccupied) }, add("example.com", "u", password), nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &retryRecorder{}
			e := setup(t, false, append(tc.opts, apiclient.WithRetryHook(rec.hook))...)
			rec.take() // the setup's register
			if tc.inject != nil {
				tc.inject(t, e)
			}
			if err := tc.call(t, e); (err != nil) != tc.wantErr {
				t.Errorf("error = %v, want an error: %t", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, rec.take()); diff != "" {
				t.Errorf("retry hook calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetryHookNotSent: a refused connection is retried for add too, as
// temporary (not sent); a cancelled context is not retried at all.
func TestRetryHookNotSent(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	rec := &retryRecorder{}
	c, err := pdd.NewAdapter(closed, "TOKEN", apiclient.WithRetry(fastRetry), apiclient.WithRetryHook(rec.hook))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.com", "u", password, false); err == nil {
		t.Fatal("AddMailbox to a closed port succeeded")
	}
	temporary := apiclient.ClassTemporary.String()
	want := []retryCall{{apiclient.OpAdd, temporary}, {apiclient.OpAdd, temporary}}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Errorf("retry hook calls (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.RegisterDomain(ctx, "example.com"); !errors.Is(err, context.Canceled) {
		t.Errorf("RegisterDomain with a cancelled context = %v, want context.Canceled", err)
	}
	if calls := rec.take(); len(calls) != 0 {
		t.Errorf("retry hook calls with a cancelled context: %v, want none", calls)
	}
}

// TestLongUnknownCode has the sandbox answer a code of 3,400 characters:
// the error keeps its start, cut to 100 characters, and its text stays
// short.
func TestLongUnknownCode(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("quota_", 566) + "oops" // 3,400 characters
	if len(long) != 3400 {
		t.Fatalf("the code has %d characters", len(long))
	}
	for _, c := range []call{register("example.com"), add("example.com", "u", password)} {
		e := setup(t, false)
		e.sim.FailNextWith(1, pddsim.Code(long))
		err := c(t, e)
		var ae *apiclient.Error
		if !errors.As(err, &ae) {
			t.Fatalf("error = %v, want an *apiclient.Error", err)
		}
		code := pdd.Code(ae.Code)
		if n := utf8.RuneCountInString(string(code)); n != apiclient.MaxCodeLen {
			t.Errorf("the code has %d characters, want %d", n, apiclient.MaxCodeLen)
		}
		if want := long[:apiclient.MaxCodeLen-1] + "…"; string(code) != want {
			t.Errorf("code = %q, want %q", code, want)
		}
		if code.Known() || !strings.Contains(err.Error(), "does not know") {
			t.Errorf("error %q: want an unknown code", err)
		}
		if n := utf8.RuneCountInString(err.Error()); n > 200 {
			t.Errorf("error text of %d characters: %q", n, err)
		}
	}
}
