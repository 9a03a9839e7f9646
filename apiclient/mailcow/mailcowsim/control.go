package mailcowsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// controls serves the /sim/ endpoints: each turns its HTTP request into
// a call of the Server's method of the same job.
type controls struct{ s *Server }

// route registers the control endpoints on mux.
func (c controls) route(mux *http.ServeMux) {
	mux.HandleFunc("/sim/account", c.controlAccount)
	mux.HandleFunc("/sim/fault", c.controlFault)
	mux.HandleFunc("/sim/fail", c.controlFail)
	mux.HandleFunc("/sim/warn", c.controlWarn)
	mux.HandleFunc("/sim/latency", c.controlLatency)
	mux.HandleFunc("/sim/domain", c.controlDomain)
	mux.HandleFunc("/sim/mailboxes", c.controlMailboxes)
	mux.HandleFunc("/sim/unban", c.controlUnban)
	mux.HandleFunc("/sim/mailbox", c.controlMailbox)
	mux.HandleFunc("/sim/requests", c.controlRequests)
	mux.HandleFunc("/sim/alias", c.controlAlias)
}

// controlAnswer is the JSON answer of a control endpoint.
type controlAnswer struct {
	OK           bool         `json:"ok"`
	Error        string       `json:"error,omitempty"`
	Key          string       `json:"key,omitempty"`
	Requests     *int         `json:"requests,omitempty"`
	AuthFailures *int         `json:"auth_failures,omitempty"`
	Mailbox      *mailboxJSON `json:"mailbox,omitempty"`
}

// mailboxJSON is [MailboxInfo] over HTTP.
type mailboxJSON struct {
	Password            string `json:"password"`
	State               string `json:"state"`
	ForcePasswordChange bool   `json:"force_password_change"`
	UID                 string `json:"uid"`
}

// control runs fn for a request of the method and answers ok, or HTTP 400
// with its error.
func control(w http.ResponseWriter, r *http.Request, method string, fn func() (controlAnswer, error)) {
	if r.Method != method {
		w.Header().Set("Allow", method)
		writeControl(w, http.StatusMethodNotAllowed, controlAnswer{Error: "method not allowed"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	a, err := fn()
	if err != nil {
		writeControl(w, http.StatusBadRequest, controlAnswer{Error: err.Error()})
		return
	}
	a.OK = true
	writeControl(w, http.StatusOK, a)
}

func writeControl(w http.ResponseWriter, status int, a controlAnswer) {
	body, _ := json.Marshal(a) // plain fields: never fails
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// controlAccount is POST /sim/account [access=ro]: a new key.
func (c controls) controlAccount(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		switch r.FormValue("access") {
		case "", "rw":
			return controlAnswer{Key: c.s.NewAccount()}, nil
		case "ro":
			return controlAnswer{Key: c.s.NewReadOnlyKey()}, nil
		}
		return controlAnswer{}, fmt.Errorf("access=%q is neither rw nor ro", r.FormValue("access"))
	})
}

// controlFault is POST /sim/fault kind=429|502|reset|slow [n=1].
func (c controls) controlFault(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		n, err := simkit.Count(r, "n", 1, maxCount)
		if err != nil {
			return controlAnswer{}, err
		}
		return controlAnswer{}, c.s.InjectFault(r.FormValue("kind"), n)
	})
}

// controlFail is POST /sim/fail code=... [n=1].
func (c controls) controlFail(w http.ResponseWriter, r *http.Request) {
	c.controlCode(w, r, c.s.FailNextWith)
}

// controlWarn is POST /sim/warn code=... [n=1].
func (c controls) controlWarn(w http.ResponseWriter, r *http.Request) {
	c.controlCode(w, r, c.s.WarnNextWith)
}

func (c controls) controlCode(w http.ResponseWriter, r *http.Request, push func(int, string)) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		n, err := simkit.Count(r, "n", 1, maxCount)
		if err != nil {
			return controlAnswer{}, err
		}
		code := r.FormValue("code")
		if code == "" {
			return controlAnswer{}, fmt.Errorf("code is missing")
		}
		push(n, code)
		return controlAnswer{}, nil
	})
}

// controlLatency is POST /sim/latency d=250ms.
func (c controls) controlLatency(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		d, err := time.ParseDuration(r.FormValue("d"))
		if err != nil || d < 0 {
			return controlAnswer{}, fmt.Errorf("d=%q is not a duration such as 250ms", r.FormValue("d"))
		}
		c.s.SetLatency(d)
		return controlAnswer{}, nil
	})
}

// controlDomain is POST /sim/domain name=example.com.
func (c controls) controlDomain(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		name := canonicalDomain(r.FormValue("name"))
		if !validDomain(name) {
			return controlAnswer{}, fmt.Errorf("name=%q is not a domain name", r.FormValue("name"))
		}
		c.s.AddDomain(name)
		return controlAnswer{}, nil
	})
}

// controlMailboxes is POST /sim/mailboxes domain=example.com n=100.
func (c controls) controlMailboxes(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		name := canonicalDomain(r.FormValue("domain"))
		if !validDomain(name) {
			return controlAnswer{}, fmt.Errorf("domain=%q is not a domain name", r.FormValue("domain"))
		}
		n, err := simkit.Count(r, "n", -1, maxCount)
		if err != nil {
			return controlAnswer{}, err
		}
		c.s.AddMailboxes(name, n)
		return controlAnswer{}, nil
	})
}

// controlUnban is POST /sim/unban.
func (c controls) controlUnban(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		c.s.Unban()
		return controlAnswer{}, nil
	})
}

// controlMailbox is GET /sim/mailbox address=...: the mailbox, password
// included (a sandbox on loopback).
func (c controls) controlMailbox(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodGet, func() (controlAnswer, error) {
		m, ok := c.s.Mailbox(r.FormValue("address"))
		if !ok {
			return controlAnswer{}, fmt.Errorf("no mailbox %q", r.FormValue("address"))
		}
		return controlAnswer{Mailbox: &mailboxJSON{Password: m.Password, State: m.State, ForcePasswordChange: m.ForcePasswordChange, UID: m.UID}}, nil
	})
}

// controlAlias is POST /sim/alias address=sales@example.com
// goto=bob@example.com.
func (c controls) controlAlias(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodPost, func() (controlAnswer, error) {
		_, err := c.s.AddAlias(r.FormValue("address"), r.FormValue("goto"))
		return controlAnswer{}, err
	})
}

// controlRequests is GET /sim/requests.
func (c controls) controlRequests(w http.ResponseWriter, r *http.Request) {
	control(w, r, http.MethodGet, func() (controlAnswer, error) {
		n, f := c.s.Requests(), c.s.AuthFailures()
		return controlAnswer{Requests: &n, AuthFailures: &f}, nil
	})
}

// maxCount bounds a control's count.
const maxCount = 100000
