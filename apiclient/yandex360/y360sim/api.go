package y360sim

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

// gRPC status codes, as the error bodies carry them.
const (
	codeInvalidArgument   = 3
	codeNotFound          = 5
	codeAlreadyExists     = 6
	codePermissionDenied  = 7
	codeResourceExhausted = 8
	codeUnimplemented     = 12
	codeUnauthenticated   = 16
)

// errorBody is the API's failure: a gRPC status.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

func failure(status, code int, message string) reply {
	return reply{status, errorBody{Code: code, Message: message, Details: []any{}}}
}

func invalid(message string) reply {
	return failure(http.StatusBadRequest, codeInvalidArgument, message)
}

func notFound(message string) reply {
	return failure(http.StatusNotFound, codeNotFound, message)
}

// orgHandler answers one API call for the organisation o; s.mu is held.
type orgHandler func(s *Server, o *org, r *http.Request, body []byte) reply

func (s *Server) routes() {
	s.mux.HandleFunc("GET /directory/v1/org", s.listOrgs)
	s.mux.HandleFunc("POST /directory/v1/org/{orgId}/users", s.orgAPI(WriteUsers, (*Server).createUser))
	s.mux.HandleFunc("GET /directory/v1/org/{orgId}/users", s.orgAPI(ReadUsers, (*Server).listUsers))
	s.mux.HandleFunc("GET /directory/v1/org/{orgId}/users/{userId}", s.orgAPI(ReadUsers, (*Server).getUser))
	s.mux.HandleFunc("PATCH /directory/v1/org/{orgId}/users/{userId}", s.orgAPI(WriteUsers, (*Server).patchUser))
	s.mux.HandleFunc("POST /directory/v1/org/{orgId}/users/{userId}/aliases", s.orgAPI(WriteUsers, (*Server).addAlias))
	s.mux.HandleFunc("DELETE /directory/v1/org/{orgId}/users/{userId}/aliases/{alias}", s.orgAPI(WriteUsers, (*Server).deleteAlias))
	s.mux.HandleFunc("POST /directory/v1/org/{orgId}/domains", s.orgAPI(WriteDomains, (*Server).addDomain))
	s.mux.HandleFunc("GET /directory/v1/org/{orgId}/domains", s.orgAPI(ReadDomains, (*Server).listDomains))
	s.mux.HandleFunc("GET /directory/v1/org/{orgId}/domains/{domain}/status", s.orgAPI(ReadDomains, (*Server).domainStatus))
	s.controlRoutes()
}

// ServeHTTP serves the API under /directory/ and the controls under /sim/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/directory/") {
		s.mux.ServeHTTP(w, r)
		return
	}
	simkit.Gate{Arrivals: &s.arrivals, Faults: &s.faults, MaxBody: maxBody, Next: s.mux,
		BadBody: func(w http.ResponseWriter) { writeReply(w, invalidBody()) },
		Fault:   faultReply,
		Write:   func(w http.ResponseWriter, rec *simkit.Recorder) { recorder{rec}.writeTo(w) },
	}.Serve(w, r)
}

// faultReply answers a fault that does nothing, and reports whether fault
// was one.
func faultReply(w http.ResponseWriter, fault string) bool {
	switch fault {
	case Fault429:
		w.Header().Set("Retry-After", "1")
		writeReply(w, failure(http.StatusTooManyRequests, codeResourceExhausted, "Too many requests"))
	case Fault502:
		simkit.WritePage(w, http.StatusBadGateway, simkit.BadGatewayPage)
	default:
		return false
	}
	return true
}

// orgAPI reads the body, then, under the lock, authenticates the token,
// checks that it has the permission need, finds the organisation of the
// path and runs h.
func (s *Server) orgAPI(need string, h orgHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body) // bounded by ServeHTTP
		if err != nil {
			writeReply(w, invalidBody())
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		orgs, ok := s.tokens[token(r)]
		switch {
		case !ok:
			writeReply(w, unauthenticated())
			return
		case !permitted(s.perms[token(r)], need):
			writeReply(w, permissionDenied())
			return
		}
		id, err := strconv.ParseInt(r.PathValue("orgId"), 10, 64)
		o := s.org(id)
		switch {
		case err != nil || o == nil:
			writeReply(w, notFound("organization not found"))
		case !slices.Contains(orgs, o):
			writeReply(w, permissionDenied())
		default:
			writeReply(w, h(s, o, r, body))
		}
	}
}

func invalidBody() reply { return invalid("the request body is not JSON of at most 64 KiB") }

func unauthenticated() reply {
	return failure(http.StatusUnauthorized, codeUnauthenticated, "Unauthenticated")
}

// token returns the token of an "Authorization: OAuth <token>" header, or "".
func token(r *http.Request) string {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "OAuth") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// orgJSON is one organisation of GET /directory/v1/org.
type orgJSON struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// listOrgs is GET /directory/v1/org: the token's organisations.
func (s *Server) listOrgs(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	orgs, ok := s.tokens[token(r)]
	switch {
	case !ok:
		writeReply(w, unauthenticated())
		return
	case !permitted(s.perms[token(r)], ReadOrganization):
		writeReply(w, permissionDenied())
		return
	}
	list := make([]orgJSON, 0, len(orgs))
	for _, o := range orgs {
		list = append(list, orgJSON{ID: o.id, Name: o.name})
	}
	simkit.WriteJSON(w, http.StatusOK, map[string]any{"organizations": list, "nextPageToken": ""})
}

// listPage answers a paged list: the page of items the query asks for,
// each rendered, under key beside the paging fields.
func listPage[T, J any](r *http.Request, key string, limit int, items []T, render func(T) J) reply {
	from, to, fields, ok := pageOf(r, len(items), limit)
	if !ok {
		return invalid("page and perPage must be positive numbers, perPage at most " + strconv.Itoa(limit))
	}
	out := make([]J, 0, to-from)
	for _, it := range items[from:to] {
		out = append(out, render(it))
	}
	fields[key] = out
	return reply{http.StatusOK, fields}
}

// pageOf returns the bounds of the page the query asks for among n items,
// and the list fields of the answer; ok is false for a bad page or a
// perPage that is not 1 to limit.
func pageOf(r *http.Request, n, limit int) (from, to int, fields map[string]any, ok bool) {
	page, ok1 := positive(r.URL.Query().Get("page"), 1)
	perPage, ok2 := positive(r.URL.Query().Get("perPage"), defaultPerPage)
	if !ok1 || !ok2 || perPage > limit {
		return 0, 0, nil, false
	}
	pages := max((n+perPage-1)/perPage, 1)
	from = n
	if page-1 <= n/perPage { // else past the end (and the product might overflow)
		from = min((page-1)*perPage, n)
	}
	to = min(from+perPage, n)
	return from, to, map[string]any{"page": page, "pages": pages, "perPage": perPage, "total": n}, true
}

// positive parses a positive number, def when raw is empty.
func positive(raw string, def int) (int, bool) {
	if raw == "" {
		return def, true
	}
	n, err := strconv.Atoi(raw)
	return n, err == nil && n > 0
}

// recorder keeps an answer until the fault decides whether it is sent.
type recorder struct{ *simkit.Recorder }

// writeTo sends the answer; one of the mux's own (no route: 404, another
// method: 405) gets the API's error body.
func (r recorder) writeTo(w http.ResponseWriter) {
	if r.Head.Get("Content-Type") != "application/json" {
		if allow := r.Head.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		if r.Status == http.StatusMethodNotAllowed {
			writeReply(w, failure(r.Status, codeUnimplemented, "method not allowed"))
			return
		}
		writeReply(w, notFound("no such method"))
		return
	}
	for k, vs := range r.Head {
		w.Header()[k] = vs
	}
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body.Bytes())
}

// reply is an API answer: an HTTP status and the JSON body.
type reply struct {
	status int
	body   any
}

func writeReply(w http.ResponseWriter, r reply) { simkit.WriteJSON(w, r.status, r.body) }
