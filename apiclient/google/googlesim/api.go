package googlesim

import (
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

// The API path prefixes.
const (
	directoryPrefix    = "/admin/directory/v1/"
	verificationPrefix = "/siteVerification/v1/"
)

// reply is an API answer: a status and a JSON body.
type reply struct {
	status int
	body   any
}

func ok(body any) reply { return reply{http.StatusOK, body} }

// errorItem is one entry of an error's errors list.
type errorItem struct {
	Message string `json:"message"`
	Domain  string `json:"domain"`
	Reason  string `json:"reason"`
}

// errorBody is Google's failure.
type errorBody struct {
	Error struct {
		Code    int           `json:"code"`
		Message string        `json:"message"`
		Errors  []errorItem   `json:"errors"`
		Status  string        `json:"status,omitempty"`
		Details []errorDetail `json:"details,omitempty"`
	} `json:"error"`
}

// errorDetail is a google.rpc.ErrorInfo of an error's details.
type errorDetail struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata"`
}

// failure is a Google error of status, reason and message.
func failure(status int, reason, message string) reply {
	var b errorBody
	b.Error.Code, b.Error.Message = status, message
	b.Error.Errors = []errorItem{{Message: message, Domain: "global", Reason: reason}}
	return reply{status, b}
}

func invalid(message string) reply { return failure(http.StatusBadRequest, "invalid", message) }

func notFound(message string) reply { return failure(http.StatusNotFound, "notFound", message) }

func duplicate() reply { return failure(http.StatusConflict, "duplicate", "Entity already exists.") }

func forbidden() reply {
	return failure(http.StatusForbidden, "forbidden", "Not Authorized to access this resource/api")
}

// handler answers one API call for the user sub; s.mu is held.
type handler func(s *Server, sub string, r *http.Request, body []byte) reply

func (s *Server) routes() {
	s.mux.HandleFunc("POST "+TokenPath, s.token)
	d := directoryPrefix
	s.mux.HandleFunc("POST "+d+"users", s.api(ScopeUser, (*Server).insertUser))
	s.mux.HandleFunc("GET "+d+"users", s.api(ScopeUser, (*Server).listUsers))
	s.mux.HandleFunc("GET "+d+"users/{userKey}", s.api(ScopeUser, (*Server).getUser))
	s.mux.HandleFunc("PUT "+d+"users/{userKey}", s.api(ScopeUser, (*Server).updateUser))
	s.mux.HandleFunc("POST "+d+"users/{userKey}/aliases", s.api(ScopeUser, (*Server).insertAlias))
	s.mux.HandleFunc("GET "+d+"users/{userKey}/aliases", s.api(ScopeUser, (*Server).listAliases))
	s.mux.HandleFunc("DELETE "+d+"users/{userKey}/aliases/{alias}", s.api(ScopeUser, (*Server).deleteAlias))
	s.mux.HandleFunc("POST "+d+"customer/{customer}/domains", s.api(ScopeDomain, (*Server).insertDomain))
	s.mux.HandleFunc("GET "+d+"customer/{customer}/domains", s.api(ScopeDomain, (*Server).listDomains))
	s.mux.HandleFunc("GET "+d+"customer/{customer}/orgunits/{orgUnitPath...}", s.api(ScopeOrgUnit, (*Server).getOrgUnit))
	s.mux.HandleFunc("GET "+d+"customer/{customer}/domains/{domainName}", s.api(ScopeDomain, (*Server).getDomain))
	v := verificationPrefix
	s.mux.HandleFunc("POST "+v+"token", s.api(ScopeVerification, (*Server).getToken))
	s.mux.HandleFunc("POST "+v+"webResource", s.api(ScopeVerification, (*Server).verify))
	s.controlRoutes()
}

// isAPI reports whether path is a Directory or Site Verification call.
func isAPI(path string) bool {
	return strings.HasPrefix(path, directoryPrefix) || strings.HasPrefix(path, verificationPrefix)
}

// ServeHTTP serves the APIs, the token endpoint and the controls under
// /sim/. API calls meet the latency and the injected faults.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !isAPI(r.URL.Path) {
		s.mux.ServeHTTP(w, r)
		return
	}
	simkit.Gate{Arrivals: &s.arrivals, Faults: &s.faults, MaxBody: maxBody, Next: s.mux,
		BadBody: func(w http.ResponseWriter) { writeReply(w, invalid("Invalid JSON payload received.")) },
		Fault:   faultReply,
		Write:   func(w http.ResponseWriter, rec *simkit.Recorder) { recorder{rec}.writeTo(w) },
	}.Serve(w, r)
}

// faultReply answers a fault that does nothing, and reports whether fault
// was one.
func faultReply(w http.ResponseWriter, fault string) bool {
	var rep reply
	switch fault {
	case Fault429:
		w.Header().Set("Retry-After", "1")
		rep = failure(http.StatusTooManyRequests, "rateLimitExceeded", "Rate Limit Exceeded")
	case Fault403Rate:
		rep = failure(http.StatusForbidden, "userRateLimitExceeded", "User Rate Limit Exceeded")
	case FaultQuota:
		rep = failure(http.StatusForbidden, "quotaExceeded", "Quota exceeded for quota metric 'Queries'")
	case Fault503:
		rep = failure(http.StatusServiceUnavailable, "backendError", "The service is currently unavailable.")
	case Fault502:
		simkit.WritePage(w, http.StatusBadGateway, simkit.BadGatewayPage)
		return true
	default:
		return false
	}
	writeReply(w, rep)
	return true
}

// api authenticates the bearer token, checks its scope, and runs h under
// the lock.
func (s *Server) api(scope string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body) // bounded by ServeHTTP
		if err != nil {
			writeReply(w, invalid("Invalid JSON payload received."))
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		writeReply(w, s.authorize(r, scope, h, body))
	}
}

// authorize runs h for the token's user when the token is live, has the
// scope, and its user is an admin; s.mu is held.
func (s *Server) authorize(r *http.Request, scope string, h handler, body []byte) reply {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	g := s.tokens[strings.TrimSpace(tok)]
	switch {
	case !strings.EqualFold(scheme, "Bearer") || g == nil || !s.now().Before(g.expiry):
		return failure(http.StatusUnauthorized, "authError", "Invalid Credentials")
	case !g.scopes[scope]:
		return failure(http.StatusForbidden, "insufficientPermissions", "Request had insufficient authentication scopes.")
	}
	if u := s.users[g.sub]; u == nil || !u.admin {
		return forbidden()
	}
	if service, _ := serviceOf(r.URL.Path); s.disabled[service] {
		return serviceDisabled(r.URL.Path)
	}
	if key := r.PathValue("userKey"); key != "" && s.foreignKey(key) {
		return domainCannotUseApis()
	}
	return h(s, g.sub, r, body)
}

// writeReply writes r: JSON, or no body at all for 204.
func writeReply(w http.ResponseWriter, r reply) {
	if r.status == http.StatusNoContent {
		w.WriteHeader(r.status)
		return
	}
	simkit.WriteJSON(w, r.status, r.body)
}

// recorder keeps an answer until the fault decides whether it is sent.
type recorder struct{ *simkit.Recorder }

// writeTo sends the answer; the mux's own (no route, another method) gets
// Google's error body.
func (r recorder) writeTo(w http.ResponseWriter) {
	if r.Status == http.StatusNoContent {
		w.WriteHeader(r.Status)
		return
	}
	if r.Head.Get("Content-Type") != "application/json" {
		if r.Status == http.StatusMethodNotAllowed {
			writeReply(w, failure(r.Status, "methodNotAllowed", "Method Not Allowed"))
			return
		}
		writeReply(w, notFound("Not Found"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body.Bytes())
}

// rfc3339 is a time as the API writes it.
func rfc3339(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
