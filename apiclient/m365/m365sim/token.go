package m365sim

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// oauthError is the token endpoint's failure.
type oauthError struct {
	status int
	code   string
	aadsts int
	desc   string
}

// guidForm and domainForm are the two forms of a tenant in the path,
// compiled on first use.
var (
	guidForm   = simkit.Pattern{Expr: `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`}
	domainForm = simkit.Pattern{Expr: `^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$`}
)

// token is POST /{tenant}/oauth2/v2.0/token: client credentials for an
// access token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.arrivals.Arrive("token")
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writeOAuth(w, &oauthError{http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'grant_type'."})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, oerr := s.checkClient(r)
	if oerr != nil {
		writeOAuth(w, oerr)
		return
	}
	tok := "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.sandbox" + hex(24)
	s.tokens[tok] = &grant{app: a, expiry: s.now().Add(tokenTTL)}
	simkit.WriteJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": int(tokenTTL / time.Second),
		"ext_expires_in": int(tokenTTL / time.Second), "access_token": tok})
}

// checkClient checks the tenant, the grant, the scope and the client's
// credentials, in the order the identity platform reports them; s.mu is
// held.
func (s *Server) checkClient(r *http.Request) (*app, *oauthError) {
	tenant := r.PathValue("tenant")
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id) // RFC 6749 §2.3.1: form-encoded, then Basic
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	switch {
	case !guidForm.Re().MatchString(tenant) && !domainForm.Re().MatchString(tenant):
		return nil, &oauthError{http.StatusBadRequest, "invalid_request", 900023, "Specified tenant identifier '" + tenant + "' is neither a valid DNS name, nor a valid external domain."}
	case !s.isTenant(tenant):
		return nil, &oauthError{http.StatusBadRequest, "invalid_request", 90002, "Tenant '" + tenant + "' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud."}
	case r.PostForm.Get("grant_type") != "client_credentials":
		return nil, &oauthError{http.StatusBadRequest, "unsupported_grant_type", 70003, "The app requested an unsupported grant type '" + r.PostForm.Get("grant_type") + "'."}
	case r.PostForm.Get("scope") != Scope:
		return nil, &oauthError{http.StatusBadRequest, "invalid_scope", 1002012, "The provided value for scope " + r.PostForm.Get("scope") + " is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI)."}
	}
	a := s.apps[id]
	switch {
	case a == nil:
		return nil, &oauthError{http.StatusBadRequest, "unauthorized_client", 700016, "Application with identifier '" + id + "' was not found in the directory '" + tenant + "'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant."}
	case secret == "":
		return nil, &oauthError{http.StatusUnauthorized, "invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'."}
	case secret == a.secret && a.expired:
		return nil, &oauthError{http.StatusUnauthorized, "invalid_client", 7000222, "The provided client secret keys for app '" + id + "' are expired. Visit the Azure portal to create new keys for your app."}
	case secret != a.secret:
		return nil, &oauthError{http.StatusUnauthorized, "invalid_client", 7000215, "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '" + id + "'."}
	}
	return a, nil
}

// isTenant reports whether t names the tenant: its ID or one of its
// verified domains; s.mu is held.
func (s *Server) isTenant(t string) bool {
	d := s.domains[strings.ToLower(t)]
	return strings.EqualFold(t, s.tenantID) || d != nil && d.verified
}

// writeOAuth writes the identity platform's refusal.
func writeOAuth(w http.ResponseWriter, e *oauthError) {
	trace, corr := guid(), guid()
	ts := time.Now().UTC().Format("2006-01-02 15:04:05Z")
	desc := "AADSTS" + strconv.Itoa(e.aadsts) + ": " + e.desc + " Trace ID: " + trace + " Correlation ID: " + corr + " Timestamp: " + ts
	simkit.WriteJSON(w, e.status, map[string]any{"error": e.code, "error_description": desc, "error_codes": []int{e.aadsts},
		"timestamp": ts, "trace_id": trace, "correlation_id": corr, "error_uri": "https://login.microsoftonline.com/error?code=" + strconv.Itoa(e.aadsts)})
}
