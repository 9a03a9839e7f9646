package mailcowsim

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// maxBody bounds a request body.
const maxBody = 1 << 20

// entry is one entry of a write's answer.
type entry struct {
	Type string `json:"type"`
	Log  []any  `json:"log,omitempty"`
	Msg  any    `json:"msg"`
}

// apiError is the single-object error answer of authentication and
// routing.
type apiError struct {
	Type string `json:"type"`
	Msg  string `json:"msg"`
}

// answer is an API answer before it is written.
type answer struct {
	status int
	body   any
}

func errorAnswer(status int, msg string) answer {
	return answer{status, apiError{Type: "error", Msg: msg}}
}

// call is one API request as an operation sees it.
type call struct {
	method, path string // path below /api/v1/
	body         []byte
	key          string
	client       string // the caller's address, for fail2ban
}

func (s *Server) routes() {
	s.mux.HandleFunc("/api/", s.api)
	controls{s}.route(s.mux)
}

// api serves every /api request: count, drop a banned caller, read the
// body, wait out the latency, meet an injected fault or perform, answer.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	c := call{method: r.Method, key: r.Header.Get("X-API-Key"), client: clientAddr(r)}
	c.path, _ = strings.CutPrefix(r.URL.Path, "/api/v1/")
	if s.arrive(c.client) {
		simkit.Abort(r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeJSON(w, errorAnswer(http.StatusRequestEntityTooLarge, "request body too large"))
		return
	}
	c.body = body
	latency, f := s.faults.Take()
	if !simkit.Wait(r.Context(), latency) {
		simkit.Abort(r) // the client went away, or the server is stopping
		return
	}
	switch {
	case f.kind == Fault429:
		w.Header().Set("Retry-After", "1")
		writeJSON(w, errorAnswer(http.StatusTooManyRequests, "too many requests"))
		return
	case f.kind == Fault502:
		simkit.WritePage(w, http.StatusBadGateway, simkit.BadGatewayPage)
		return
	case f.code != "" && !f.warning:
		writeJSON(w, answer{http.StatusOK, []entry{{Type: "danger", Msg: f.code}}})
		return
	}
	a := s.perform(c)
	if f.warning {
		a = withWarning(a, f.code)
	}
	s.deliver(w, r, a, f.kind)
}

// deliver writes the answer of a performed request, or loses it as the
// fault kind says.
func (s *Server) deliver(w http.ResponseWriter, r *http.Request, a answer, kind string) {
	if simkit.Deliver(r, kind == FaultReset, kind == FaultSlow) {
		writeJSON(w, a)
	}
}

// withWarning adds a warning entry to a write's successful answer.
func withWarning(a answer, code string) answer {
	entries, ok := a.body.([]entry)
	if !ok || a.status != http.StatusOK || !succeeded(entries) {
		return a
	}
	return answer{a.status, append(entries, entry{Type: "warning", Msg: []any{code}})}
}

func succeeded(entries []entry) bool {
	for _, e := range entries {
		if e.Type != "success" {
			return false
		}
	}
	return len(entries) > 0
}

// arrive counts a request, calls the OnRequest hook, and reports whether
// the caller is banned.
func (s *Server) arrive(client string) bool {
	s.arrivals.Arrive("")
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.banned[client]
}

// perform authenticates the call and runs its operation under the lock.
func (s *Server) perform(c call) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	readWrite, ok := s.keys[c.key]
	if !ok || c.key == "" {
		s.authFailed(c.client)
		return errorAnswer(http.StatusUnauthorized, "authentication failed")
	}
	s.failsInRow[c.client] = 0
	switch {
	case c.method == http.MethodGet:
		return s.get(c.path)
	case c.method != http.MethodPost:
		return errorAnswer(http.StatusMethodNotAllowed, "method not allowed")
	case !readWrite:
		return errorAnswer(http.StatusForbidden, "API read/write access denied")
	}
	return s.post(c.path, c.body)
}

// authFailed counts an authentication failure of client; s.mu is held.
func (s *Server) authFailed(client string) {
	s.authFailures++
	s.failsInRow[client]++
	if s.failsInRow[client] >= s.banAfter {
		s.banned[client] = true
	}
}

// post runs a write; s.mu is held.
func (s *Server) post(path string, body []byte) answer {
	if a, ok := s.postAlias(path, body); ok {
		return a
	}
	ops := map[string]func(attrs) []entry{
		"add/domain":   s.addDomainOp,
		"add/mailbox":  s.addMailboxOp,
		"edit/mailbox": s.editMailboxOp,
	}
	op, ok := ops[path]
	if !ok {
		return s.notFoundOrMethod(path, http.MethodGet)
	}
	a, err := parseAttrs(body)
	if err != nil {
		return answer{http.StatusOK, apiError{Type: "error", Msg: "Cannot find attributes in post data"}}
	}
	return answer{http.StatusOK, op(a)}
}

// get runs a read; s.mu is held.
func (s *Server) get(path string) answer {
	if rest, ok := strings.CutPrefix(path, "get/"); ok {
		return s.read(rest)
	}
	return s.notFoundOrMethod(path, http.MethodPost)
}

// read serves GET /api/v1/get/...; s.mu is held.
func (s *Server) read(path string) answer {
	what, arg, _ := strings.Cut(path, "/")
	var body any
	switch what {
	case "status":
		if arg != "version" {
			return errorAnswer(http.StatusNotFound, "route not found")
		}
		body = map[string]string{"version": Version}
	case "domain":
		body = s.domainView(arg)
	case "mailbox":
		body = s.mailboxView(arg)
	case "dkim":
		body = s.dkimView(arg)
	case "alias":
		body = s.aliasView(arg)
	default:
		return errorAnswer(http.StatusNotFound, "route not found")
	}
	return answer{http.StatusOK, body}
}

// notFoundOrMethod answers a path that the method does not serve: 405 if
// the other method serves it, else 404.
func (s *Server) notFoundOrMethod(path, other string) answer {
	isWrite := path == "add/domain" || path == "add/mailbox" || path == "edit/mailbox" || aliasWrite(path)
	if other == http.MethodPost && isWrite || other == http.MethodGet && strings.HasPrefix(path, "get/") {
		return errorAnswer(http.StatusMethodNotAllowed, "method not allowed")
	}
	return errorAnswer(http.StatusNotFound, "route not found")
}

// clientAddr is the caller's IP address as the server sees it.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func writeJSON(w http.ResponseWriter, a answer) {
	body, err := json.Marshal(a.body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write(body)
}
