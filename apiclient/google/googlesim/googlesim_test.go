package googlesim_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// world is a sandbox served over HTTPS and one account of it.
type world struct {
	sim  *googlesim.Server
	url  string
	hc   *http.Client
	acct googlesim.Account
	key  *rsa.PrivateKey
}

func newWorld(t *testing.T) *world {
	t.Helper()
	sim := googlesim.New()
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	w := &world{sim: sim, url: ts.URL, hc: ts.Client(), acct: sim.NewAccount()}
	w.key = keyOf(t, w.acct.KeyFile(ts.URL))
	return w
}

// keyOf reads the private key of a key file, as any client would.
func keyOf(t *testing.T, file []byte) *rsa.PrivateKey {
	t.Helper()
	var f struct {
		PrivateKey string `json:"private_key"`
		TokenURI   string `json:"token_uri"`
		Type       string `json:"type"`
	}
	if err := json.Unmarshal(file, &f); err != nil || f.Type != "service_account" {
		t.Fatalf("key file: %v, type %q", err, f.Type)
	}
	b, _ := pem.Decode([]byte(f.PrivateKey))
	if b == nil {
		t.Fatal("key file: no PEM private key")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(*rsa.PrivateKey)
}

// claims are a JWT's claims as a test sets them.
type claims map[string]any

func (w *world) claims(sub string, scopes ...string) claims {
	now := time.Now()
	return claims{"iss": w.acct.ClientEmail, "scope": strings.Join(scopes, " "), "aud": w.url + googlesim.TokenPath,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "sub": sub}
}

// sign is an RS256 JWT of c signed by key.
func sign(t *testing.T, key *rsa.PrivateKey, c claims) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(c)
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// answer is an HTTP answer, its body decoded.
type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func (w *world) do(t *testing.T, method, path, token string, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, w.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	return w.send(t, req)
}

func (w *world) send(t *testing.T, req *http.Request) answer {
	t.Helper()
	res, err := w.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode, header: res.Header}
	if err := json.NewDecoder(res.Body).Decode(&a.body); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v", req.Method, req.URL.Path, err)
	}
	return a
}

// tokenFor posts the JWT to the token endpoint.
func (w *world) tokenFor(t *testing.T, jwt string) answer {
	t.Helper()
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {jwt}}
	req, err := http.NewRequest(http.MethodPost, w.url+googlesim.TokenPath, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return w.send(t, req)
}

// token returns an access token of every scope for the admin.
func (w *world) token(t *testing.T) string {
	t.Helper()
	a := w.tokenFor(t, sign(t, w.key, w.claims(w.acct.Admin, googlesim.Scopes...)))
	tok, _ := a.body["access_token"].(string)
	if a.status != http.StatusOK || tok == "" || a.body["token_type"] != "Bearer" || a.body["expires_in"] == nil {
		t.Fatalf("token: %d %v; want 200 with access_token, token_type Bearer, expires_in", a.status, a.body)
	}
	return tok
}

// googleError checks Google's error shape and returns its first reason.
func googleError(t *testing.T, a answer, status int) string {
	t.Helper()
	e, _ := a.body["error"].(map[string]any)
	errs, _ := e["errors"].([]any)
	if a.status != status || e == nil || e["code"] != float64(status) || e["message"] == "" || len(errs) == 0 {
		t.Fatalf("answer %d %v; want %d with {error:{code,message,errors}}", a.status, a.body, status)
	}
	first, _ := errs[0].(map[string]any)
	if first["domain"] != "global" || first["message"] == nil {
		t.Errorf("errors[0] = %v; want domain global and a message", first)
	}
	r, _ := first["reason"].(string)
	return r
}

// oauthError checks the token endpoint's {error, error_description}.
func oauthError(t *testing.T, a answer, status int, code, desc string) {
	t.Helper()
	d, _ := a.body["error_description"].(string)
	if a.status != status || a.body["error"] != code || !strings.Contains(d, desc) {
		t.Errorf("token endpoint: %d %v; want %d %s %q", a.status, a.body, status, code, desc)
	}
}

func TestTokenEndpointChecksTheJWT(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	past := w.claims(w.acct.Admin, googlesim.Scopes...)
	past["iat"], past["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
	long := w.claims(w.acct.Admin, googlesim.Scopes...)
	long["exp"] = time.Now().Add(2 * time.Hour).Unix()
	aud := w.claims(w.acct.Admin, googlesim.Scopes...)
	aud["aud"] = "https://oauth2.googleapis.com/token"
	stranger := w.claims(w.acct.Admin, googlesim.Scopes...)
	stranger["iss"] = "someone@else.iam.gserviceaccount.com"
	tests := []struct {
		name        string
		jwt         string
		status      int
		code, words string
	}{
		{"wrong signature", sign(t, other, w.claims(w.acct.Admin, googlesim.Scopes...)), 400, "invalid_grant", "Invalid JWT Signature"},
		{"unknown key", sign(t, w.key, stranger), 400, "invalid_grant", "Invalid JWT Signature"},
		{"expired", sign(t, w.key, past), 400, "invalid_grant", "short-lived"},
		{"longer than an hour", sign(t, w.key, long), 400, "invalid_grant", "short-lived"},
		{"wrong audience", sign(t, w.key, aud), 400, "invalid_grant", "audience"},
		{"unknown subject", sign(t, w.key, w.claims("nobody@"+googlesim.DefaultPrimaryDomain, googlesim.Scopes...)), 400, "invalid_grant", "Invalid email or User ID"},
		{"not a JWT", "abc.def", 400, "invalid_grant", "JWT"},
	}
	for _, tc := range tests {
		oauthError(t, w.tokenFor(t, tc.jwt), tc.status, tc.code, tc.words)
	}
	if err := w.sim.SetDelegation(w.acct.ClientEmail, googlesim.ScopeUser); err != nil {
		t.Fatal(err)
	}
	oauthError(t, w.tokenFor(t, sign(t, w.key, w.claims(w.acct.Admin, googlesim.Scopes...))), 401, "unauthorized_client", "not authorized for any of the scopes")
	a := w.tokenFor(t, sign(t, w.key, w.claims(w.acct.Admin, googlesim.ScopeUser)))
	if a.status != http.StatusOK {
		t.Errorf("a token of the delegated scope alone: %d %v", a.status, a.body)
	}
	w.sim.DeleteKey(w.acct.ClientEmail)
	oauthError(t, w.tokenFor(t, sign(t, w.key, w.claims(w.acct.Admin, googlesim.ScopeUser))), 400, "invalid_grant", "")
	if n := w.sim.TokenRequests(); n != len(tests)+3 {
		t.Errorf("TokenRequests = %d, want %d", n, len(tests)+3)
	}
}

func TestAPIAuthorisation(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	users := "/admin/directory/v1/users/" + w.acct.Admin
	if r := googleError(t, w.do(t, "GET", users, "", nil), 401); r != "authError" {
		t.Errorf("no token: reason %q, want authError", r)
	}
	if r := googleError(t, w.do(t, "GET", users, "ya29.made-up", nil), 401); r != "authError" {
		t.Errorf("unknown token: reason %q", r)
	}
	// A token without the domain scope reads users but not domains.
	a := w.tokenFor(t, sign(t, w.key, w.claims(w.acct.Admin, googlesim.ScopeUser)))
	tok, _ := a.body["access_token"].(string)
	if got := w.do(t, "GET", users, tok, nil); got.status != 200 || got.body["primaryEmail"] != w.acct.Admin {
		t.Errorf("users.get with the user scope: %d %v", got.status, got.body)
	}
	if r := googleError(t, w.do(t, "GET", "/admin/directory/v1/customer/my_customer/domains", tok, nil), 403); r != "insufficientPermissions" {
		t.Errorf("domains without the domain scope: reason %q", r)
	}
	// A subject who is a user but no admin gets a token the API refuses.
	plain := "clerk@" + googlesim.DefaultPrimaryDomain
	w.sim.AddUser(plain, "Clerk-pass-1")
	a = w.tokenFor(t, sign(t, w.key, w.claims(plain, googlesim.Scopes...)))
	tok, _ = a.body["access_token"].(string)
	if r := googleError(t, w.do(t, "GET", users, tok, nil), 403); r != "forbidden" {
		t.Errorf("a non-admin subject: reason %q, want forbidden", r)
	}
	// An expired access token is refused.
	tok = w.token(t)
	w.sim.SetClock(func() time.Time { return time.Now().Add(time.Hour) })
	if r := googleError(t, w.do(t, "GET", users, tok, nil), 401); r != "authError" {
		t.Errorf("an expired token: reason %q", r)
	}
}

func TestUsers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	user := func(email, pw string) map[string]any {
		return map[string]any{"primaryEmail": email, "name": map[string]string{"givenName": "Ann", "familyName": "Lee"},
			"password": pw, "changePasswordAtNextLogin": true}
	}
	// Users only in the customer's verified domains.
	if r := googleError(t, w.do(t, "POST", "/admin/directory/v1/users", tok, user("ann@example.com", "Passw0rd!")), 400); r != "invalid" {
		t.Errorf("a user in a domain the customer lacks: reason %q", r)
	}
	w.do(t, "POST", "/admin/directory/v1/customer/my_customer/domains", tok, map[string]string{"domainName": "example.com"})
	if r := googleError(t, w.do(t, "POST", "/admin/directory/v1/users", tok, user("ann@example.com", "Passw0rd!")), 400); r != "invalid" {
		t.Errorf("a user in an unverified domain: reason %q", r)
	}
	w.sim.AddDomain("example.com")
	for _, pw := range []string{"short7!", strings.Repeat("x", 101)} {
		googleError(t, w.do(t, "POST", "/admin/directory/v1/users", tok, user("ann@example.com", pw)), 400)
	}
	a := w.do(t, "POST", "/admin/directory/v1/users", tok, user("Ann@example.com", "Passw0rd!"))
	id, _ := a.body["id"].(string)
	if a.status != 200 || a.body["primaryEmail"] != "ann@example.com" || id == "" || strings.Trim(id, "0123456789") != "" || a.body["password"] != nil {
		t.Fatalf("users.insert: %d %v; want the user, a digit id, no password", a.status, a.body)
	}
	if r := googleError(t, w.do(t, "POST", "/admin/directory/v1/users", tok, user("ann@example.com", "Passw0rd!")), 409); r != "duplicate" {
		t.Errorf("a second insert: reason %q, want duplicate", r)
	}
	if r := googleError(t, w.do(t, "GET", "/admin/directory/v1/users/bob@example.com", tok, nil), 404); r != "notFound" {
		t.Errorf("an unknown user: reason %q, want notFound", r)
	}
	// Suspension, and suspended:false sent to restore.
	a = w.do(t, "PUT", "/admin/directory/v1/users/"+id, tok, map[string]any{"suspended": true})
	if a.status != 200 || a.body["suspended"] != true || a.body["suspensionReason"] != "ADMIN" || a.body["changePasswordAtNextLogin"] != true {
		t.Errorf("suspend by id: %d %v; the other fields must stay", a.status, a.body)
	}
	a = w.do(t, "PUT", "/admin/directory/v1/users/ann@example.com", tok, map[string]any{"suspended": false})
	if a.body["suspended"] != false || a.body["suspensionReason"] != nil {
		t.Errorf("restore: %v", a.body)
	}
	m, _ := w.sim.Mailbox("ann@example.com")
	if m.Password != "Passw0rd!" || !m.ForcePasswordChange || m.State != "active" || m.UID != id {
		t.Errorf("the sandbox's record: %+v", m)
	}
}

func TestUsersListPages(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	w.sim.AddDomain("example.com")
	w.sim.AddMailboxes("example.com", 7)
	if r := googleError(t, w.do(t, "GET", "/admin/directory/v1/users", tok, nil), 400); r == "" {
		t.Error("users.list without domain or customer: no reason")
	}
	googleError(t, w.do(t, "GET", "/admin/directory/v1/users?domain=example.com&maxResults=501", tok, nil), 400)
	seen := map[string]bool{}
	next := ""
	for pages := 1; ; pages++ {
		q := "?domain=example.com&maxResults=3"
		if next != "" {
			q += "&pageToken=" + url.QueryEscape(next)
		}
		a := w.do(t, "GET", "/admin/directory/v1/users"+q, tok, nil)
		list, _ := a.body["users"].([]any)
		if a.status != 200 || len(list) > 3 {
			t.Fatalf("page %d: %d, %d users", pages, a.status, len(list))
		}
		for _, u := range list {
			seen[u.(map[string]any)["primaryEmail"].(string)] = true
		}
		next, _ = a.body["nextPageToken"].(string)
		if next == "" {
			if pages != 3 {
				t.Errorf("%d pages of 3 for 7 users, want 3", pages)
			}
			break
		}
	}
	if len(seen) != 7 || !seen["user0007@example.com"] {
		t.Errorf("listed %v, want the 7 users of example.com (not the admin)", seen)
	}
	googleError(t, w.do(t, "GET", "/admin/directory/v1/users?domain=example.com&pageToken=bogus", tok, nil), 400)
}
