package m365sim

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The faults [Server.InjectFault] knows.
const (
	Fault429   = "429"             // 429 TooManyRequests with Retry-After: 1; nothing done
	Fault502   = "502"             // a proxy's 502 page; nothing done
	Fault503   = "503"             // 503 serviceNotAvailable with Retry-After: 1; nothing done
	FaultReset = simkit.FaultReset // done, then the connection closed unanswered
	FaultSlow  = simkit.FaultSlow  // done, answered after the latency plus 10 s
)

var faultKinds = []string{Fault429, Fault502, Fault503, FaultReset, FaultSlow}

// MaxFaults bounds the faults one call injects.
const MaxFaults = 1000

// InjectFault makes the next n Graph calls (not token requests) meet the
// fault kind.
func (s *Server) InjectFault(kind string, n int) error {
	return simkit.Inject(&s.faults, "m365sim", faultKinds, kind, n, MaxFaults)
}

// SetLatency delays every Graph answer by d; zero or less removes it.
func (s *Server) SetLatency(d time.Duration) { s.faults.SetLatency(d) }

// Requests returns how many requests have arrived, token requests, faults
// and refusals included (not the controls).
func (s *Server) Requests() int { return s.arrivals.Count("") }

// TokenRequests returns how many requests the token endpoint had.
func (s *Server) TokenRequests() int { return s.arrivals.Count("token") }

// OnRequest makes fn be called as each request arrives, after it is
// counted; nil removes it. The answer waits for fn.
func (s *Server) OnRequest(fn func()) { s.arrivals.OnArrive(simkit.Hook[string](fn)) }

// MailboxInfo is a user as a test sees it.
type MailboxInfo struct {
	Password            string   `json:"password"`
	State               string   `json:"state"` // "active" or "blocked" (accountEnabled false: mail still received)
	ForcePasswordChange bool     `json:"forcePasswordChange"`
	UID                 string   `json:"uid"`
	Licensed            bool     `json:"licensed"` // holds a licence: has a mailbox
	UsageLocation       string   `json:"usageLocation"`
	DisplayName         string   `json:"displayName"`
	GivenName           string   `json:"givenName"`
	Surname             string   `json:"surname"`
	Revoked             int      `json:"revoked"` // revokeSignInSessions calls
	ProxyAddresses      []string `json:"proxyAddresses"`
}

// Mailbox reads the user whose userPrincipalName is address.
func (s *Server) Mailbox(address string) (MailboxInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[strings.ToLower(address)]
	if u == nil {
		return MailboxInfo{}, false
	}
	state := "active"
	if !u.enabled {
		state = "blocked"
	}
	return MailboxInfo{Password: u.password, State: state, ForcePasswordChange: u.force, UID: u.id, Licensed: len(u.licenses) > 0,
		UsageLocation: u.usageLocation, DisplayName: u.displayName, GivenName: u.given, Surname: u.surname, Revoked: u.revoked,
		ProxyAddresses: slices.Clone(u.proxy)}, true
}

// AddDomain adds a verified domain to the tenant (verifies it if it has
// it).
func (s *Server) AddDomain(name string) {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.domains[n]; d != nil {
		d.verified = true
		return
	}
	s.domains[n] = &domain{name: n, verified: true, txt: fmt.Sprintf("MS=ms%08d", randInt(100000000))}
}

// DomainVerified reports whether the tenant has the domain and whether it
// is verified.
func (s *Server) DomainVerified(name string) (exists, verified bool) {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.domains[n]
	return d != nil, d != nil && d.verified
}

// VerificationRecord is the domain's MS=ms… TXT record, "" when the
// tenant does not have it.
func (s *Server) VerificationRecord(name string) string {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.domains[n]; d != nil {
		return d.txt
	}
	return ""
}

// PublishTXT makes the domain's DNS carry its verification record: verify
// then succeeds.
func (s *Server) PublishTXT(name string) {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.published[n] = true
}

// AddMailboxes adds n licensed users user0001@domain, … (skipping those
// that exist).
func (s *Server) AddMailboxes(domainName string, n int) {
	d, _ := canonicalDomain(domainName)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; n > 0; i++ {
		e := fmt.Sprintf("user%04d@%s", i, d)
		if s.users[e] == nil {
			u := s.addUser(e, fmt.Sprintf("User %04d", i), "Sandbox-"+hex(6))
			u.usageLocation, u.licenses = "US", []string{s.skus[0].id}
			s.skus[0].consumed++
			s.provision(u)
			n--
		}
	}
}

// AddProxyAddress gives the user address another proxy address
// ("smtp:alias@…": an alias), as the Exchange admin center does.
func (s *Server) AddProxyAddress(address, proxy string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[strings.ToLower(address)]
	if u == nil {
		return fmt.Errorf("m365sim: no user %q", address)
	}
	u.proxy = append(u.proxy, proxy)
	return nil
}

// AddRole makes the user address hold a directory role ("Global
// Administrator").
func (s *Server) AddRole(address, role string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[strings.ToLower(address)]
	if u == nil {
		return fmt.Errorf("m365sim: no user %q", address)
	}
	u.roles = append(u.roles, role)
	return nil
}

// SetSeats sets how many seats of the licence part (a skuPartNumber) are
// bought; those consumed stay.
func (s *Server) SetSeats(part string, enabled int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.skus, func(k *sku) bool { return k.part == part })
	if i < 0 {
		return fmt.Errorf("m365sim: no licence %q", part)
	}
	s.skus[i].enabled = enabled
	return nil
}

// SKUID is the skuId of the licence part, "" when the tenant has none.
func (s *Server) SKUID(part string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.skus, func(k *sku) bool { return k.part == part })
	if i < 0 {
		return ""
	}
	return s.skus[i].id
}

// SetPermissions sets the application permissions admin consent granted
// the app, and whether it holds the User Administrator role.
func (s *Server) SetPermissions(clientID string, userAdmin bool, perms ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.apps[clientID]
	if a == nil {
		return fmt.Errorf("m365sim: no app %q", clientID)
	}
	a.perms, a.userAdmin = map[string]bool{}, userAdmin
	for _, p := range perms {
		a.perms[p] = true
	}
	return nil
}

// ExpireSecret makes the app's client secret pass its end date: the token
// endpoint refuses it (AADSTS7000222).
func (s *Server) ExpireSecret(clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.apps[clientID]
	if a == nil {
		return fmt.Errorf("m365sim: no app %q", clientID)
	}
	a.expired = true
	return nil
}

// SetClock makes the sandbox read the time from now (tests of expiry).
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// randInt is a random number in [0, n).
func randInt(n int64) int64 {
	v, err := rand.Int(rand.Reader, big.NewInt(n))
	if err != nil {
		panic(err) // the system's randomness failed
	}
	return v.Int64()
}

// control answers {"ok":true} when fn succeeds, 400 with its error if not.
func control(fn func(r *http.Request) error) http.HandlerFunc { return simkit.Control(maxBody, fn) }
