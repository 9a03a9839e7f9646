package mailcowsim

import (
	"fmt"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// SetLatency delays every /api answer by d; zero or less removes it.
func (s *Server) SetLatency(d time.Duration) {
	s.faults.SetLatency(d)
}

// The fault kinds of [Server.InjectFault].
const (
	Fault429   = "429"   // HTTP 429, Retry-After: 1; nothing done
	Fault502   = "502"   // HTTP 502 from the proxy; nothing done
	FaultReset = "reset" // done, then the connection is closed unanswered
	FaultSlow  = "slow"  // done, answered after the latency plus SlowDelay
)

// SlowDelay is how much later than the latency a "slow" fault answers.
const SlowDelay = simkit.SlowDelay

// fault is one injected failure: a kind above, or an error or warning
// code.
type fault struct {
	kind    string
	code    string
	warning bool
}

// InjectFault makes the next n /api requests meet the fault kind.
func (s *Server) InjectFault(kind string, n int) error {
	switch kind {
	case Fault429, Fault502, FaultReset, FaultSlow:
	default:
		return fmt.Errorf("mailcowsim: unknown fault %q (want 429, 502, reset or slow)", kind)
	}
	s.faults.Push(n, fault{kind: kind})
	return nil
}

// FailNextWith makes the next n /api requests answer HTTP 200
// [{"type":"danger","msg":code}] without doing anything: any code, an
// unknown or very long one included.
func (s *Server) FailNextWith(n int, code string) { s.faults.Push(n, fault{code: code}) }

// WarnNextWith makes the next n /api requests add a warning entry with the
// code to their answer when they are writes that succeed (a partial
// success such as domain_added_sogo_failed).
func (s *Server) WarnNextWith(n int, code string) {
	s.faults.Push(n, fault{code: code, warning: true})
}

// Requests returns how many /api requests arrived, faults, refusals and
// banned ones included.
func (s *Server) Requests() int { return s.arrivals.Count("") }

// AuthFailures returns how many requests were refused with HTTP 401.
func (s *Server) AuthFailures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authFailures
}

// Banned reports whether the address (an IP, as the server sees the
// caller) is banned.
func (s *Server) Banned(addr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.banned[addr]
}

// Unban lifts every ban and forgets the failures.
func (s *Server) Unban() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.banned)
	clear(s.failsInRow)
}

// OnRequest makes fn be called as each /api request arrives, after it is
// counted and before anything else; nil removes it. fn runs on the
// request's goroutine and the answer waits for it.
func (s *Server) OnRequest(fn func()) { s.arrivals.OnArrive(simkit.Hook[string](fn)) }
