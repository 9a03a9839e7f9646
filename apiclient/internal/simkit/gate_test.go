package simkit_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// TestGate: every call is counted; a body over the bound is BadBody's, and
// not performed; a fault that does nothing is Fault's answer, and not
// performed; a reset is performed and its answer lost; a call without a
// fault is performed, its body readable, and its answer written by Write.
func TestGate(t *testing.T) {
	t.Parallel()
	var arrivals simkit.Arrivals[string]
	var faults simkit.Faults[string]
	var performed []string
	g := simkit.Gate{Arrivals: &arrivals, Faults: &faults, MaxBody: 8,
		BadBody: func(w http.ResponseWriter) { w.WriteHeader(http.StatusRequestEntityTooLarge) },
		Fault: func(w http.ResponseWriter, fault string) bool {
			if fault != "429" {
				return false
			}
			w.WriteHeader(http.StatusTooManyRequests)
			return true
		},
		Next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			performed = append(performed, string(body))
			w.WriteHeader(http.StatusCreated)
		}),
		Write: func(w http.ResponseWriter, rec *simkit.Recorder) { w.WriteHeader(rec.Status + 1) },
	}
	serve := func(body string) int {
		rec := httptest.NewRecorder()
		g.Serve(rec, httptest.NewRequest(http.MethodPost, "/api", strings.NewReader(body)))
		return rec.Code
	}
	if got := serve("far too long a body"); got != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized body: %d, want BadBody's 413", got)
	}
	faults.Push(1, "429")
	if got := serve("a"); got != http.StatusTooManyRequests {
		t.Errorf("a 429 fault: %d, want Fault's 429", got)
	}
	faults.Push(1, simkit.FaultReset)
	serve("b") // performed; its answer is lost (ServeHTTP called directly just returns)
	if got := serve("c"); got != http.StatusCreated+1 {
		t.Errorf("a call without a fault: %d, want Write's answer of the recorded 201", got)
	}
	if want := []string{"b", "c"}; strings.Join(performed, ",") != strings.Join(want, ",") {
		t.Errorf("performed %q, want %q", performed, want)
	}
	if n := arrivals.Count(""); n != 4 {
		t.Errorf("%d arrivals counted, want 4", n)
	}
}
