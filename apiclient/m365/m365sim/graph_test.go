package m365sim_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
)

// endswith() on userPrincipalName is an advanced query: without $count=true
// and ConsistencyLevel: eventual it is 400 Request_UnsupportedQuery;
// $top above 999 is refused; @odata.nextLink is followed verbatim until
// it is absent, every user once.
func TestListAdvancedQuery(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 25)
	w.sim.AddDomain("other.example")
	w.sim.AddMailboxes("other.example", 3)
	q := url.Values{"$filter": {"endswith(userPrincipalName,'@example.com')"}, "$select": {"id,userPrincipalName"}, "$top": {"10"}}
	if status, body := w.graph(t, http.MethodGet, "/v1.0/users?"+q.Encode(), nil, "ConsistencyLevel", "eventual"); status != 400 {
		t.Errorf("without $count: %d %v", status, body)
	}
	q.Set("$count", "true")
	if status, body := w.graph(t, http.MethodGet, "/v1.0/users?"+q.Encode(), nil); status != 400 {
		t.Errorf("without ConsistencyLevel: %d %v", status, body)
	} else if code, msg := graphError(body); code != "Request_UnsupportedQuery" || msg != "Unsupported Query." {
		t.Errorf("without ConsistencyLevel: %q %q", code, msg)
	}
	q.Set("$top", "1000")
	if status, body := w.graph(t, http.MethodGet, "/v1.0/users?"+q.Encode(), nil, "ConsistencyLevel", "eventual"); status != 400 {
		t.Errorf("$top 1000: %d %v", status, body)
	} else if _, msg := graphError(body); !strings.Contains(msg, "Must be between 1 and 999 inclusive") {
		t.Errorf("$top 1000: %q", msg)
	}
	q.Set("$top", "10")
	seen := map[string]int{}
	link := w.url + "/v1.0/users?" + q.Encode()
	for pages := 0; link != ""; pages++ {
		if pages > 5 {
			t.Fatal("the pages do not end")
		}
		status, body := w.graph(t, http.MethodGet, strings.TrimPrefix(link, w.url), nil, "ConsistencyLevel", "eventual")
		if status != 200 || body["@odata.count"] != 25.0 {
			t.Fatalf("page: %d %v", status, body)
		}
		for _, v := range body["value"].([]any) {
			seen[v.(map[string]any)["userPrincipalName"].(string)]++
		}
		link, _ = body["@odata.nextLink"].(string)
	}
	if len(seen) != 25 {
		t.Errorf("%d users listed, want 25: %v", len(seen), seen)
	}
	for u, n := range seen {
		if n != 1 || !strings.HasSuffix(u, "@example.com") {
			t.Errorf("%s listed %d times", u, n)
		}
	}
}

// A licence needs a usage location and a free seat; the seats are
// subscribedSkus' prepaidUnits.enabled − consumedUnits; both arrays of
// assignLicense are required.
func TestLicences(t *testing.T) {
	w := newWorld(t)
	_, skus := w.graph(t, http.MethodGet, "/v1.0/subscribedSkus", nil)
	ex := w.sim.SKUID(m365sim.SKUExchange)
	found := false
	for _, v := range skus["value"].([]any) {
		k := v.(map[string]any)
		found = found || k["skuId"] == ex && k["skuPartNumber"] == m365sim.SKUExchange && k["prepaidUnits"].(map[string]any)["enabled"] == 10000.0
	}
	if !found {
		t.Fatalf("subscribedSkus: %v", skus)
	}
	body := newUserBody("ann@example.com", "Secret-123")
	delete(body, "usageLocation")
	_, u := w.graph(t, http.MethodPost, "/v1.0/users", body)
	assign := map[string]any{"addLicenses": []map[string]any{{"skuId": ex, "disabledPlans": []string{}}}, "removeLicenses": []string{}}
	path := "/v1.0/users/" + u["id"].(string) + "/assignLicense"
	if status, got := w.graph(t, http.MethodPost, path, assign); status != 400 {
		t.Errorf("no usage location: %d %v", status, got)
	} else if _, msg := graphError(got); !strings.Contains(msg, "invalid usage location") {
		t.Errorf("no usage location: %q", msg)
	}
	if status, _ := w.graph(t, http.MethodPatch, "/v1.0/users/ann@example.com", map[string]any{"usageLocation": "DE"}); status != 204 {
		t.Fatalf("usage location: %d", status)
	}
	if err := w.sim.SetSeats(m365sim.SKUExchange, 0); err != nil {
		t.Fatal(err)
	}
	if status, got := w.graph(t, http.MethodPost, path, assign); status != 400 {
		t.Errorf("no seat: %d %v", status, got)
	} else if _, msg := graphError(got); !strings.Contains(msg, "does not have any available licenses") {
		t.Errorf("no seat: %q", msg)
	}
	if status, _ := w.graph(t, http.MethodPost, path, map[string]any{"addLicenses": assign["addLicenses"]}); status != 400 {
		t.Errorf("no removeLicenses: %d", status)
	}
	if err := w.sim.SetSeats(m365sim.SKUExchange, 1); err != nil {
		t.Fatal(err)
	}
	if status, got := w.graph(t, http.MethodPost, path, assign); status != 200 || got["id"] != u["id"] {
		t.Errorf("assignLicense: %d %v", status, got)
	}
	if m, _ := w.sim.Mailbox("ann@example.com"); !m.Licensed {
		t.Error("the licence is not recorded")
	}
}

// A password reset needs User-PasswordProfile.ReadWrite.All and the User
// Administrator role; a user who holds a directory role cannot be reset
// or blocked by the app (403 Authorization_RequestDenied); directory
// roles are read with memberOf/microsoft.graph.directoryRole, and the
// role lists the app may not read answer 403.
func TestPermissionsAndRoles(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 1)
	reset := map[string]any{"passwordProfile": map[string]any{"password": "Other-123", "forceChangePasswordNextSignIn": false}}
	if status, _ := w.graph(t, http.MethodPatch, "/v1.0/users/"+w.acct.Admin, reset); status != 403 {
		t.Errorf("reset of a Global Administrator: %d, want 403", status)
	}
	if status, _ := w.graph(t, http.MethodPatch, "/v1.0/users/"+w.acct.Admin, map[string]any{"accountEnabled": false}); status != 403 {
		t.Errorf("block of a Global Administrator: %d, want 403", status)
	}
	_, roles := w.graph(t, http.MethodGet, "/v1.0/users/"+w.acct.Admin+"/memberOf/microsoft.graph.directoryRole", nil)
	if v, _ := roles["value"].([]any); len(v) != 1 || v[0].(map[string]any)["displayName"] != "Global Administrator" {
		t.Errorf("roles of the admin: %v", roles)
	}
	if _, none := w.graph(t, http.MethodGet, "/v1.0/users/user0001@example.com/memberOf/microsoft.graph.directoryRole", nil); len(none["value"].([]any)) != 0 {
		t.Errorf("roles of a user: %v", none)
	}
	if status, _ := w.graph(t, http.MethodGet, "/v1.0/roleManagement/directory/roleAssignments", nil); status != 403 {
		t.Errorf("roleAssignments: %d, want 403", status)
	}
	if err := w.sim.SetPermissions(w.acct.ClientID, false, m365sim.Permissions...); err != nil {
		t.Fatal(err)
	}
	status, body := w.graph(t, http.MethodPatch, "/v1.0/users/user0001@example.com", reset)
	if code, msg := graphError(body); status != 403 || code != "Authorization_RequestDenied" || msg != "Insufficient privileges to complete the operation." {
		t.Errorf("reset without the role: %d %v", status, body)
	}
	if err := w.sim.SetPermissions(w.acct.ClientID, true, m365sim.PermUsers); err != nil {
		t.Fatal(err)
	}
	if status, _ := w.graph(t, http.MethodGet, "/v1.0/subscribedSkus", nil); status != 403 {
		t.Errorf("subscribedSkus without Organization.Read.All: %d", status)
	}
	if status, _ := w.graph(t, http.MethodGet, "/v1.0/domains/example.com", nil); status != 403 {
		t.Errorf("domains without Domain.ReadWrite.All: %d", status)
	}
}

// A domain is added unverified, with an MS=ms… TXT record to publish;
// verify fails until it is in DNS; serviceConfigurationRecords give the
// Email service's MX, SPF and autodiscover records beside Teams' and
// Intune's.
func TestDomains(t *testing.T) {
	w := newWorld(t)
	status, d := w.graph(t, http.MethodPost, "/v1.0/domains", map[string]string{"id": "Contoso.Example"})
	if status != 201 || d["id"] != "contoso.example" || d["isVerified"] != false {
		t.Fatalf("create: %d %v", status, d)
	}
	if status, _ := w.graph(t, http.MethodPost, "/v1.0/domains", map[string]string{"id": "contoso.example"}); status != 400 {
		t.Errorf("create again: %d, want 400", status)
	}
	_, recs := w.graph(t, http.MethodGet, "/v1.0/domains/contoso.example/verificationDnsRecords", nil)
	txt := ""
	for _, v := range recs["value"].([]any) {
		if r := v.(map[string]any); r["recordType"] == "Txt" {
			txt, _ = r["text"].(string)
		}
	}
	if !strings.HasPrefix(txt, "MS=ms") || len(txt) != len("MS=ms12345678") {
		t.Errorf("verification record %q", txt)
	}
	if status, _ := w.graph(t, http.MethodPost, "/v1.0/domains/contoso.example/verify", nil); status != 400 {
		t.Errorf("verify before the record is published: %d", status)
	}
	w.sim.PublishTXT("contoso.example")
	if status, d := w.graph(t, http.MethodPost, "/v1.0/domains/contoso.example/verify", nil); status != 200 || d["isVerified"] != true {
		t.Errorf("verify: %d %v", status, d)
	}
	_, svc := w.graph(t, http.MethodGet, "/v1.0/domains/contoso.example/serviceConfigurationRecords", nil)
	got, services := map[string]string{}, map[string]int{}
	for _, v := range svc["value"].([]any) {
		r := v.(map[string]any)
		services[r["supportedService"].(string)]++
		for _, f := range []string{"mailExchange", "text", "canonicalName"} {
			if s, ok := r[f].(string); ok && r["supportedService"] == "Email" {
				got[r["recordType"].(string)] = s
			}
		}
	}
	if services["Email"] != 3 || services["OfficeCommunicationsOnline"] != 4 || services["Intune"] != 2 {
		t.Errorf("serviceConfigurationRecords per service: %v, want Email 3, OfficeCommunicationsOnline 4, Intune 2", services)
	}
	want := map[string]string{"Mx": "contoso-example.mail.protection.outlook.com", "Txt": "v=spf1 include:spf.protection.outlook.com -all",
		"CName": "autodiscover.outlook.com"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s record %q, want %q", k, got[k], v)
		}
	}
	_, all := w.graph(t, http.MethodGet, "/v1.0/domains", nil)
	initial := ""
	for _, v := range all["value"].([]any) {
		if d := v.(map[string]any); d["isInitial"] == true {
			initial, _ = d["id"].(string)
		}
	}
	if initial != w.sim.InitialDomain() || !strings.HasSuffix(initial, ".onmicrosoft.com") {
		t.Errorf("the initial domain in the list: %q, want %q", initial, w.sim.InitialDomain())
	}
	if status, _ := w.graph(t, http.MethodGet, "/v1.0/domains/unknown.example", nil); status != 404 {
		t.Errorf("an unknown domain: %d", status)
	}
}

// A 429 fault answers TooManyRequests with Retry-After and does nothing;
// the token endpoint meets no fault.
func TestThrottled(t *testing.T) {
	w := newWorld(t)
	if err := w.sim.InjectFault(m365sim.Fault429, 1); err != nil {
		t.Fatal(err)
	}
	before := w.sim.TokenRequests()
	if status, _ := w.token(t, w.acct.TenantID, url.Values{"client_id": {w.acct.ClientID}, "client_secret": {w.acct.ClientSecret}}); status != 200 || w.sim.TokenRequests() != before+1 {
		t.Errorf("token during a fault: %d", status)
	}
	req, _ := http.NewRequest(http.MethodPost, w.url+"/v1.0/users", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+w.tok)
	res, err := w.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	status, body := decode(t, res)
	if code, _ := graphError(body); status != 429 || code != "TooManyRequests" || res.Header.Get("Retry-After") != "1" {
		t.Errorf("throttled: %d %v %q", status, body, res.Header.Get("Retry-After"))
	}
}

// A domain comes with every property of the domain resource and its
// @odata.context; $select returns the properties it names alone, and a
// name that is no property of the type, such as a derived record type's
// text on a collection of records, is 400 "Parsing OData Select and
// Expand failed".
func TestDomainSelect(t *testing.T) {
	w := newWorld(t)
	_, d := w.graph(t, http.MethodPost, "/v1.0/domains", map[string]string{"id": "contoso.example"})
	for _, p := range []string{"@odata.context", "authenticationType", "availabilityStatus", "id", "isAdminManaged", "isDefault",
		"isInitial", "isRoot", "isVerified", "passwordNotificationWindowInDays", "passwordValidityPeriodInDays", "state", "supportedServices"} {
		if _, ok := d[p]; !ok {
			t.Errorf("create: no %s in %v", p, d)
		}
	}
	status, d := w.graph(t, http.MethodGet, "/v1.0/domains/contoso.example?$select=id,isVerified", nil)
	if status != 200 || len(d) != 3 || d["id"] != "contoso.example" || d["isVerified"] != false || d["@odata.context"] == nil {
		t.Errorf("$select=id,isVerified: %d %v", status, d)
	}
	refused := func(path, name, typ string) {
		t.Helper()
		status, body := w.graph(t, http.MethodGet, path, nil)
		code, msg := graphError(body)
		if want := "Could not find a property named '" + name + "' on type 'microsoft.graph." + typ + "'"; status != 400 || code != "BadRequest" ||
			!strings.HasPrefix(msg, "Parsing OData Select and Expand failed") || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %q %q", path, status, code, msg)
		}
	}
	refused("/v1.0/domains/contoso.example?$select=id,nosuch", "nosuch", "domain")
	refused("/v1.0/domains/contoso.example/verificationDnsRecords?$select=recordType,text", "text", "domainDnsRecord")
	status, recs := w.graph(t, http.MethodGet, "/v1.0/domains/contoso.example/verificationDnsRecords?$select=recordType,label", nil)
	vals, _ := recs["value"].([]any)
	for _, v := range vals {
		if r := v.(map[string]any); len(r) != 3 || r["label"] != "contoso.example" || r["@odata.type"] == nil {
			t.Errorf("a record with $select=recordType,label: %v", r)
		}
	}
	if status != 200 || len(vals) != 2 {
		t.Errorf("records with $select=recordType,label: %d %v", status, recs)
	}
}

// TestUserSelect: a user's $select names properties of the user type
// [doc user resource]; any other name, on a user or a list of users, is
// Graph's 400 "Parsing OData Select and Expand failed".
func TestUserSelect(t *testing.T) {
	w := newWorld(t)
	upn := "sel@" + w.sim.InitialDomain()
	if status, _ := w.graph(t, http.MethodPost, "/v1.0/users", map[string]any{"accountEnabled": true, "displayName": "Sel",
		"mailNickname": "sel", "userPrincipalName": upn,
		"passwordProfile": map[string]any{"password": "Select-Secret-1", "forceChangePasswordNextSignIn": false}}); status != 201 {
		t.Fatalf("create: %d", status)
	}
	status, u := w.graph(t, http.MethodGet, "/v1.0/users/"+upn+"?$select=id,accountEnabled,createdDateTime", nil)
	if status != 200 || u["accountEnabled"] != true || u["id"] == nil {
		t.Errorf("$select=id,accountEnabled,createdDateTime: %d %v", status, u)
	}
	for _, path := range []string{"/v1.0/users/" + upn + "?$select=id,nosuch", "/v1.0/users?$select=id,nosuch"} {
		status, body := w.graph(t, http.MethodGet, path, nil)
		code, msg := graphError(body)
		if status != 400 || code != "BadRequest" || !strings.HasPrefix(msg, "Parsing OData Select and Expand failed") ||
			!strings.Contains(msg, "Could not find a property named 'nosuch' on type 'microsoft.graph.user'") {
			t.Errorf("%s: %d %q %q", path, status, code, msg)
		}
	}
}
