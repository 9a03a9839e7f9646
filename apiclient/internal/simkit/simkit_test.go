package simkit_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// TestFaults checks that faults are taken in the order they were pushed,
// each once, the zero value after them, with the latency set last.
func TestFaults(t *testing.T) {
	t.Parallel()
	var q simkit.Faults[string]
	q.Push(2, "502")
	q.Push(1, "reset")
	q.Push(0, "never")
	q.SetLatency(-time.Second)
	var got []string
	for range 4 {
		d, f := q.Take()
		if d != 0 {
			t.Errorf("latency %s after SetLatency(-1s), want 0", d)
		}
		got = append(got, f)
	}
	if want := []string{"502", "502", "reset", ""}; !slices.Equal(got, want) {
		t.Errorf("taken %q, want %q", got, want)
	}
	q.SetLatency(250 * time.Millisecond)
	if d, _ := q.Take(); d != 250*time.Millisecond {
		t.Errorf("latency %s, want 250ms", d)
	}
}

// TestWait checks that a wait ends early, false, when its context ends,
// and that no wait is true only while the context lives.
func TestWait(t *testing.T) {
	t.Parallel()
	if !simkit.Wait(t.Context(), 0) || !simkit.Wait(t.Context(), time.Millisecond) {
		t.Error("Wait with a live context = false")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if simkit.Wait(ctx, 0) || simkit.Wait(ctx, time.Hour) {
		t.Error("Wait with an ended context = true")
	}
}

// TestAbortAndPage serves Abort and WritePage over real HTTP: the first
// closes the connection unanswered, the second answers the page.
func TestAbortAndPage(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/abort" {
			simkit.Abort(r)
		}
		simkit.WritePage(w, http.StatusBadGateway, simkit.BadGatewayPage)
	}))
	t.Cleanup(ts.Close)
	if res, err := ts.Client().Get(ts.URL + "/abort"); err == nil {
		_ = res.Body.Close()
		t.Errorf("an aborted request was answered HTTP %d", res.StatusCode)
	}
	res, err := ts.Client().Get(ts.URL + "/page")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil || res.StatusCode != http.StatusBadGateway || string(body) != simkit.BadGatewayPage || res.Header.Get("Content-Type") != "text/html" {
		t.Errorf("page: HTTP %d %q %q, %v; want 502, the page, text/html", res.StatusCode, res.Header.Get("Content-Type"), body, err)
	}
	// Called outside a server, Abort returns and the handler goes on.
	rec := httptest.NewRecorder()
	simkit.Abort(httptest.NewRequest(http.MethodGet, "/", nil))
	simkit.WritePage(rec, http.StatusTooManyRequests, "x")
	if rec.Code != http.StatusTooManyRequests || rec.Body.String() != "x" {
		t.Errorf("recorder: %d %q", rec.Code, rec.Body)
	}
}

// TestDeliver checks the answers a fault lets through: none after a
// reset, none for a slow one whose request ends first, all others; and
// that WriteJSON answers JSON with a final newline.
func TestDeliver(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if simkit.Deliver(r, true, false) || !simkit.Deliver(r, false, false) {
		t.Error("Deliver: a reset delivered, or a plain answer lost")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if simkit.Deliver(r.WithContext(ctx), false, true) {
		t.Error("Deliver: a slow answer delivered after its request ended")
	}
	rec := httptest.NewRecorder()
	simkit.WriteJSON(rec, http.StatusConflict, map[string]int{"a": 1})
	if rec.Code != http.StatusConflict || rec.Body.String() != "{\"a\":1}\n" || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("WriteJSON: %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
}

// TestArrivals counts arrivals in all and by key, and calls the hook
// after counting, until it is removed.
func TestArrivals(t *testing.T) {
	t.Parallel()
	var a simkit.Arrivals[string]
	var seen []string
	a.OnArrive(func(k string) { seen = append(seen, fmt.Sprintf("%s=%d", k, a.Count(k))) })
	a.Arrive("add")
	a.Arrive("")
	a.Arrive("add")
	a.OnArrive(nil)
	a.Arrive("register")
	if a.Count("") != 4 || a.Count("add") != 2 || a.Count("register") != 1 || a.Count("list") != 0 {
		t.Errorf("counts: all %d, add %d, register %d, list %d; want 4, 2, 1, 0", a.Count(""), a.Count("add"), a.Count("register"), a.Count("list"))
	}
	if want := []string{"add=1", "=2", "add=2"}; !slices.Equal(seen, want) {
		t.Errorf("hook saw %q, want %q", seen, want)
	}
	var calls int
	a.OnArrive(simkit.Hook[string](func() { calls++ }))
	a.Arrive("x")
	if calls != 1 || simkit.Hook[string](nil) != nil {
		t.Errorf("Hook: %d calls, want 1; Hook(nil) must be nil", calls)
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw       string
		def, most int
		want      int
		ok        bool
	}{
		{"", 1, 10, 1, true},
		{"", -1, 10, 0, false}, // required
		{"0", 1, 10, 0, true},
		{"10", 1, 10, 10, true},
		{"11", 1, 10, 0, false},
		{"-1", 1, 10, 0, false},
		{"two", 1, 10, 0, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/sim/fault?n="+url.QueryEscape(tc.raw), nil)
		n, err := simkit.Count(r, "n", tc.def, tc.most)
		if n != tc.want || (err == nil) != tc.ok {
			t.Errorf("Count(n, %q, %d, %d) = %d, %v; want %d, ok %v", tc.raw, tc.def, tc.most, n, err, tc.want, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), `n="`+tc.raw+`" is not a number from 0 to 10`) {
			t.Errorf("Count(n, %q) error %q does not say what is wrong", tc.raw, err)
		}
	}
}
