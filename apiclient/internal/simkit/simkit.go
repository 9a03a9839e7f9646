// Package simkit is the fault and latency machinery the provider
// sandboxes share: a queue of injected
// faults with the latency of every answer, waiting that ends with the
// request, leaving a request unanswered, and a proxy's HTML pages.
package simkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BadGatewayPage is what nginx in front of a service answers with 502.
const BadGatewayPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// Count reads the number in r's form value name: none is def when def is
// 0 or more (a negative def makes it required), and anything else must be
// a number from 0 to most.
func Count(r *http.Request, name string, def, most int) (int, error) {
	raw := r.FormValue(name)
	if raw == "" && def >= 0 {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 || n > most {
		return 0, fmt.Errorf("%s=%q is not a number from 0 to %d", name, raw, most)
	}
	return n, nil
}

// Faults is a sandbox's queue of injected faults, of its own type F, and
// the latency of its answers. The zero value is an empty queue without
// latency; it is safe for concurrent use.
type Faults[F any] struct {
	mu      sync.Mutex
	latency time.Duration
	queue   []F
}

// Push queues f for the next n requests.
func (q *Faults[F]) Push(n int, f F) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for range n {
		q.queue = append(q.queue, f)
	}
}

// Inject queues kind for the next n requests of q, refusing a kind that
// is not one of kinds and an n outside 0 to most; sim names the sandbox in
// the error.
func Inject(q *Faults[string], sim string, kinds []string, kind string, n, most int) error {
	switch {
	case !slices.Contains(kinds, kind):
		return fmt.Errorf("%s: unknown fault %q (want %s)", sim, kind, strings.Join(kinds, ", "))
	case n < 0 || n > most:
		return fmt.Errorf("%s: %d faults: want 0 to %d", sim, n, most)
	}
	q.Push(n, kind)
	return nil
}

// SetLatency delays every answer by d; zero or less removes the delay.
func (q *Faults[F]) SetLatency(d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.latency = max(d, 0)
}

// Take returns the latency and takes the next fault, the zero F when none
// is queued.
func (q *Faults[F]) Take() (time.Duration, F) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var f F
	if len(q.queue) > 0 {
		f = q.queue[0]
		q.queue = q.queue[1:]
	}
	return q.latency, f
}

// Wait waits d, and reports false if ctx ended first.
func Wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Abort leaves the request unanswered: under a net/http server it closes
// the connection (the panic is the server's documented way to do so).
// Called directly, ServeHTTP just returns without writing.
func Abort(r *http.Request) {
	if r.Context().Value(http.ServerContextKey) != nil {
		panic(http.ErrAbortHandler)
	}
}

// WritePage answers status with an HTML page, as a proxy in front of the
// service would.
func WritePage(w http.ResponseWriter, status int, page string) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(page))
}

// SlowDelay is how much later than the latency a "slow" fault answers:
// long past a client's timeout.
const SlowDelay = 10 * time.Second

// Deliver reports whether the answer of a performed request is to be
// written, as its fault says: after a reset it is lost (the connection
// closes unanswered); a slow one comes [SlowDelay] later, and is lost if
// the request ends first.
func Deliver(r *http.Request, reset, slow bool) bool {
	if reset || slow && !Wait(r.Context(), SlowDelay) {
		Abort(r)
		return false
	}
	return true
}

// WriteJSON answers status with v as JSON and a final newline.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// Arrivals counts a sandbox's requests as they arrive, in all and by a
// key of the sandbox's choosing (its operation; the zero K counts in all
// only), and calls a hook on each. The zero value counts from 0 without a
// hook; it is safe for concurrent use.
type Arrivals[K comparable] struct {
	mu    sync.Mutex
	total int
	byKey map[K]int
	hook  func(K)
}

// Arrive counts a request of key, then calls the hook, if any, outside
// the lock: the request waits for it.
func (a *Arrivals[K]) Arrive(key K) {
	a.mu.Lock()
	a.total++
	var zero K
	if key != zero {
		if a.byKey == nil {
			a.byKey = map[K]int{}
		}
		a.byKey[key]++
	}
	hook := a.hook
	a.mu.Unlock()
	if hook != nil {
		hook(key)
	}
}

// Count returns how many requests of key arrived; of the zero K, all.
func (a *Arrivals[K]) Count(key K) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	var zero K
	if key == zero {
		return a.total
	}
	return a.byKey[key]
}

// OnArrive makes fn be called as each request arrives, after it is
// counted; nil removes it.
func (a *Arrivals[K]) OnArrive(fn func(K)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hook = fn
}

// Hook is fn as a hook of [Arrivals] that ignores the key; nil for nil.
func Hook[K comparable](fn func()) func(K) {
	if fn == nil {
		return nil
	}
	return func(K) { fn() }
}

// Recorder holds a handler's answer, so that a fault can drop or delay it
// and the sandbox can rewrite the mux's own answers in the API's shape.
type Recorder struct {
	Head   http.Header
	Status int
	Body   bytes.Buffer
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{Head: http.Header{}} }

func (r *Recorder) Header() http.Header { return r.Head }

func (r *Recorder) WriteHeader(status int) {
	if r.Status == 0 {
		r.Status = status
	}
}

func (r *Recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.Body.Write(b)
}

// Control is a sandbox control endpoint: its body bounded by maxBody, it
// answers {"ok":true} when fn succeeds, 400 with fn's error if not.
func Control(maxBody int64, fn func(r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := fn(r); err != nil {
			WriteJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}
}

// The faults whose call is performed and whose answer is then lost
// (reset: the connection closes unanswered) or late (slow: [SlowDelay]
// after the latency), as every sandbox names them.
const (
	FaultReset = "reset"
	FaultSlow  = "slow"
)

// Gate is the way into a sandbox's API, the same in every sandbox that
// has one: a call is counted, meets the next injected fault and the
// latency, and is performed by Next unless its fault answers in its
// place; a reset or slow fault then loses or delays the answer of the
// call performed. Each sandbox gives its own words for what goes wrong.
type Gate struct {
	Arrivals *Arrivals[string]
	Faults   *Faults[string]
	MaxBody  int64
	// BadBody answers a body larger than MaxBody, or unreadable.
	BadBody func(w http.ResponseWriter)
	// Fault answers a fault that does nothing (429, 502, …) and reports
	// whether fault was one.
	Fault func(w http.ResponseWriter, fault string) bool
	Next  http.Handler
	// Write sends the answer Next recorded.
	Write func(w http.ResponseWriter, rec *Recorder)
}

// Serve takes r through the gate.
func (g Gate) Serve(w http.ResponseWriter, r *http.Request) {
	g.Arrivals.Arrive("")
	latency, fault := g.Faults.Take()
	// The body is read first: the server notices a client that goes away
	// only once it has read the request.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.MaxBody))
	if err != nil {
		g.BadBody(w)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !Wait(r.Context(), latency) {
		Abort(r) // the client went away, or the server is stopping
		return
	}
	if g.Fault(w, fault) {
		return
	}
	rec := NewRecorder()
	g.Next.ServeHTTP(rec, r)
	if Deliver(r, fault == FaultReset, fault == FaultSlow) {
		g.Write(w, rec)
	}
}
