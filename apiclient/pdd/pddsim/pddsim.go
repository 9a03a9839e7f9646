// Package pddsim is a sandbox of the PDD API: an in-memory [http.Handler]
// that answers as PDD's API reference and the real
// service's public record say. Every test of mailbot, `mailbot shell` without
// a PDD_TOKEN and `mailbot sim` use it.
//
// It follows the API reference and the public record only, never the
// client: it does not import the adapter (apiclient/pdd), and its wire
// vocabulary (error codes [Code], operations [Op], domain statuses
// [Status], the stage and secrets of an answer) is its own, written from
// those sources, so that a code or a path the client gets wrong fails
// the client's tests and the conformance suite instead of being shared.
//
// # The API
//
// POST /api2/admin/domain/register, POST /api2/admin/email/add, POST
// /api2/admin/email/edit, GET /api2/admin/email/list and GET
// /api2/admin/domain/registration_status answer HTTP 200 with a JSON
// object, errors included ({"success":"error","error":"not_allowed"}),
// unless a fault was injected (see Controls). A missing
// PddToken header gives no_auth, a token [Server.NewAccount] did not hand out
// gives bad_token. Each token is one account.
//
// register: a missing domain gives no_domain; a name that is not
// a host name gives bad_domain; a name given to [WithProhibited] or
// [WithBlocked] gives prohibited or blocked; a domain of another account gives
// occupied; the account's 51st domain gives domain_limit_reached. A first
// registration answers status domain-activate, stage owner-check and secrets
// whose name and content are 12 lowercase hex characters each; the owner
// registering again gets ok with the current status, and the same secrets
// while the status is still domain-activate.
//
// email/add (as documented and as the real service answers): a missing domain, login or
// password gives no_domain, no_login or no_password; a domain that is not a
// host name gives bad_domain; a domain the account does not own gives
// not_allowed; a login that breaks the login rules gives badlogin, or
// login-toolong past 30 characters; a password that breaks PDD's rules gives
// passwd-tooshort, passwd-toolong or badpasswd (the sandbox's own reading of
// the rules, below, not the client's check); an existing mailbox gives occupied. Success answers the domain,
// the full address as login, and a uid above 2^40.
//
// The lifecycle calls follow the real service's public record (the
// Bitrix mail module's PDD client, the email-list and registration-status
// reference pages, client libraries' test fixtures; docs/providers.md
// lists the calls):
//
//   - email/edit (form: domain, login or uid, any of password and enabled
//     yes/no) answers {domain, login, uid, success}; the login is the full
//     address. iname and fname are accepted and ignored.
//   - email/list (query: domain, page from 1, on_page default 30) answers
//     {domain, page, pages, on_page, total, found, accounts:[{login, uid,
//     enabled "yes"/"no", ready, aliases, fio}], success}.
//   - domain/registration_status (query: domain) answers {domain, status,
//     stage, last_check, next_check, secrets:{name, content}, success},
//     secrets only while domain-activate.
//
// # Assumptions where PDD's documentation is silent
//
//   - The owner of a domain may add mailboxes while the domain is still
//     domain-activate, so that a first try works end to end. A domain
//     changes status only through [Server.SetStatus] or POST /sim/status.
//   - A domain is a host name as RFC 1035 §2.3.1 defines it, relaxed by RFC
//     1123 §2.1 (a label may start with a digit): ASCII only (IDNs arrive as
//     punycode), at least two labels, labels of 1 to 63 letters, digits and
//     hyphens that neither start nor end with a hyphen, at most 253
//     characters, and a last label that starts with a letter (so an IP
//     address is bad_domain). Letter case does not matter and one trailing
//     dot is dropped; answers carry the name in lower case without the dot.
//   - A login is a user name, or user@domain where domain names the same
//     domain as the domain parameter (else badlogin). The user name has 1 to
//     30 Latin letters, digits, '-' and '.', starts with a letter and ends with
//     a letter or digit. Its format is checked before its length. It is
//     stored and answered in lower case; passwords are case-sensitive.
//   - A password is judged by PDD's rules as the sandbox reads them, in this
//     order: only Latin letters, digits and ! @ # $ % ^ & * ( ) _ - + : ; , .
//     (else badpasswd); 6 to 20 characters (else passwd-tooshort or
//     passwd-toolong); different from the user name and from the full
//     address in any letter case (else badpasswd, as the real service
//     answers). The reference names no code for a bad password; these are the
//     real service's.
//   - Checks run in this order, and the first that fails answers: the
//     PddToken header; the parameters that are missing (domain, login,
//     password, in that order); the domain name (bad_domain, then for
//     register prohibited and blocked); the domain's owner (occupied for
//     register, not_allowed for add); the login; the password; and last the
//     state (an existing mailbox; the domain limit).
//   - An error answer carries the domain parameter as sent, when one was
//     sent, beside success and error.
//   - An empty PddToken header counts as missing (no_auth). Parameters are
//     read from an application/x-www-form-urlencoded body of at most 64 KiB;
//     the query string is ignored, and pairs that do not parse are dropped.
//   - The prohibited and blocked lists match whole names, not subdomains.
//   - There is no limit on mailboxes per domain. Uids count up from
//     1130000000000001, below 2^53 so that any JSON reader keeps them exact.
//   - Another method than POST on an operation's path answers HTTP 405 and
//     another path under /api2/ HTTP 404, both with a JSON error body
//     (method_not_allowed, not_found): these are not PDD operations.
//   - email/edit: an unknown login or uid, or a login that is no valid
//     user name, answers no_login (the record says no_login or
//     not_allowed without saying which; this sandbox picks no_login). A
//     new password is judged as email/add judges it; an enabled value
//     other than yes or no is ignored. Checks run: token, domain (missing,
//     bad, owner), mailbox, password.
//   - email/list lists the mailboxes in the order they were created;
//     found is the number on this page; a page past the last has no
//     accounts; pages is 0 for a domain without mailboxes; on_page above
//     [MaxOnPage] or below 1, and a page below 1, fall back to the
//     defaults; ready is always "yes", aliases always empty.
//   - domain/registration_status and email/list answer not_allowed for a
//     domain the account does not own, registered or not. last_check and
//     next_check are RFC 3339 times five minutes before and after now.
//   - A blocked mailbox (enabled=no) keeps its password; [Server.Inspect]
//     reports it "blocked". PDD has no flag to force a password change.
//   - The GET calls take their parameters from the query string, the POST
//     calls from the form body; another method answers 405.
//   - Requests wait out the latency of [Server.SetLatency] after the body is
//     read; a request whose context ends meanwhile (the client went away,
//     the server is stopping) is dropped: its operation does not happen and
//     its connection is closed unanswered.
//
// # Controls
//
// Tests call the methods; demos and other processes use HTTP endpoints
// outside /api2 (parameters in the query string or a form body; answers are
// JSON, HTTP 400 for bad input):
//
//	POST /sim/status   domain=example.com&status=mx-activate   [Server.SetStatus]
//	POST /sim/latency  d=250ms                                 [Server.SetLatency]
//	POST /sim/fail     n=3[&code=unknown]                      [Server.FailNextWith]
//	POST /sim/fault    kind=429|502|truncated|reset|slow[&n=1] [Server.InjectFault]
//	POST /sim/account                                          [Server.NewAccount]
//	POST /sim/domain   name=example.com                        [Server.AddDomain]
//	POST /sim/mailboxes domain=example.com&n=25                [Server.AddMailboxes]
//	GET  /sim/mailbox  ?address=alice@example.com              [Server.Inspect] (password included)
//	GET  /sim/requests                                         [Server.Requests]
//
// Injected faults form one queue, taken by the next /api2 requests in order
// as they arrive, whatever their operation or token (a request dropped during
// its latency uses its fault up). An injected error code, a 502 and a 429
// (with Retry-After: 1; the record does not say how the service limited
// requests: an HTML page as a proxy would send is assumed) answer without
// performing the operation; a truncated answer and a reset come after it
// was performed, as when an answer is lost on its way back, and so does a
// slow answer, [SlowDelay] after the latency (a client that gives up
// meanwhile gets nothing). Any
// code may be injected, an unknown or very long one included (the client
// must cut it). [Server.Requests] counts every request as it arrives, faults
// and refusals included, and [Server.OnRequest] reports each arrival. The controls need no token: run the sandbox on a
// loopback address only.
//
// [Server.Shared] offers the same controls under the Go API every
// provider's sandbox offers (commands/providertest drives it): faults by
// name, a count of every request, [MailboxInfo] records, AddDomain (in
// the first account, ready) and AddMailboxes (user0001@domain …).
package pddsim

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// DomainLimit is how many domains one account may connect (PDD's limit).
const DomainLimit = 50

// firstUID is the uid of the first mailbox; real uids are above 2^40.
const firstUID int64 = 1_130_000_000_000_001

// Server is the sandbox. It is safe for concurrent use.
type Server struct {
	mux *http.ServeMux

	mu         sync.Mutex
	prohibited map[string]bool
	blocked    map[string]bool
	accounts   map[string]*account  // by token
	first      *account             // the first account opened: AddDomain's
	domains    map[string]*domain   // by name
	mailboxes  map[string]mailbox   // by full address
	faults     simkit.Faults[fault] // and the latency
	arrivals   simkit.Arrivals[Op]  // and the OnRequest hook
	nextUID    int64
}

type account struct{ domains int }

type domain struct {
	owner   *account
	status  Status
	secrets domainSecrets
}

type mailbox struct {
	password string
	uid      int64
	blocked  bool // email/edit enabled=no
}

// Option configures a Server.
type Option func(*Server)

// WithProhibited makes register answer "prohibited" for these domains.
func WithProhibited(domains ...string) Option {
	return func(s *Server) { addNames(s.prohibited, domains) }
}

// WithBlocked makes register answer "blocked" for these domains.
func WithBlocked(domains ...string) Option {
	return func(s *Server) { addNames(s.blocked, domains) }
}

func addNames(set map[string]bool, domains []string) {
	for _, d := range domains {
		name, _ := canonicalDomain(d)
		set[name] = true
	}
}

// New returns an empty sandbox, with no account.
func New(opts ...Option) *Server {
	s := &Server{
		prohibited: map[string]bool{},
		blocked:    map[string]bool{},
		accounts:   map[string]*account{},
		domains:    map[string]*domain{},
		mailboxes:  map[string]mailbox{},
		nextUID:    firstUID,
	}
	for _, opt := range opts {
		opt(s)
	}
	s.mux = http.NewServeMux()
	s.routes()
	return s
}

// NewAccount opens an account and returns its PDD token: 52 random
// characters of base32, like the real service's tokens.
func (s *Server) NewAccount() string {
	token := rand.Text() + rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &account{}
	s.accounts[token] = a
	if s.first == nil {
		s.first = a
	}
	return token
}

// ServeHTTP serves /api2/admin/domain/register, /api2/admin/email/add, and
// the controls under /sim/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// SetStatus moves domain to status, as if ownership (and MX) were verified.
// The domain must be registered and the status one of PDD's three.
func (s *Server) SetStatus(domainName string, status Status) error {
	if !status.known() {
		return fmt.Errorf("pddsim: unknown status %q", status)
	}
	name, _ := canonicalDomain(domainName)
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.domains[name]
	if !ok {
		return fmt.Errorf("pddsim: domain %q is not registered", domainName)
	}
	d.status = status
	return nil
}

// SetLatency delays every /api2 answer by d; zero or less removes the delay.
func (s *Server) SetLatency(d time.Duration) {
	s.faults.SetLatency(d)
}

// FailNext makes the next n /api2 requests answer the error "unknown"
// without performing their operation.
func (s *Server) FailNext(n int) { s.FailNextWith(n, CodeUnknown) }

// FailNextWith makes the next n /api2 requests answer the error code, any
// code at all, without performing their operation.
func (s *Server) FailNextWith(n int, code Code) {
	s.faults.Push(n, fault{code: code})
}

// Fault is a failure of the transport that [Server.InjectFault] puts into
// an /api2 answer.
type Fault string

// The faults a sandbox can inject.
const (
	// FaultBadGateway answers HTTP 502 with an HTML page, as a proxy in
	// front of the service would; the operation does not happen.
	FaultBadGateway Fault = "502"
	// FaultTruncated performs the operation and cuts its JSON answer short.
	FaultTruncated Fault = "truncated"
	// FaultReset performs the operation and closes the connection without
	// an answer. Only a net/http server can close it: when ServeHTTP is
	// called directly, it returns without writing anything.
	FaultReset Fault = "reset"
	// FaultTooManyRequests answers HTTP 429 with Retry-After: 1 and an
	// HTML page; the operation does not happen.
	FaultTooManyRequests Fault = "429"
	// FaultSlow performs the operation and answers [SlowDelay] after the
	// latency: long past a client's timeout.
	FaultSlow Fault = "slow"
)

// SlowDelay is how much later than the latency a [FaultSlow] answer comes.
const SlowDelay = simkit.SlowDelay

// InjectFault makes the next n /api2 requests meet the fault f.
func (s *Server) InjectFault(f Fault, n int) error {
	switch f {
	case FaultBadGateway, FaultTruncated, FaultReset, FaultTooManyRequests, FaultSlow:
	default:
		return fmt.Errorf("pddsim: unknown fault %q (want 429, 502, truncated, reset or slow)", f)
	}
	s.faults.Push(n, fault{transport: f})
	return nil
}

// fault is one injected failure: an error code, or a transport fault.
type fault struct {
	code      Code
	transport Fault
}

// Requests returns how many /api2 requests of the operation ("domain/register"
// or "email/add"; "" for all, other paths included) the sandbox has received.
func (s *Server) Requests(op Op) int { return s.arrivals.Count(op) }

// OnRequest makes fn be called as each /api2 request arrives, after it is
// counted and before its latency and fault, with its operation ("" for a
// path that is no operation); nil removes it. fn runs on the request's
// goroutine and the answer waits for it: a test learns that a request
// arrived without polling, or holds requests back until it lets them go.
func (s *Server) OnRequest(fn func(op Op)) { s.arrivals.OnArrive(fn) }

// Mailbox reports whether the mailbox user@domain exists and its password.
func (s *Server) Mailbox(address string) (password string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mailboxes[strings.ToLower(address)]
	return m.password, ok
}

// hex12 returns 12 random lowercase hex characters.
func hex12() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails (crypto/rand documents it)
	return hex.EncodeToString(b)
}
