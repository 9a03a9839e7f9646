package y360sim

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The faults [Server.InjectFault] knows.
const (
	Fault429   = "429"             // 429 with Retry-After: 1; nothing done
	Fault502   = "502"             // a proxy's 502 page; nothing done
	FaultReset = simkit.FaultReset // done, then the connection closed unanswered
	FaultSlow  = simkit.FaultSlow  // done, answered after the latency plus 10 s
)

// MaxFaults bounds the faults one call injects.
const MaxFaults = 1000

// InjectFault makes the next n API requests meet the fault kind.
func (s *Server) InjectFault(kind string, n int) error {
	switch {
	case kind != Fault429 && kind != Fault502 && kind != FaultReset && kind != FaultSlow:
		return fmt.Errorf("y360sim: unknown fault %q (want 429, 502, reset or slow)", kind)
	case n < 0 || n > MaxFaults:
		return fmt.Errorf("y360sim: %d faults: want 0 to %d", n, MaxFaults)
	}
	s.faults.Push(n, kind)
	return nil
}

// SetLatency delays every API answer by d; zero or less removes the delay.
func (s *Server) SetLatency(d time.Duration) {
	s.faults.SetLatency(d)
}

// SetPatchRejectsForceChange makes a PATCH that sends
// passwordChangeRequired answer 400 (reject) or be carried out.
func (s *Server) SetPatchRejectsForceChange(reject bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejectForceChange = reject
}

// Requests returns how many API requests have arrived, faults and refusals
// included.
func (s *Server) Requests() int { return s.arrivals.Count("") }

// OnRequest makes fn be called as each API request arrives, after it is
// counted and before its latency and fault; nil removes it. fn runs on the
// request's goroutine and the answer waits for it.
func (s *Server) OnRequest(fn func()) { s.arrivals.OnArrive(simkit.Hook[string](fn)) }

// MailboxInfo is a mailbox as a test sees it.
type MailboxInfo struct {
	Password            string `json:"password"`
	State               string `json:"state"` // "active" or "blocked"
	ForcePasswordChange bool   `json:"forcePasswordChange"`
	UID                 string `json:"uid"`
}

// Mailbox reads the mailbox user@domain: the user of that nickname in the
// organisation that has the domain.
func (s *Server) Mailbox(address string) (MailboxInfo, bool) {
	nick, dom, _ := strings.Cut(address, "@")
	name, _ := canonicalDomain(dom)
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.domainOwner(name)
	if o == nil || o.user(nick) == nil {
		return MailboxInfo{}, false
	}
	u := o.user(nick)
	state := "active"
	if !u.enabled {
		state = "blocked"
	}
	return MailboxInfo{Password: u.password, State: state, ForcePasswordChange: u.passwordChangeRequired, UID: u.id}, true
}

// SetAdmin makes the user of the mailbox nickname@domain an administrator
// of its organisation (isAdmin), or not.
func (s *Server) SetAdmin(address string, admin bool) error {
	nick, dom, _ := strings.Cut(strings.ToLower(address), "@")
	d, _ := canonicalDomain(dom)
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.domainOwner(d)
	if o == nil || o.user(nick) == nil {
		return fmt.Errorf("y360sim: no mailbox %q", address)
	}
	o.user(nick).admin = admin
	return nil
}

// AddDomain adds the domain, verified, to the first organisation.
func (s *Server) AddDomain(name string) error {
	d, ok := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || s.domainOwner(d) != nil {
		return fmt.Errorf("y360sim: %q is not a free domain name", name)
	}
	s.orgs[0].domains = append(s.orgs[0].domains, &domain{name: d, verified: true, code: hex16()})
	return nil
}

// Verify marks the domain as verified, as if its owner had proven it.
func (s *Server) Verify(name string) error {
	d, _ := canonicalDomain(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.domainOwner(d)
	if o == nil {
		return fmt.Errorf("y360sim: no organisation has the domain %q", name)
	}
	o.domain(d).verified = true
	return nil
}

// AddMailboxes adds n users, user0001, user0002, … (skipping nicknames in
// use), to the organisation that has the domain, for list tests.
func (s *Server) AddMailboxes(domainName string, n int) error {
	d, _ := canonicalDomain(domainName)
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.domainOwner(d)
	if o == nil {
		return fmt.Errorf("y360sim: no organisation has the domain %q", domainName)
	}
	now := time.Now().UTC()
	for i := 1; n > 0; i++ {
		nick := fmt.Sprintf("user%04d", i)
		if o.user(nick) != nil {
			continue
		}
		o.users = append(o.users, &user{id: strconv.FormatUint(s.nextUserID, 10), nickname: nick,
			department: rootDepartment, first: "User", last: nick, password: "Sandbox-" + hex16()[:8],
			enabled: true, created: now, updated: now})
		s.nextUserID++
		n--
	}
	return nil
}

func (s *Server) controlRoutes() {
	s.mux.HandleFunc("POST /sim/account", s.controlAccount)
	s.mux.HandleFunc("POST /sim/fault", control(s.controlFault))
	s.mux.HandleFunc("POST /sim/latency", control(s.controlLatency))
	s.mux.HandleFunc("POST /sim/domain", control(func(r *http.Request) error { return s.AddDomain(r.FormValue("name")) }))
	s.mux.HandleFunc("POST /sim/verify", control(func(r *http.Request) error { return s.Verify(r.FormValue("name")) }))
	s.mux.HandleFunc("POST /sim/mailboxes", control(s.controlMailboxes))
	s.mux.HandleFunc("POST /sim/patch-force", control(s.controlPatchForce))
	s.mux.HandleFunc("GET /sim/requests", func(w http.ResponseWriter, _ *http.Request) {
		simkit.WriteJSON(w, http.StatusOK, map[string]int{"requests": s.Requests()})
	})
	s.mux.HandleFunc("GET /sim/mailbox", s.controlMailbox)
	s.mux.HandleFunc("POST /sim/alias", control(func(r *http.Request) error { return s.AddAlias(r.FormValue("address"), r.FormValue("to")) }))
	s.mux.HandleFunc("POST /sim/admin", control(func(r *http.Request) error {
		admin, err := strconv.ParseBool(r.FormValue("admin"))
		if err != nil {
			return errors.New("admin must be true or false")
		}
		return s.SetAdmin(r.FormValue("address"), admin)
	}))
	s.mux.HandleFunc("GET /{$}", index)
}

// controlAccount is POST /sim/account [permissions=a,b]: a new token of
// the first organisation, with every permission or those listed.
func (s *Server) controlAccount(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() == nil && !r.Form.Has("permissions") {
		simkit.WriteJSON(w, http.StatusOK, s.NewAccount())
		return
	}
	perms := strings.FieldsFunc(r.FormValue("permissions"), func(c rune) bool { return c == ',' || c == ' ' })
	creds, err := s.NewAccountWith(perms...)
	if err != nil {
		simkit.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	simkit.WriteJSON(w, http.StatusOK, creds)
}

// controlFault injects n faults of a kind (POST /sim/fault kind=&n=).
func (s *Server) controlFault(r *http.Request) error {
	n, err := simkit.Count(r, "n", 1, MaxFaults)
	if err != nil {
		return err
	}
	return s.InjectFault(r.FormValue("kind"), n)
}

// controlLatency delays every answer by d (POST /sim/latency d=).
func (s *Server) controlLatency(r *http.Request) error {
	d, err := time.ParseDuration(r.FormValue("d"))
	if err != nil || d < 0 {
		return fmt.Errorf("d=%q is not a duration such as 250ms", r.FormValue("d"))
	}
	s.SetLatency(d)
	return nil
}

// controlMailboxes adds n mailboxes to a domain (POST /sim/mailboxes
// domain=&n=).
func (s *Server) controlMailboxes(r *http.Request) error {
	n, err := simkit.Count(r, "n", 1, MaxFaults)
	if err != nil {
		return err
	}
	return s.AddMailboxes(r.FormValue("domain"), n)
}

// controlPatchForce sets whether a PATCH that sends passwordChangeRequired
// answers 400 (POST /sim/patch-force reject=).
func (s *Server) controlPatchForce(r *http.Request) error {
	reject, err := strconv.ParseBool(r.FormValue("reject"))
	if err != nil {
		return errors.New("reject must be true or false")
	}
	s.SetPatchRejectsForceChange(reject)
	return nil
}

// control answers {"ok":true} when fn succeeds, 400 with its error if not.
func control(fn func(r *http.Request) error) http.HandlerFunc { return simkit.Control(maxBody, fn) }

// controlMailbox is GET /sim/mailbox?address=…: [MailboxInfo], or 404.
func (s *Server) controlMailbox(w http.ResponseWriter, r *http.Request) {
	m, ok := s.Mailbox(r.FormValue("address"))
	if !ok {
		simkit.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "no such mailbox"})
		return
	}
	simkit.WriteJSON(w, http.StatusOK, m)
}

func index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprint(w, strings.TrimLeft(indexText, "\n"))
}

const indexText = `
Yandex 360 directory API sandbox (mailbot sim --provider yandex360)

API (header Authorization: OAuth <token>, JSON):
  GET   /directory/v1/org
  POST  /directory/v1/org/{orgId}/users            {nickname, departmentId, name, password, passwordChangeRequired}
  GET   /directory/v1/org/{orgId}/users?page=&perPage=
  GET   /directory/v1/org/{orgId}/users/{userId}
  PATCH /directory/v1/org/{orgId}/users/{userId}   {password, passwordChangeRequired, isEnabled}
  POST  /directory/v1/org/{orgId}/domains          {domain}
  GET   /directory/v1/org/{orgId}/domains?page=&perPage=
  GET   /directory/v1/org/{orgId}/domains/{domain}/status
Controls:
  POST /sim/account    [permissions=directory:read_users,…]  (a new token of the first organisation)
  POST /sim/fault      kind=429|502|reset|slow [n=1]
  POST /sim/latency    d=250ms
  GET  /sim/requests
  GET  /sim/mailbox    address=
  POST /sim/domain     name=
  POST /sim/verify     name=
  POST /sim/mailboxes  domain= n=
  POST /sim/patch-force reject=true|false
  POST /sim/admin      address= admin=true|false
`
