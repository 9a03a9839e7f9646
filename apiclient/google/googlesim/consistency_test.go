package googlesim_test

import (
	"net/http"
	"testing"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// With a lag, a new user is unreadable for the next reads that name it
// (users.get by address or id, users.aliases.list), answered 403 forbidden
// or 404 notFound as set, while a second insert sees it at once (409); a
// new alias is unreadable as a userKey likewise; Settle ends every lag.
func TestLag(t *testing.T) {
	w := newWorld(t)
	w.sim.AddDomain("example.com")
	tok := w.token(t)
	if err := w.sim.SetLag(2, http.StatusForbidden); err != nil {
		t.Fatal(err)
	}
	id := w.addUser(t, tok, "ann@example.com")
	if r := googleError(t, w.do(t, "GET", usersPath+"/ann@example.com", tok, nil), 403); r != "forbidden" {
		t.Errorf("first read after insert: reason %q, want forbidden", r)
	}
	a := w.do(t, "POST", usersPath, tok, map[string]any{"primaryEmail": "ann@example.com",
		"name": map[string]string{"givenName": "Ann", "familyName": "Lee"}, "password": "Passw0rd!"})
	if r := googleError(t, a, 409); r != "duplicate" {
		t.Errorf("a second insert during the lag: reason %q, want duplicate", r)
	}
	if r := googleError(t, w.do(t, "GET", usersPath+"/"+id+"/aliases", tok, nil), 403); r != "forbidden" {
		t.Errorf("second read (aliases.list by id): reason %q, want forbidden", r)
	}
	if a := w.do(t, "GET", usersPath+"/ann@example.com", tok, nil); a.status != 200 {
		t.Errorf("third read: %d %v, want the user", a.status, a.body)
	}
	if err := w.sim.SetLag(5, http.StatusNotFound); err != nil {
		t.Fatal(err)
	}
	if a := w.do(t, "POST", usersPath+"/ann@example.com/aliases", tok, map[string]string{"alias": "sales@example.com"}); a.status != 200 {
		t.Fatalf("alias insert: %d %v", a.status, a.body)
	}
	if r := googleError(t, w.do(t, "GET", usersPath+"/sales@example.com", tok, nil), 404); r != "notFound" {
		t.Errorf("read of a new alias: reason %q, want notFound", r)
	}
	w.sim.Settle()
	if a := w.do(t, "GET", usersPath+"/sales@example.com", tok, nil); a.status != 200 || a.body["primaryEmail"] != "ann@example.com" {
		t.Errorf("after Settle: %d %v, want ann", a.status, a.body)
	}
	if err := w.sim.SetLag(1, http.StatusTeapot); err == nil {
		t.Error("SetLag took a status other than 403 and 404")
	}
}

// A userKey, a new user or a new alias in another customer's domain is
// 403 domainCannotUseApis.
func TestForeignDomain(t *testing.T) {
	w := newWorld(t)
	w.sim.AddDomain("example.com")
	w.sim.AddForeignDomain("other.example")
	tok := w.token(t)
	w.addUser(t, tok, "ann@example.com")
	for _, a := range []answer{
		w.do(t, "GET", usersPath+"/bob@other.example", tok, nil),
		w.do(t, "POST", usersPath, tok, map[string]any{"primaryEmail": "bob@other.example",
			"name": map[string]string{"givenName": "B", "familyName": "O"}, "password": "Passw0rd!"}),
		w.do(t, "POST", usersPath+"/ann@example.com/aliases", tok, map[string]string{"alias": "x@other.example"}),
	} {
		if r := googleError(t, a, 403); r != "domainCannotUseApis" {
			t.Errorf("reason %q, want domainCannotUseApis", r)
		}
	}
}

// A service not enabled in the key's project answers 403
// accessNotConfigured with an ErrorInfo SERVICE_DISABLED naming it.
func TestServiceDisabled(t *testing.T) {
	w := newWorld(t)
	tok := w.token(t)
	if err := w.sim.DisableAPI(googlesim.ServiceDirectory, true); err != nil {
		t.Fatal(err)
	}
	a := w.do(t, "GET", usersPath+"/"+w.acct.Admin, tok, nil)
	e, _ := a.body["error"].(map[string]any)
	errs, _ := e["errors"].([]any)
	details, _ := e["details"].([]any)
	if a.status != 403 || len(errs) != 1 || len(details) != 1 {
		t.Fatalf("a call of a disabled API: %d %v", a.status, a.body)
	}
	info, _ := details[0].(map[string]any)
	meta, _ := info["metadata"].(map[string]any)
	if errs[0].(map[string]any)["reason"] != "accessNotConfigured" || info["reason"] != "SERVICE_DISABLED" || meta["service"] != googlesim.ServiceDirectory {
		t.Errorf("errors %v, details %v", errs, details)
	}
	if a := w.do(t, "POST", "/siteVerification/v1/token", tok, map[string]any{"site": map[string]string{"type": "INET_DOMAIN", "identifier": "x.example"}, "verificationMethod": "DNS_TXT"}); a.status == 403 {
		t.Errorf("Site Verification answered 403 while only the Directory API is disabled: %v", a.body)
	}
	if err := w.sim.DisableAPI(googlesim.ServiceDirectory, false); err != nil {
		t.Fatal(err)
	}
	if a := w.do(t, "GET", usersPath+"/"+w.acct.Admin, tok, nil); a.status != 200 {
		t.Errorf("after enabling it again: %d", a.status)
	}
}
