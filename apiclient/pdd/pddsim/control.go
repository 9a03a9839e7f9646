package pddsim

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// controlAnswer is the JSON answer of a control endpoint.
type controlAnswer struct {
	Success string `json:"success"`
	Error   string `json:"error,omitempty"`
	Domain  string `json:"domain,omitempty"`
	Status  string `json:"status,omitempty"`
	Token   string `json:"token,omitempty"`
}

// control runs fn for a POST and answers ok, or HTTP 400 with its error.
func control(w http.ResponseWriter, r *http.Request, fn func() (controlAnswer, error)) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		simkit.WriteJSON(w, http.StatusMethodNotAllowed, controlAnswer{Success: "error", Error: "method_not_allowed"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	a, err := fn()
	if err != nil {
		simkit.WriteJSON(w, http.StatusBadRequest, controlAnswer{Success: "error", Error: err.Error()})
		return
	}
	a.Success = "ok"
	simkit.WriteJSON(w, http.StatusOK, a)
}

// controlStatus is POST /sim/status domain=..&status=..
func (s *Server) controlStatus(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		d, st := r.FormValue("domain"), r.FormValue("status")
		if err := s.SetStatus(d, Status(st)); err != nil {
			return controlAnswer{}, err
		}
		name, _ := canonicalDomain(d)
		return controlAnswer{Domain: name, Status: st}, nil
	})
}

// controlLatency is POST /sim/latency d=250ms.
func (s *Server) controlLatency(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		d, err := time.ParseDuration(r.FormValue("d"))
		if err != nil || d < 0 {
			return controlAnswer{}, fmt.Errorf("d=%q is not a duration such as 250ms", r.FormValue("d"))
		}
		s.SetLatency(d)
		return controlAnswer{}, nil
	})
}

// controlFail is POST /sim/fail [n=1][&code=unknown].
func (s *Server) controlFail(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		n, err := simkit.Count(r, "n", 1, maxCount)
		if err != nil {
			return controlAnswer{}, err
		}
		code := Code(r.FormValue("code"))
		if code == "" {
			code = CodeUnknown
		}
		s.FailNextWith(n, code)
		return controlAnswer{}, nil
	})
}

// controlFault is POST /sim/fault kind=502|truncated|reset[&n=1].
func (s *Server) controlFault(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		n, err := simkit.Count(r, "n", 1, maxCount)
		if err != nil {
			return controlAnswer{}, err
		}
		return controlAnswer{}, s.InjectFault(Fault(r.FormValue("kind")), n)
	})
}

// controlAccount is POST /sim/account: a new account and its token.
func (s *Server) controlAccount(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		return controlAnswer{Token: s.NewAccount()}, nil
	})
}

// controlRequests is GET /sim/requests: the counts of [Server.Requests].
func (s *Server) controlRequests(w http.ResponseWriter, r *http.Request) {
	counts := map[string]int{"all": s.Requests("")}
	for _, op := range ops {
		counts[string(op)] = s.Requests(op)
	}
	simkit.WriteJSON(w, http.StatusOK, counts)
}

// maxCount bounds a control's n.
const maxCount = 1000

// index is GET /: what this server is.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprint(w, strings.TrimLeft(indexText, "\n"))
}

const indexText = `
PDD API sandbox (mailbot sim)

API (header PddToken, form body):
  POST /api2/admin/domain/register   domain=
  POST /api2/admin/email/add         domain= login= password=
  POST /api2/admin/email/edit        domain= login=|uid= [password=] [enabled=yes|no]
  GET  /api2/admin/email/list        ?domain= [page=1] [on_page=30]
  GET  /api2/admin/domain/registration_status  ?domain=
Controls:
  POST /sim/status    domain= status=domain-activate|mx-activate|added
  POST /sim/latency   d=250ms
  POST /sim/fail      [n=1] [code=unknown]
  POST /sim/fault     kind=429|502|truncated|reset|slow [n=1]
  POST /sim/account   (a new account's token)
  POST /sim/domain    name=  (verified, in the first account)
  POST /sim/mailboxes domain= n=  (user0001@domain …)
  GET  /sim/mailbox   ?address=
  GET  /sim/requests
`

// controlMailbox is GET /sim/mailbox?address=: the sandbox's record of a
// mailbox, its password included (the sandbox runs on loopback).
func (s *Server) controlMailbox(w http.ResponseWriter, r *http.Request) {
	m, ok := s.Inspect(r.FormValue("address"))
	if !ok {
		simkit.WriteJSON(w, http.StatusNotFound, controlAnswer{Success: "error", Error: "no_such_mailbox"})
		return
	}
	simkit.WriteJSON(w, http.StatusOK, map[string]any{"success": "ok", "password": m.Password, "state": m.State,
		"force_password_change": m.ForcePasswordChange, "uid": m.UID})
}

// controlDomain is POST /sim/domain name=: [Server.AddDomain].
func (s *Server) controlDomain(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		name, ok := canonicalDomain(r.FormValue("name"))
		if !ok {
			return controlAnswer{}, fmt.Errorf("name=%q is not a domain name", r.FormValue("name"))
		}
		s.AddDomain(name)
		return controlAnswer{Domain: name, Status: string(StatusAdded)}, nil
	})
}

// controlMailboxes is POST /sim/mailboxes domain=&n=: [Server.AddMailboxes].
func (s *Server) controlMailboxes(w http.ResponseWriter, r *http.Request) {
	control(w, r, func() (controlAnswer, error) {
		name, ok := canonicalDomain(r.FormValue("domain"))
		if !ok {
			return controlAnswer{}, fmt.Errorf("domain=%q is not a domain name", r.FormValue("domain"))
		}
		n, err := simkit.Count(r, "n", -1, maxCount)
		if err != nil {
			return controlAnswer{}, err
		}
		s.AddMailboxes(name, n)
		return controlAnswer{Domain: name}, nil
	})
}
