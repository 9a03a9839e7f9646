package googlesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The faults [Server.InjectFault] knows.
const (
	Fault429     = "429"             // 429 rateLimitExceeded with Retry-After: 1; nothing done
	Fault403Rate = "403rate"         // 403 userRateLimitExceeded; nothing done
	FaultQuota   = "quota"           // 403 quotaExceeded; nothing done
	Fault502     = "502"             // a proxy's 502 page; nothing done
	Fault503     = "503"             // 503 backendError; nothing done
	FaultReset   = simkit.FaultReset // done, then the connection closed unanswered
	FaultSlow    = simkit.FaultSlow  // done, answered after the latency plus 10 s
)

var faultKinds = []string{Fault429, Fault403Rate, FaultQuota, Fault502, Fault503, FaultReset, FaultSlow}

// MaxFaults bounds the faults one call injects.
const MaxFaults = 1000

// InjectFault makes the next n API calls (not token requests) meet the
// fault kind.
func (s *Server) InjectFault(kind string, n int) error {
	return simkit.Inject(&s.faults, "googlesim", faultKinds, kind, n, MaxFaults)
}

// SetLatency delays every API answer by d; zero or less removes the delay.
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
	Password            string `json:"password"`
	State               string `json:"state"` // "active" or "blocked" (suspended: no logins, no new mail)
	ForcePasswordChange bool   `json:"forcePasswordChange"`
	UID                 string `json:"uid"`
	GivenName           string `json:"givenName"`
	FamilyName          string `json:"familyName"`
}

// Mailbox reads the user whose primary e-mail is address.
func (s *Server) Mailbox(address string) (MailboxInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[strings.ToLower(address)]
	if u == nil {
		return MailboxInfo{}, false
	}
	state := "active"
	if u.suspended {
		state = "blocked"
	}
	return MailboxInfo{Password: u.password, State: state, ForcePasswordChange: u.changeAtNext, UID: u.id,
		GivenName: u.given, FamilyName: u.family}, true
}

// AddDomain adds a verified domain to the customer (nothing if it has it).
func (s *Server) AddDomain(name string) {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.domains[n]; d != nil {
		d.verified = true
		return
	}
	s.domains[n] = &domain{name: n, verified: true, created: s.now().UTC()}
}

// DomainVerified reports whether the customer has the domain and whether
// it is verified.
func (s *Server) DomainVerified(name string) (exists, verified bool) {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.domains[n]
	return d != nil, d != nil && d.verified
}

// PublishTXT makes the domain's DNS carry, at its apex, the TXT records of
// every verification token issued for it so far: Site Verification then
// finds them.
func (s *Server) PublishTXT(name string) {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.published[n] = true
}

// VerificationToken is the token issued for the domain to owner, "" when
// none was.
func (s *Server) VerificationToken(name, owner string) string {
	n, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.siteToken[siteKey{n, strings.ToLower(owner)}]
}

// AddMailboxes adds n users user0001@domain, … (skipping those that
// exist).
func (s *Server) AddMailboxes(domainName string, n int) {
	d, _ := canonicalDomain(domainName)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; n > 0; i++ {
		e := fmt.Sprintf("user%04d@%s", i, d)
		if s.users[e] == nil {
			s.addUser(e, "User", fmt.Sprintf("%04d", i), "Sandbox-"+hex(8))
			n--
		}
	}
}

// AddUser adds a user who is not an admin, with password: a subject whose
// tokens the API refuses with 403 forbidden.
func (s *Server) AddUser(email, password string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addUser(email, "Plain", "User", password)
}

// The administrator roles [Server.SetAdmin] gives.
const (
	RoleNone      = "none"      // no admin role
	RoleSuper     = "super"     // a super admin: isAdmin
	RoleDelegated = "delegated" // an admin role short of super admin: isDelegatedAdmin
)

// SetAdmin gives the user of address (a primary e-mail, an alias or an id)
// the administrator role: RoleSuper (isAdmin), RoleDelegated
// (isDelegatedAdmin) or RoleNone. A user that is no super admin cannot be
// the admin mailbot acts as.
func (s *Server) SetAdmin(address, role string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.findUser(address)
	switch {
	case u == nil:
		return fmt.Errorf("googlesim: no user %q", address)
	case role != RoleNone && role != RoleSuper && role != RoleDelegated:
		return fmt.Errorf("googlesim: role %q: want %s, %s or %s", role, RoleSuper, RoleDelegated, RoleNone)
	}
	u.admin, u.delegatedAdmin = role == RoleSuper, role == RoleDelegated
	return nil
}

// SetDelegation sets the scopes the service account's client ID is
// delegated in the Admin console (none: delegation not granted).
func (s *Server) SetDelegation(clientEmail string, scopes ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa := s.accounts[clientEmail]
	if sa == nil {
		return fmt.Errorf("googlesim: no service account %q", clientEmail)
	}
	sa.delegated = map[string]bool{}
	for _, sc := range scopes {
		sa.delegated[sc] = true
	}
	return nil
}

// DeleteKey deletes the service account's key: its JWTs are refused.
func (s *Server) DeleteKey(clientEmail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.accounts, clientEmail)
}

// SetClock makes the sandbox read the time from now (tests of expiry).
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

func (s *Server) controlRoutes() {
	s.mux.HandleFunc("POST /sim/account", s.controlAccount)
	s.mux.HandleFunc("POST /sim/fault", control(func(r *http.Request) error {
		n, err := simkit.Count(r, "n", 1, MaxFaults)
		if err != nil {
			return err
		}
		return s.InjectFault(r.FormValue("kind"), n)
	}))
	s.mux.HandleFunc("POST /sim/latency", control(func(r *http.Request) error {
		d, err := time.ParseDuration(r.FormValue("d"))
		if err != nil || d < 0 {
			return fmt.Errorf("d=%q is not a duration such as 250ms", r.FormValue("d"))
		}
		s.SetLatency(d)
		return nil
	}))
	s.mux.HandleFunc("POST /sim/domain", control(func(r *http.Request) error { s.AddDomain(r.FormValue("name")); return nil }))
	s.mux.HandleFunc("POST /sim/admin", control(func(r *http.Request) error { return s.SetAdmin(r.FormValue("address"), r.FormValue("role")) }))
	s.mux.HandleFunc("POST /sim/publish", control(func(r *http.Request) error { s.PublishTXT(r.FormValue("name")); return nil }))
	s.mux.HandleFunc("POST /sim/mailboxes", control(func(r *http.Request) error {
		n, err := simkit.Count(r, "n", 1, MaxFaults)
		if err == nil {
			s.AddMailboxes(r.FormValue("domain"), n)
		}
		return err
	}))
	s.consistencyControls()
	s.mux.HandleFunc("GET /sim/requests", func(w http.ResponseWriter, _ *http.Request) {
		simkit.WriteJSON(w, http.StatusOK, map[string]int{"requests": s.Requests(), "tokens": s.TokenRequests()})
	})
	s.mux.HandleFunc("GET /sim/mailbox", s.controlMailbox)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprint(w, strings.TrimLeft(indexText, "\n"))
	})
}

// controlMailbox is GET /sim/mailbox?address=…: [MailboxInfo], or 404.
func (s *Server) controlMailbox(w http.ResponseWriter, r *http.Request) {
	m, ok := s.Mailbox(r.FormValue("address"))
	if !ok {
		simkit.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "no such mailbox"})
		return
	}
	simkit.WriteJSON(w, http.StatusOK, m)
}

// controlAccount is POST /sim/account: a new account, with its key file
// for the sandbox as this request reached it.
func (s *Server) controlAccount(w http.ResponseWriter, r *http.Request) {
	a := s.NewAccount()
	base := strings.TrimSuffix(tokenURL(r), TokenPath)
	simkit.WriteJSON(w, http.StatusOK, map[string]any{"admin": a.Admin, "client_email": a.ClientEmail,
		"key_file": json.RawMessage(a.KeyFile(base))})
}

// control answers {"ok":true} when fn succeeds, 400 with its error if not.
func control(fn func(r *http.Request) error) http.HandlerFunc { return simkit.Control(maxBody, fn) }

const indexText = `
Google Workspace sandbox (mailbot sim --provider google)

Token endpoint (a service account's RS256 JWT, form-encoded):
  POST /token   grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>
API (header Authorization: Bearer <access token>, JSON):
  POST /admin/directory/v1/users
  GET  /admin/directory/v1/users?domain=&maxResults=&pageToken=
  GET  /admin/directory/v1/users/{userKey}
  PUT  /admin/directory/v1/users/{userKey}
  POST /admin/directory/v1/users/{userKey}/aliases      {"alias":"sales@example.com"}
  GET  /admin/directory/v1/users/{userKey}/aliases
  DELETE /admin/directory/v1/users/{userKey}/aliases/{alias}
  POST /admin/directory/v1/customer/{customer}/domains
  GET  /admin/directory/v1/customer/{customer}/domains[/{domainName}]
  POST /siteVerification/v1/token
  POST /siteVerification/v1/webResource?verificationMethod=DNS_TXT
Controls:
  POST /sim/account                  (a new service account and admin: its key file)
  POST /sim/fault      kind=429|403rate|quota|502|503|reset|slow [n=1]
  POST /sim/latency    d=250ms
  GET  /sim/requests
  GET  /sim/mailbox    address=
  POST /sim/domain     name=
  POST /sim/admin      address= role=super|delegated|none
  POST /sim/publish    name=          (the domain's verification TXT record is now in DNS)
  POST /sim/mailboxes  domain= n=
  POST /sim/lag        reads=2 status=403|404   (new users and aliases unreadable for the next reads)
  POST /sim/settle     (every user and alias readable)
  POST /sim/foreign    name=          (a domain of another customer: 403 domainCannotUseApis)
  POST /sim/disable    service=admin.googleapis.com|siteverification.googleapis.com [disabled=false]
`
