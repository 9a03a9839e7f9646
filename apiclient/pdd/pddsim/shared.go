package pddsim

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// MailboxInfo is the sandbox's record of a mailbox, for tests.
type MailboxInfo struct {
	Password            string
	State               string // "active", or "blocked" after email/edit enabled=no
	ForcePasswordChange bool   // always false: PDD has no such flag
	UID                 string
}

// Inspect returns the sandbox's record of the mailbox address.
func (s *Server) Inspect(address string) (MailboxInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mailboxes[strings.ToLower(address)]
	if !ok {
		return MailboxInfo{}, false
	}
	state := "active"
	if m.blocked {
		state = "blocked"
	}
	return MailboxInfo{Password: m.password, State: state, UID: strconv.FormatInt(m.uid, 10)}, true
}

// AddDomain adds the domain name to the first account (opening one if
// there is none), verified and with its MX set up (status added).
func (s *Server) AddDomain(name string) {
	name, _ = canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		s.first = &account{}
		s.accounts[rand.Text()+rand.Text()] = s.first
	}
	if d, ok := s.domains[name]; ok {
		d.status = StatusAdded
		return
	}
	s.domains[name] = &domain{owner: s.first, status: StatusAdded, secrets: domainSecrets{Name: hex12(), Content: hex12()}}
	s.first.domains++
}

// AddMailboxes adds the mailboxes user0001@domain to user<n>@domain that
// do not exist yet, with random passwords; the domain is added first when
// the sandbox does not have it.
func (s *Server) AddMailboxes(domainName string, n int) {
	name, _ := canonicalDomain(domainName)
	s.mu.Lock()
	_, ok := s.domains[name]
	s.mu.Unlock()
	if !ok {
		s.AddDomain(name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; i <= n; i++ {
		address := fmt.Sprintf("user%04d@%s", i, name)
		if _, ok := s.mailboxes[address]; !ok {
			s.mailboxes[address] = mailbox{password: "Pw-" + rand.Text()[:12], uid: s.nextUID}
			s.nextUID++
		}
	}
}

// Shared is the sandbox under the Go API every provider's sandbox offers
// (commands/providertest drives it): requests counted whatever their
// operation, faults named by strings, mailboxes inspected as [MailboxInfo].
type Shared struct{ s *Server }

// Shared returns the sandbox's shared Go API.
func (s *Server) Shared() Shared { return Shared{s} }

// ServeHTTP serves the sandbox.
func (v Shared) ServeHTTP(w http.ResponseWriter, r *http.Request) { v.s.ServeHTTP(w, r) }

// NewAccount opens an account and returns its token.
func (v Shared) NewAccount() string { return v.s.NewAccount() }

// InjectFault is [Server.InjectFault] with the fault's name.
func (v Shared) InjectFault(kind string, n int) error { return v.s.InjectFault(Fault(kind), n) }

// SetLatency is [Server.SetLatency].
func (v Shared) SetLatency(d time.Duration) { v.s.SetLatency(d) }

// Requests counts every /api2 request.
func (v Shared) Requests() int { return v.s.Requests("") }

// OnRequest calls fn on each /api2 request's arrival; nil removes it.
func (v Shared) OnRequest(fn func()) { v.s.OnRequest(simkit.Hook[Op](fn)) }

// Mailbox is [Server.Inspect].
func (v Shared) Mailbox(address string) (MailboxInfo, bool) { return v.s.Inspect(address) }

// AddDomain is [Server.AddDomain].
func (v Shared) AddDomain(name string) { v.s.AddDomain(name) }

// AddMailboxes is [Server.AddMailboxes].
func (v Shared) AddMailboxes(domain string, n int) { v.s.AddMailboxes(domain, n) }
