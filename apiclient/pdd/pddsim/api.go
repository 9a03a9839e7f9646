package pddsim

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// maxForm bounds a request body.
const maxForm = 64 << 10

// tooManyRequestsPage is what a proxy in front of the service answers
// with 429.
const tooManyRequestsPage = "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// answer is a PDD answer, its fields in the order PDD documents them.
type answer struct {
	Domain  string         `json:"domain,omitempty"`
	Login   string         `json:"login,omitempty"`
	UID     int64          `json:"uid,omitempty"`
	Status  Status         `json:"status,omitempty"`
	Stage   stage          `json:"stage,omitempty"`
	Secrets *domainSecrets `json:"secrets,omitempty"`
	Success string         `json:"success"`
	Error   Code           `json:"error,omitempty"`
}

func failure(code Code, domain string) answer {
	return answer{Domain: domain, Success: "error", Error: code}
}

// operation performs one PDD operation for the account of a token; its
// answer is marshalled as JSON.
type operation func(s *Server, acct *account, form url.Values) any

func (s *Server) routes() {
	s.mux.Handle("/api2/admin/domain/register", s.api(OpRegisterDomain, http.MethodPost, (*Server).register))
	s.mux.Handle("/api2/admin/email/add", s.api(OpAddMailbox, http.MethodPost, (*Server).addMailbox))
	s.mux.Handle("/api2/admin/email/edit", s.api(OpEditMailbox, http.MethodPost, (*Server).editMailbox))
	s.mux.Handle("/api2/admin/email/list", s.api(OpListMailboxes, http.MethodGet, (*Server).listMailboxes))
	s.mux.Handle("/api2/admin/domain/registration_status", s.api(OpRegistrationStatus, http.MethodGet, (*Server).registrationStatus))
	s.mux.HandleFunc("/api2/", s.notFound)
	s.mux.HandleFunc("/sim/status", s.controlStatus)
	s.mux.HandleFunc("/sim/latency", s.controlLatency)
	s.mux.HandleFunc("/sim/fail", s.controlFail)
	s.mux.HandleFunc("/sim/fault", s.controlFault)
	s.mux.HandleFunc("/sim/account", s.controlAccount)
	s.mux.HandleFunc("/sim/requests", s.controlRequests)
	s.mux.HandleFunc("/sim/mailbox", s.controlMailbox)
	s.mux.HandleFunc("/sim/domain", s.controlDomain)
	s.mux.HandleFunc("/sim/mailboxes", s.controlMailboxes)
	s.mux.HandleFunc("/{$}", s.index)
}

// api serves one operation: count, read the parameters (the form body of a
// POST, the query string of a GET), wait out the latency, meet an injected
// fault or perform the operation, answer.
func (s *Server) api(op Op, method string, do operation) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.arrivals.Arrive(op)
		if r.Method != method {
			w.Header().Set("Allow", method)
			simkit.WriteJSON(w, http.StatusMethodNotAllowed, failure("method_not_allowed", ""))
			return
		}
		params := r.URL.Query()
		if method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			_ = r.ParseForm() // pairs that parse are kept; see the package doc
			params = r.PostForm
		}
		latency, f := s.faults.Take()
		if !simkit.Wait(r.Context(), latency) {
			simkit.Abort(r) // the client went away, or the server is stopping
			return
		}
		if refuseFault(w, f, params.Get("domain")) {
			return
		}
		a := s.perform(r.Header.Get("PddToken"), params, do)
		answerFault(w, r, f, a)
	})
}

// refuseFault answers a fault that comes before the operation (an error
// code, 429, 502) and reports whether it did.
func refuseFault(w http.ResponseWriter, f fault, domain string) bool {
	switch {
	case f.code != "":
		simkit.WriteJSON(w, http.StatusOK, failure(f.code, domain))
	case f.transport == FaultBadGateway:
		simkit.WritePage(w, http.StatusBadGateway, simkit.BadGatewayPage)
	case f.transport == FaultTooManyRequests:
		w.Header().Set("Retry-After", "1")
		simkit.WritePage(w, http.StatusTooManyRequests, tooManyRequestsPage)
	default:
		return false
	}
	return true
}

// answerFault answers a performed operation as the fault f says: cut
// short, not at all, late, or in full.
func answerFault(w http.ResponseWriter, r *http.Request, f fault, a any) {
	switch f.transport {
	case FaultTruncated:
		body, _ := json.Marshal(a)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body[:len(body)/2])
		return
	}
	if simkit.Deliver(r, f.transport == FaultReset, f.transport == FaultSlow) {
		simkit.WriteJSON(w, http.StatusOK, a)
	}
}

// perform authenticates the token and runs the operation under the lock.
func (s *Server) perform(token string, form url.Values, do operation) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	domain := form.Get("domain")
	if token == "" {
		return failure(CodeNoAuth, domain)
	}
	acct, ok := s.accounts[token]
	if !ok {
		return failure(CodeBadToken, domain)
	}
	return do(s, acct, form)
}

// register is POST /api2/admin/domain/register; s.mu is held.
func (s *Server) register(acct *account, form url.Values) any {
	raw := form.Get("domain")
	if raw == "" {
		return failure(CodeNoDomain, "")
	}
	name, ok := canonicalDomain(raw)
	switch {
	case !ok:
		return failure(CodeBadDomain, raw)
	case s.prohibited[name]:
		return failure(CodeProhibited, raw)
	case s.blocked[name]:
		return failure(CodeBlocked, raw)
	}
	d, ok := s.domains[name]
	switch {
	case ok && d.owner != acct:
		return failure(CodeOccupied, raw)
	case !ok && acct.domains >= DomainLimit:
		return failure(CodeDomainLimitReached, raw)
	case !ok:
		d = &domain{owner: acct, status: StatusDomainActivate,
			secrets: domainSecrets{Name: hex12(), Content: hex12()}}
		s.domains[name] = d
		acct.domains++
	}
	a := answer{Domain: name, Status: d.status, Stage: stageOf(d.status), Success: "ok"}
	if d.status == StatusDomainActivate {
		sec := d.secrets
		a.Secrets = &sec
	}
	return a
}

// addMailbox is POST /api2/admin/email/add; s.mu is held.
func (s *Server) addMailbox(acct *account, form url.Values) any {
	raw, login, password := form.Get("domain"), form.Get("login"), form.Get("password")
	switch {
	case raw == "":
		return failure(CodeNoDomain, "")
	case login == "":
		return failure(CodeNoLogin, raw)
	case password == "":
		return failure(CodeNoPassword, raw)
	}
	name, code := s.ownedDomain(acct, raw)
	if code != "" {
		return failure(code, raw)
	}
	user, code := checkLogin(login, name)
	address := user + "@" + name
	if code == "" {
		code = passwordCode(password, user, address)
	}
	if _, ok := s.mailboxes[address]; code == "" && ok {
		code = CodeOccupied
	}
	if code != "" {
		return failure(code, raw)
	}
	uid := s.nextUID
	s.nextUID++
	s.mailboxes[address] = mailbox{password: password, uid: uid}
	return answer{Domain: name, Login: address, UID: uid, Success: "ok"}
}

// ownedDomain returns the canonical name of raw, a domain parameter that
// was sent, or the code of the failure: bad_domain for a name that is no
// host name, not_allowed for a domain the account does not own; s.mu is
// held.
func (s *Server) ownedDomain(acct *account, raw string) (string, Code) {
	name, ok := canonicalDomain(raw)
	if !ok {
		return name, CodeBadDomain
	}
	if d, ok := s.domains[name]; !ok || d.owner != acct {
		return name, CodeNotAllowed
	}
	return name, ""
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.arrivals.Arrive("")
	simkit.WriteJSON(w, http.StatusNotFound, failure("not_found", ""))
}
