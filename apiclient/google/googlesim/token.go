package googlesim

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// jwtBearer is the grant type of a service account's assertion.
const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// maxAssertionLife is the longest a JWT may live (exp - iat) [doc].
const maxAssertionLife = time.Hour

// clockSkew is how far iat may be in the future.
const clockSkew = 5 * time.Minute

// claims are the JWT claims the token endpoint reads.
type claims struct {
	Iss   string `json:"iss"`
	Scope string `json:"scope"`
	Aud   string `json:"aud"`
	Exp   int64  `json:"exp"`
	Iat   int64  `json:"iat"`
	Sub   string `json:"sub"`
}

// oauthError is the token endpoint's failure: {error, error_description}.
type oauthError struct {
	status int
	Code   string `json:"error"`
	Desc   string `json:"error_description"`
}

func invalidGrant(desc string) *oauthError {
	return &oauthError{http.StatusBadRequest, "invalid_grant", desc}
}

// Descriptions of the token endpoint's refusals, as Google words them.
const (
	descSignature  = "Invalid JWT Signature."
	descTimeframe  = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
	descAudience   = "Invalid JWT: Failed audience check."
	descUnknownSub = "Invalid email or User ID"
	descNoScope    = "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested."
)

// token is POST /token: a service account's JWT for an access token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.arrivals.Arrive("token")
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != jwtBearer {
		writeOAuth(w, &oauthError{http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: " + r.PostForm.Get("grant_type")})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g, oerr := s.checkAssertion(r.PostForm.Get("assertion"), tokenURL(r))
	if oerr != nil {
		writeOAuth(w, oerr)
		return
	}
	tok := "ya29.sandbox-" + hex(24)
	s.tokens[tok] = g
	simkit.WriteJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer",
		"expires_in": int(tokenTTL / time.Second)})
}

// tokenURL is the token endpoint's URL as the client reached it: what
// the JWT's aud must be.
func tokenURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + TokenPath
}

// checkAssertion verifies the JWT and returns the grant it earns; s.mu is
// held.
func (s *Server) checkAssertion(jwt, aud string) (*grant, *oauthError) {
	c, sa, oerr := s.verifyJWT(jwt)
	if oerr != nil {
		return nil, oerr
	}
	now := s.now()
	iat, exp := time.Unix(c.Iat, 0), time.Unix(c.Exp, 0)
	switch {
	case c.Aud != aud:
		return nil, invalidGrant(descAudience)
	case !exp.After(now) || exp.Sub(iat) > maxAssertionLife || iat.After(now.Add(clockSkew)):
		return nil, invalidGrant(descTimeframe)
	}
	scopes := map[string]bool{}
	for _, sc := range strings.Fields(c.Scope) {
		if !sa.delegated[sc] {
			return nil, &oauthError{http.StatusUnauthorized, "unauthorized_client", descNoScope}
		}
		scopes[sc] = true
	}
	if len(scopes) == 0 {
		return nil, &oauthError{http.StatusBadRequest, "invalid_scope", "Invalid OAuth scope or ID token audience provided."}
	}
	if c.Sub == "" || s.users[strings.ToLower(c.Sub)] == nil {
		return nil, invalidGrant(descUnknownSub)
	}
	return &grant{sub: strings.ToLower(c.Sub), scopes: scopes, expiry: now.Add(tokenTTL)}, nil
}

// verifyJWT checks an RS256 JWT's signature against the key of the
// service account its iss names, and returns its claims.
func (s *Server) verifyJWT(jwt string) (*claims, *serviceAccount, *oauthError) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return nil, nil, invalidGrant("Invalid JWT: the assertion is not a JWT.")
	}
	var head struct {
		Alg string `json:"alg"`
	}
	var c claims
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	cb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(hb, &head) != nil || json.Unmarshal(cb, &c) != nil {
		return nil, nil, invalidGrant("Invalid JWT: the assertion is not a JWT.")
	}
	sa := s.accounts[c.Iss]
	if head.Alg != "RS256" || sa == nil {
		return nil, nil, invalidGrant(descSignature)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(sa.key, crypto.SHA256, digest[:], sig) != nil {
		return nil, nil, invalidGrant(descSignature)
	}
	return &c, sa, nil
}

func writeOAuth(w http.ResponseWriter, e *oauthError) {
	w.Header().Set("Cache-Control", "no-store")
	simkit.WriteJSON(w, e.status, e)
}
