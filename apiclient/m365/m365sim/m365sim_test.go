package m365sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
)

// world is a sandbox served over HTTPS, one app of it and its token. The
// tests speak plain net/http, as the published record describes Graph.
type world struct {
	sim  *m365sim.Server
	url  string
	hc   *http.Client
	acct m365sim.Account
	tok  string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	sim := m365sim.New()
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	w := &world{sim: sim, url: ts.URL, hc: ts.Client(), acct: sim.NewAccount()}
	sim.AddDomain("example.com")
	status, body := w.token(t, w.acct.TenantID, url.Values{"client_id": {w.acct.ClientID}, "client_secret": {w.acct.ClientSecret}})
	if status != http.StatusOK || body["token_type"] != "Bearer" || body["expires_in"] != 3599.0 {
		t.Fatalf("token: %d %v", status, body)
	}
	w.tok = body["access_token"].(string)
	return w
}

// token asks the token endpoint of tenant with the form fields creds.
func (w *world) token(t *testing.T, tenant string, creds url.Values) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {m365sim.Scope}}
	for k, v := range creds {
		form[k] = v
	}
	res, err := w.hc.PostForm(w.url+"/"+tenant+"/oauth2/v2.0/token", form)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, res)
}

func decode(t *testing.T, res *http.Response) (int, map[string]any) {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%d %q: %v", res.StatusCode, b, err)
		}
	}
	return res.StatusCode, out
}

// graph sends a Graph call with the world's token and extra headers.
func (w *world) graph(t *testing.T, method, path string, body any, header ...string) (int, map[string]any) {
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
	req.Header.Set("Authorization", "Bearer "+w.tok)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := w.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, res)
}

// graphError is the code and message of a Graph error body.
func graphError(body map[string]any) (code, message string) {
	e, _ := body["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	return code, message
}

func newUserBody(upn, password string) map[string]any {
	local, _, _ := strings.Cut(upn, "@")
	return map[string]any{"accountEnabled": true, "displayName": local, "mailNickname": local, "userPrincipalName": upn,
		"usageLocation": "US", "passwordProfile": map[string]any{"password": password, "forceChangePasswordNextSignIn": true}}
}

// The token endpoint's refusals, as the identity platform's AADSTS codes.
func TestTokenRefusals(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name, tenant string
		creds        url.Values
		status       int
		code, aadsts string
	}{
		{"wrong secret", w.acct.TenantID, url.Values{"client_id": {w.acct.ClientID}, "client_secret": {"nope"}}, 401, "invalid_client", "AADSTS7000215"},
		{"unknown client", w.acct.TenantID, url.Values{"client_id": {"00000000-0000-0000-0000-000000000000"}, "client_secret": {"x"}}, 400, "unauthorized_client", "AADSTS700016"},
		{"unknown tenant", "11111111-1111-1111-1111-111111111111", url.Values{"client_id": {w.acct.ClientID}, "client_secret": {w.acct.ClientSecret}}, 400, "invalid_request", "AADSTS90002"},
		{"malformed tenant", "not_a_tenant", url.Values{"client_id": {w.acct.ClientID}, "client_secret": {w.acct.ClientSecret}}, 400, "invalid_request", "AADSTS900023"},
		{"other scope", w.acct.TenantID, url.Values{"client_id": {w.acct.ClientID}, "client_secret": {w.acct.ClientSecret}, "scope": {"User.Read"}}, 400, "invalid_scope", "AADSTS1002012"},
	}
	expired := m365sim.New()
	ea := expired.NewAccount()
	if err := expired.ExpireSecret(ea.ClientID); err != nil {
		t.Fatal(err)
	}
	ets := httptest.NewTLSServer(expired)
	t.Cleanup(ets.Close)
	ew := &world{sim: expired, url: ets.URL, hc: ets.Client(), acct: ea}
	status, body := ew.token(t, ea.TenantID, url.Values{"client_id": {ea.ClientID}, "client_secret": {ea.ClientSecret}})
	if desc, _ := body["error_description"].(string); status != 401 || body["error"] != "invalid_client" || !strings.HasPrefix(desc, "AADSTS7000222:") {
		t.Errorf("expired secret: %d %v", status, body)
	}
	for _, c := range cases {
		status, body := w.token(t, c.tenant, c.creds)
		desc, _ := body["error_description"].(string)
		if status != c.status || body["error"] != c.code || !strings.HasPrefix(desc, c.aadsts+":") || body["trace_id"] == nil {
			t.Errorf("%s: %d %v", c.name, status, body)
		}
	}
	// HTTP Basic works as the form does (x/oauth2 may send either); a
	// verified domain names the tenant as its ID does.
	req, _ := http.NewRequest(http.MethodPost, w.url+"/"+w.sim.InitialDomain()+"/oauth2/v2.0/token",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "scope": {m365sim.Scope}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(w.acct.ClientID), url.QueryEscape(w.acct.ClientSecret))
	res, err := w.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := decode(t, res); status != http.StatusOK || body["access_token"] == nil {
		t.Errorf("Basic auth at the initial domain: %d %v", status, body)
	}
}

// Graph without a valid token answers 401 InvalidAuthenticationToken.
func TestGraphToken(t *testing.T) {
	w := newWorld(t)
	w.tok = "forged"
	if status, body := w.graph(t, http.MethodGet, "/v1.0/users/admin@example.com", nil); status != 401 {
		t.Errorf("forged token: %d %v", status, body)
	} else if code, _ := graphError(body); code != "InvalidAuthenticationToken" {
		t.Errorf("forged token: code %q", code)
	}
}

// A user is created (201), read by UPN with the default properties only
// (accountEnabled needs $select), patched (204 no body); a taken UPN is
// 400 with an ObjectConflict detail; a weak password, a UPN outside the
// verified domains and a missing property are 400 in Graph's words.
func TestUsers(t *testing.T) {
	w := newWorld(t)
	status, body := w.graph(t, http.MethodPost, "/v1.0/users", newUserBody("ann@example.com", "Secret-123"))
	if status != http.StatusCreated || body["id"] == nil || body["userPrincipalName"] != "ann@example.com" {
		t.Fatalf("create: %d %v", status, body)
	}
	if _, got := w.graph(t, http.MethodGet, "/v1.0/users/ANN@example.com", nil); got["accountEnabled"] != nil || got["id"] != body["id"] {
		t.Errorf("GET without $select: %v", got)
	}
	if _, got := w.graph(t, http.MethodGet, "/v1.0/users/ann@example.com?$select=id,accountEnabled", nil); got["accountEnabled"] != true {
		t.Errorf("GET with $select: %v", got)
	}
	status, body = w.graph(t, http.MethodPatch, "/v1.0/users/ann@example.com", map[string]any{"accountEnabled": false})
	if status != http.StatusNoContent || len(body) != 0 {
		t.Errorf("PATCH: %d %v", status, body)
	}
	if m, _ := w.sim.Mailbox("ann@example.com"); m.State != "blocked" || m.Password != "Secret-123" || !m.ForcePasswordChange {
		t.Errorf("the sandbox's record: %+v", m)
	}
	status, body = w.graph(t, http.MethodPost, "/v1.0/users", newUserBody("ann@example.com", "Secret-123"))
	details, _ := body["error"].(map[string]any)["details"].([]any)
	if code, msg := graphError(body); status != 400 || code != "Request_BadRequest" || !strings.Contains(msg, "already exists") || len(details) == 0 ||
		details[0].(map[string]any)["code"] != "ObjectConflict" {
		t.Errorf("taken UPN: %d %v", status, body)
	}
	for name, c := range map[string]struct {
		body map[string]any
		want string
	}{
		"weak password":     {newUserBody("bob@example.com", "alllowercase"), "password complexity"},
		"unverified domain": {newUserBody("bob@elsewhere.example", "Secret-123"), "verified domain names"},
		"bad character":     {newUserBody("b(o)b@example.com", "Secret-123"), "invalid values"},
		"missing property":  {map[string]any{"accountEnabled": true, "mailNickname": "bob", "userPrincipalName": "bob@example.com"}, "A value is required for property"},
	} {
		status, body := w.graph(t, http.MethodPost, "/v1.0/users", c.body)
		if code, msg := graphError(body); status != 400 || code != "Request_BadRequest" || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
	if _, ok := w.sim.Mailbox("bob@example.com"); ok {
		t.Error("a refused create made a user")
	}
}

// An alias (a proxy address) is no key: 404; its owner is found with
// proxyAddresses/any(…) eq, which needs no ConsistencyLevel; proxyAddresses
// are read-only.
func TestProxyAddresses(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 1)
	if err := w.sim.AddProxyAddress("user0001@example.com", "smtp:sales@example.com"); err != nil {
		t.Fatal(err)
	}
	if status, body := w.graph(t, http.MethodGet, "/v1.0/users/sales@example.com", nil); status != 404 {
		t.Errorf("an alias as key: %d %v", status, body)
	} else if code, _ := graphError(body); code != "Request_ResourceNotFound" {
		t.Errorf("an alias as key: code %q", code)
	}
	q := url.Values{"$filter": {"proxyAddresses/any(x:x eq 'smtp:SALES@example.com')"}, "$select": {"userPrincipalName,proxyAddresses"}}
	status, body := w.graph(t, http.MethodGet, "/v1.0/users?"+q.Encode(), nil)
	vals, _ := body["value"].([]any)
	if status != 200 || len(vals) != 1 || vals[0].(map[string]any)["userPrincipalName"] != "user0001@example.com" {
		t.Errorf("owner of the alias: %d %v", status, body)
	}
	if status, _ := w.graph(t, http.MethodPatch, "/v1.0/users/user0001@example.com", map[string]any{"proxyAddresses": []string{}}); status != 400 {
		t.Errorf("PATCH proxyAddresses: %d, want 400", status)
	}
}
