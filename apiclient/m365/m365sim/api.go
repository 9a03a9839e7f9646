package m365sim

import (
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

// graphPrefix is the path prefix of Graph v1.0.
const graphPrefix = "/v1.0/"

// reply is an API answer: a status and a JSON body (none for 204).
type reply struct {
	status int
	body   any
	header http.Header
}

func ok(body any) reply { return reply{status: http.StatusOK, body: body} }

// detail is one entry of an error's details.
type detail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Target  string `json:"target"`
}

// errorBody is Graph's failure.
type errorBody struct {
	Error struct {
		Code       string            `json:"code"`
		Message    string            `json:"message"`
		InnerError map[string]string `json:"innerError"`
		Details    []detail          `json:"details,omitempty"`
	} `json:"error"`
}

// failure is a Graph error of status, code and message.
func failure(status int, code, message string, details ...detail) reply {
	var b errorBody
	b.Error.Code, b.Error.Message, b.Error.Details = code, message, details
	b.Error.InnerError = map[string]string{"date": time.Now().UTC().Format("2006-01-02T15:04:05"),
		"request-id": guid(), "client-request-id": guid()}
	return reply{status: status, body: b}
}

func badRequest(message string) reply {
	return failure(http.StatusBadRequest, "Request_BadRequest", message)
}

func unsupported(message string) reply {
	return failure(http.StatusBadRequest, "Request_UnsupportedQuery", message)
}

// conflict is a taken property: 400 with an ObjectConflict detail.
func conflict(property string) reply {
	msg := "Another object with the same value for property " + property + " already exists."
	return failure(http.StatusBadRequest, "Request_BadRequest", msg, detail{Code: "ObjectConflict", Message: msg, Target: property})
}

func notFound(key string) reply {
	return failure(http.StatusNotFound, "Request_ResourceNotFound",
		"Resource '"+key+"' does not exist or one of its queried reference-property objects are not present.")
}

func denied() reply {
	return failure(http.StatusForbidden, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
}

// handler answers one Graph call for the token's app; s.mu is held.
type handler func(s *Server, a *app, r *http.Request, body []byte) reply

func (s *Server) routes() {
	s.mux.HandleFunc("POST /{tenant}/oauth2/v2.0/token", s.token)
	g := graphPrefix
	s.mux.HandleFunc("GET "+g+"subscribedSkus", s.api(PermOrg, (*Server).listSKUs))
	s.mux.HandleFunc("POST "+g+"users", s.api(PermUsers, (*Server).createUser))
	s.mux.HandleFunc("GET "+g+"users", s.api(PermUsers, (*Server).listUsers))
	s.mux.HandleFunc("GET "+g+"users/{key}", s.api(PermUsers, (*Server).getUser))
	s.mux.HandleFunc("PATCH "+g+"users/{key}", s.api(PermUsers, (*Server).updateUser))
	s.mux.HandleFunc("POST "+g+"users/{key}/assignLicense", s.api(PermUsers, (*Server).assignLicense))
	s.mux.HandleFunc("POST "+g+"users/{key}/revokeSignInSessions", s.api(PermUsers, (*Server).revokeSessions))
	s.mux.HandleFunc("GET "+g+"users/{key}/memberOf/microsoft.graph.directoryRole", s.api(PermUsers, (*Server).userRoles))
	s.mux.HandleFunc(g+"roleManagement/", s.api("Directory.Read.All", nil))
	s.mux.HandleFunc(g+"directoryRoles/", s.api("Directory.Read.All", nil))
	s.mux.HandleFunc("POST "+g+"domains", s.api(PermDomains, (*Server).createDomain))
	s.mux.HandleFunc("GET "+g+"domains", s.api(PermDomains, (*Server).listDomains))
	s.mux.HandleFunc("GET "+g+"domains/{id}", s.api(PermDomains, (*Server).getDomain))
	s.mux.HandleFunc("GET "+g+"domains/{id}/verificationDnsRecords", s.api(PermDomains, (*Server).verificationRecords))
	s.mux.HandleFunc("POST "+g+"domains/{id}/verify", s.api(PermDomains, (*Server).verify))
	s.mux.HandleFunc("GET "+g+"domains/{id}/serviceConfigurationRecords", s.api(PermDomains, (*Server).serviceRecords))
	s.controlRoutes()
}

// ServeHTTP serves Graph, the token endpoint and the controls under
// /sim/. Graph calls meet the latency and the injected faults.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, graphPrefix) {
		s.mux.ServeHTTP(w, r)
		return
	}
	simkit.Gate{Arrivals: &s.arrivals, Faults: &s.faults, MaxBody: maxBody, Next: s.mux,
		BadBody: func(w http.ResponseWriter) { writeReply(w, badRequest("Request body is too large or unreadable.")) },
		Fault:   faultReply,
		Write:   func(w http.ResponseWriter, rec *simkit.Recorder) { s.writeRecorded(w, recorder{rec}) },
	}.Serve(w, r)
}

// faultReply answers a fault that does nothing, and reports whether fault
// was one.
func faultReply(w http.ResponseWriter, fault string) bool {
	switch fault {
	case Fault429:
		rep := failure(http.StatusTooManyRequests, "TooManyRequests", "Too many requests, please retry after some time.")
		rep.header = http.Header{"Retry-After": {"1"}}
		writeReply(w, rep)
	case Fault503:
		rep := failure(http.StatusServiceUnavailable, "serviceNotAvailable", "The service is temporarily unavailable.")
		rep.header = http.Header{"Retry-After": {"1"}}
		writeReply(w, rep)
	case Fault502:
		simkit.WritePage(w, http.StatusBadGateway, simkit.BadGatewayPage)
	default:
		return false
	}
	return true
}

// api authenticates the bearer token, checks the app's permission, and
// runs h under the lock.
func (s *Server) api(perm string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body) // bounded by ServeHTTP
		if err != nil {
			writeReply(w, badRequest("Request body is unreadable."))
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		writeReply(w, s.authorize(r, perm, h, body))
	}
}

// authorize runs h for the token's app when the token is live and the app
// has perm; s.mu is held.
func (s *Server) authorize(r *http.Request, perm string, h handler, body []byte) reply {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	g := s.tokens[strings.TrimSpace(tok)]
	switch {
	case strings.TrimSpace(tok) == "":
		return failure(http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token is empty.")
	case !strings.EqualFold(scheme, "Bearer") || g == nil:
		return failure(http.StatusUnauthorized, "InvalidAuthenticationToken", "IDX14100: JWT is not well formed.")
	case !s.now().Before(g.expiry):
		return failure(http.StatusUnauthorized, "InvalidAuthenticationToken", "Lifetime validation failed, the token is expired.")
	case !g.app.perms[perm] || h == nil:
		return denied()
	}
	return h(s, g.app, r, body)
}

// writeReply writes r: JSON, or no body at all for 204.
func writeReply(w http.ResponseWriter, r reply) {
	for k, vs := range r.header {
		w.Header()[k] = vs
	}
	if r.status == http.StatusNoContent {
		w.WriteHeader(r.status)
		return
	}
	simkit.WriteJSON(w, r.status, r.body)
}

// recorder keeps an answer until the fault decides whether it is sent.
type recorder struct{ *simkit.Recorder }

// writeRecorded sends the answer; the mux's own (no route, another
// method) gets Graph's error body.
func (s *Server) writeRecorded(w http.ResponseWriter, r recorder) {
	if r.Status == http.StatusNoContent {
		w.WriteHeader(r.Status)
		return
	}
	if r.Head.Get("Content-Type") != "application/json" {
		if r.Status == http.StatusMethodNotAllowed {
			writeReply(w, failure(r.Status, "Request_BadRequest", "Specified HTTP method is not allowed for the request target."))
			return
		}
		writeReply(w, failure(http.StatusBadRequest, "BadRequest", "Resource not found for the segment."))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body.Bytes())
}
