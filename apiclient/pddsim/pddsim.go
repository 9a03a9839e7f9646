// Package pddsim is a sandbox of the PDD API: an in-memory http.Handler that
// answers as the seed document and the real service's public record say.
package pddsim

import (
	"net/http"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

// Server is the sandbox. It is safe for concurrent use.
type Server struct{}

// Option configures a Server.
type Option func(*Server)

// WithProhibited makes register answer "prohibited" for these domains.
func WithProhibited(domains ...string) Option { panic("not implemented") }

// WithBlocked makes register answer "blocked" for these domains.
func WithBlocked(domains ...string) Option { panic("not implemented") }

// New returns an empty sandbox.
func New(opts ...Option) *Server { panic("not implemented") }

// NewAccount opens an account and returns its PDD token.
func (s *Server) NewAccount() string { panic("not implemented") }

// ServeHTTP serves /api2/admin/domain/register, /api2/admin/email/add, and
// the controls under /sim/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { panic("not implemented") }

// SetStatus advances domain to status, as if ownership (and MX) were verified.
func (s *Server) SetStatus(domain string, status apiclient.Status) error { panic("not implemented") }

// SetLatency delays every /api2 answer by d.
func (s *Server) SetLatency(d time.Duration) { panic("not implemented") }

// FailNext makes the next n /api2 requests answer the error "unknown".
func (s *Server) FailNext(n int) { panic("not implemented") }

// Requests returns how many /api2 requests of the operation ("domain/register"
// or "email/add"; "" for all) the sandbox has received.
func (s *Server) Requests(op apiclient.Op) int { panic("not implemented") }

// Mailbox reports whether the mailbox user@domain exists and its password.
func (s *Server) Mailbox(address string) (password string, ok bool) { panic("not implemented") }
