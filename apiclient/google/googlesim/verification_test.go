package googlesim_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

func TestSiteVerification(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	w.do(t, "POST", "/admin/directory/v1/customer/my_customer/domains", tok, map[string]string{"domainName": "fresh.org"})
	if r := googleError(t, w.do(t, "POST", "/admin/directory/v1/customer/my_customer/domains", tok, map[string]string{"domainName": "fresh.org"}), 409); r != "duplicate" {
		t.Errorf("a domain added twice: reason %q", r)
	}
	site := map[string]any{"site": map[string]string{"type": "INET_DOMAIN", "identifier": "fresh.org"}, "verificationMethod": "DNS_TXT"}
	a := w.do(t, "POST", "/siteVerification/v1/token", tok, site)
	code, _ := a.body["token"].(string)
	if a.status != 200 || a.body["method"] != "DNS_TXT" || !strings.HasPrefix(code, "google-site-verification=") {
		t.Fatalf("token: %d %v", a.status, a.body)
	}
	if again := w.do(t, "POST", "/siteVerification/v1/token", tok, site); again.body["token"] != code {
		t.Error("asking again changed the token")
	}
	verify := "/siteVerification/v1/webResource?verificationMethod=DNS_TXT"
	body := map[string]any{"site": site["site"]}
	googleError(t, w.do(t, "POST", verify, tok, body), 400) // not in DNS yet
	w.sim.PublishTXT("fresh.org")
	// Another admin has no token of this domain: the token is its asker's.
	other := w.sim.NewAccount()
	otherTok := w.tokenFor(t, sign(t, keyOf(t, other.KeyFile(w.url)), claims{"iss": other.ClientEmail, "scope": strings.Join(googlesim.Scopes, " "),
		"aud": w.url + googlesim.TokenPath, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "sub": other.Admin})).body["access_token"].(string)
	googleError(t, w.do(t, "POST", verify, otherTok, body), 400)
	if a := w.do(t, "POST", verify, tok, body); a.status != 200 || a.body["id"] != "dns://fresh.org" {
		t.Errorf("verify once published: %d %v", a.status, a.body)
	}
	a = w.do(t, "GET", "/admin/directory/v1/customer/my_customer/domains/fresh.org", tok, nil)
	if a.body["verified"] != true || a.body["domainName"] != "fresh.org" {
		t.Errorf("domains.get after verification: %v", a.body)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	path := "/admin/directory/v1/users/" + w.acct.Admin
	for _, f := range []struct {
		kind, reason string
		status       int
	}{{"429", "rateLimitExceeded", 429}, {"403rate", "userRateLimitExceeded", 403}, {"quota", "quotaExceeded", 403}, {"503", "backendError", 503}} {
		if err := w.sim.InjectFault(f.kind, 1); err != nil {
			t.Fatal(err)
		}
		if r := googleError(t, w.do(t, "GET", path, tok, nil), f.status); r != f.reason {
			t.Errorf("fault %s: reason %q, want %q", f.kind, r, f.reason)
		}
	}
	// Faults meet API calls, never the token endpoint.
	if err := w.sim.InjectFault("503", 1); err != nil {
		t.Fatal(err)
	}
	w.token(t)
	googleError(t, w.do(t, "GET", path, tok, nil), 503)
	if err := w.sim.InjectFault("teapot", 1); err == nil {
		t.Error("an unknown fault was accepted")
	}
	if n := w.sim.Requests(); n != 7 {
		t.Errorf("Requests = %d, want 7 (5 API calls, 2 token requests)", n)
	}
}

func ExampleAccount_KeyFile() {
	sim := googlesim.New()
	var f map[string]string
	_ = json.Unmarshal(sim.NewAccount().KeyFile("https://127.0.0.1:8081"), &f)
	fmt.Println(f["type"], f["token_uri"])
	// Output: service_account https://127.0.0.1:8081/token
}
