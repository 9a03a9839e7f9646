package y360sim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture is a sandbox behind a real HTTP server and a token of its first
// organisation, whose default domain is example.org.
type fixture struct {
	sim   *Server
	url   string
	creds Credentials
}

func newFixture(t *testing.T, opts ...Option) *fixture {
	t.Helper()
	sim := New(opts...)
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	return &fixture{sim: sim, url: ts.URL, creds: sim.NewAccount()}
}

func (f *fixture) orgPath(rest string) string {
	return "/directory/v1/org/" + strconv.FormatInt(f.creds.OrgID, 10) + rest
}

// call sends a request with "Authorization: OAuth <token>" (none when token
// is "") and returns the status, the header and the JSON answer, numbers as
// json.Number.
func (f *fixture) call(t *testing.T, method, path, token string, body any) (int, http.Header, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, f.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "OAuth "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "application/json" {
		return res.StatusCode, res.Header, nil
	}
	return res.StatusCode, res.Header, decode(t, res.Body)
}

func decode(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var got map[string]any
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decoding the answer: %v", err)
	}
	return got
}

// must sends a request as the fixture's token and wants HTTP 200.
func (f *fixture) must(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	status, _, got := f.call(t, method, path, f.creds.Token, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d %v, want 200", method, path, status, got)
	}
	return got
}

func wantError(code json.Number, message string) map[string]any {
	return map[string]any{"code": code, "message": message, "details": []any{}}
}

func newUser(nick, password string) map[string]any {
	return map[string]any{"nickname": nick, "departmentId": 1, "password": password,
		"name": map[string]string{"first": "Ada", "last": "Lovelace"}, "passwordChangeRequired": true}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other, err := f.sim.NewOrganization("Other", "other.example")
	if err != nil {
		t.Fatal(err)
	}
	unauth := wantError("16", "Unauthenticated")
	tests := []struct {
		name       string
		path       string
		header     string
		wantStatus int
		want       map[string]any
	}{
		{"no header", f.orgPath("/users"), "", 401, unauth},
		{"bearer scheme", f.orgPath("/users"), "Bearer " + f.creds.Token, 401, unauth},
		{"unknown token", f.orgPath("/users"), "OAuth y0_nosuchtoken", 401, unauth},
		{"no header, org list", "/directory/v1/org", "", 401, unauth},
		{"another organisation", "/directory/v1/org/" + strconv.FormatInt(other.OrgID, 10) + "/users", "OAuth " + f.creds.Token, 403, wantError("7", "Permission denied")},
		{"unknown organisation", "/directory/v1/org/42/users", "OAuth " + f.creds.Token, 404, wantError("5", "organization not found")},
		{"organisation not a number", "/directory/v1/org/x/users", "OAuth " + f.creds.Token, 404, wantError("5", "organization not found")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, f.url+tc.path, nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got := decode(t, res.Body)
			if res.StatusCode != tc.wantStatus {
				t.Errorf("HTTP %d, want %d", res.StatusCode, tc.wantStatus)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOrganizations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other, err := f.sim.NewOrganization("Other", "other.example")
	if err != nil {
		t.Fatal(err)
	}
	orgList := func(ids ...Credentials) map[string]any {
		var list []any
		for _, c := range ids {
			name := "Sandbox"
			if c.OrgID == other.OrgID {
				name = "Other"
			}
			list = append(list, map[string]any{"id": json.Number(strconv.FormatInt(c.OrgID, 10)), "name": name})
		}
		return map[string]any{"organizations": list, "nextPageToken": ""}
	}
	if diff := cmp.Diff(orgList(f.creds), f.must(t, "GET", "/directory/v1/org", nil)); diff != "" {
		t.Errorf("first token (-want +got):\n%s", diff)
	}
	_, _, got := f.call(t, "GET", "/directory/v1/org", other.Token, nil)
	if diff := cmp.Diff(orgList(other), got); diff != "" {
		t.Errorf("the other organisation's token (-want +got):\n%s", diff)
	}
	if err := f.sim.Grant(f.creds.Token, other.OrgID); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(orgList(f.creds, other), f.must(t, "GET", "/directory/v1/org", nil)); diff != "" {
		t.Errorf("after Grant (-want +got):\n%s", diff)
	}
	if _, err := f.sim.NewOrganization("Third", "example.org"); err == nil {
		t.Error("NewOrganization with a taken default domain succeeded")
	}
}

var timestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)

func TestCreateUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	got := f.must(t, "POST", f.orgPath("/users"), newUser("Ada.L", "Pa&ss+w%rd;1"))
	id, ok := got["id"].(string)
	if n, err := strconv.ParseUint(id, 10, 64); !ok || err != nil || n <= 1<<53 {
		t.Errorf("id = %#v, want a string of a number above 2^53", got["id"])
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		if s, _ := got[k].(string); !timestamp.MatchString(s) {
			t.Errorf("%s = %#v, want an RFC 3339 time", k, got[k])
		}
		delete(got, k)
	}
	want := map[string]any{"id": id, "nickname": "ada.l", "departmentId": json.Number("1"), "email": "ada.l@example.org",
		"name": map[string]any{"first": "Ada", "last": "Lovelace", "middle": ""}, "aliases": []any{},
		"isEnabled": true, "isAdmin": false, "isRobot": false, "isDismissed": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	info, ok := f.sim.Mailbox("ADA.L@Example.org")
	wantInfo := MailboxInfo{Password: "Pa&ss+w%rd;1", State: "active", ForcePasswordChange: true, UID: id}
	if !ok || info != wantInfo {
		t.Errorf("Mailbox = %+v, %v; want %+v, true", info, ok, wantInfo)
	}
	if err := f.sim.AddDomain("second.example"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.sim.Mailbox("ada.l@second.example"); !ok {
		t.Error("the nickname has no mailbox at the organisation's second domain")
	}
	if _, ok := f.sim.Mailbox("ada.l@nosuch.example"); ok {
		t.Error("a mailbox at a domain of no organisation")
	}
}

func TestCreateUserRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.must(t, "POST", f.orgPath("/users"), newUser("taken", "Secret-1"))
	with := func(k string, v any) map[string]any {
		u := newUser("new", "Secret-1")
		u[k] = v
		return u
	}
	tests := []struct {
		name       string
		body       any
		wantStatus int
		wantCode   json.Number
	}{
		{"exists", newUser("taken", "Secret-2"), 409, "6"},
		{"exists in another case", newUser("TAKEN", "Secret-2"), 409, "6"},
		{"no nickname", with("nickname", ""), 400, "3"},
		{"nickname starts with a digit", with("nickname", "1ada"), 400, "3"},
		{"nickname of 31", with("nickname", "a"+strings.Repeat("b", 30)), 400, "3"},
		{"cyrillic nickname", with("nickname", "ада"), 400, "3"},
		{"no name", with("name", map[string]string{"first": "Ada"}), 400, "3"},
		{"unknown department", with("departmentId", 2), 404, "5"},
		{"password of 5", with("password", "Ab1-x"), 400, "3"},
		{"password of 21", with("password", strings.Repeat("a", 21)), 400, "3"},
		{"password with a space", with("password", "Secret 12"), 400, "3"},
		{"password is the nickname", newUser("adalove", "AdaLove"), 400, "3"},
		{"not JSON", "{", 400, "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, got := f.call(t, "POST", f.orgPath("/users"), f.creds.Token, tc.body)
			if status != tc.wantStatus || got["code"] != tc.wantCode {
				t.Errorf("HTTP %d %v, want %d with code %s", status, got, tc.wantStatus, tc.wantCode)
			}
			if msg, _ := got["message"].(string); msg == "" || strings.Contains(msg, "Secret") {
				t.Errorf("message = %q, want the rule and no password", msg)
			}
		})
	}
	if info, _ := f.sim.Mailbox("taken@example.org"); info.Password != "Secret-1" {
		t.Errorf("the existing user's password changed to %q", info.Password)
	}
	if _, ok := f.sim.Mailbox("new@example.org"); ok {
		t.Error("a refused user was created")
	}
}

func TestPatchUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.must(t, "POST", f.orgPath("/users"), newUser("ada", "Secret-1"))["id"].(string)
	path := f.orgPath("/users/" + id)
	steps := []struct {
		name string
		body map[string]any
		want MailboxInfo
	}{
		{"password alone", map[string]any{"password": "Secret-2"}, MailboxInfo{"Secret-2", "active", true, id}},
		{"force off", map[string]any{"passwordChangeRequired": false}, MailboxInfo{"Secret-2", "active", false, id}},
		{"block", map[string]any{"isEnabled": false}, MailboxInfo{"Secret-2", "blocked", false, id}},
		{"other fields ignored", map[string]any{"nickname": "eve"}, MailboxInfo{"Secret-2", "blocked", false, id}},
		{"all three", map[string]any{"password": "Secret-3", "passwordChangeRequired": true, "isEnabled": true}, MailboxInfo{"Secret-3", "active", true, id}},
	}
	for _, st := range steps {
		got := f.must(t, "PATCH", path, st.body)
		if got["id"] != id || got["isEnabled"] != (st.want.State == "active") {
			t.Errorf("%s: answer %v", st.name, got)
		}
		if info, _ := f.sim.Mailbox("ada@example.org"); info != st.want {
			t.Errorf("%s: Mailbox = %+v, want %+v", st.name, info, st.want)
		}
	}
	if status, _, got := f.call(t, "PATCH", path, f.creds.Token, map[string]any{"password": "x"}); status != 400 || got["code"] != json.Number("3") {
		t.Errorf("bad password: HTTP %d %v, want 400 code 3", status, got)
	}
	if status, _, got := f.call(t, "PATCH", f.orgPath("/users/123"), f.creds.Token, map[string]any{"isEnabled": false}); status != 404 || got["code"] != json.Number("5") {
		t.Errorf("unknown user: HTTP %d %v, want 404 code 5", status, got)
	}
	if status, _, got := f.call(t, "GET", path, f.creds.Token, nil); status != 200 || got["nickname"] != "ada" {
		t.Errorf("GET user: HTTP %d %v", status, got)
	}
}

func TestPatchRejectsForceChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t, WithPatchRejectsForceChange())
	id := f.must(t, "POST", f.orgPath("/users"), newUser("ada", "Secret-1"))["id"].(string)
	path := f.orgPath("/users/" + id)
	status, _, got := f.call(t, "PATCH", path, f.creds.Token, map[string]any{"password": "Secret-2", "passwordChangeRequired": false})
	if status != 400 || got["code"] != json.Number("3") {
		t.Errorf("with passwordChangeRequired: HTTP %d %v, want 400 code 3", status, got)
	}
	if info, _ := f.sim.Mailbox("ada@example.org"); info.Password != "Secret-1" || !info.ForcePasswordChange {
		t.Errorf("a refused PATCH changed the user: %+v", info)
	}
	f.must(t, "PATCH", path, map[string]any{"password": "Secret-2"})
	f.sim.SetPatchRejectsForceChange(false)
	f.must(t, "PATCH", path, map[string]any{"passwordChangeRequired": false})
	if info, _ := f.sim.Mailbox("ada@example.org"); info.Password != "Secret-2" || info.ForcePasswordChange {
		t.Errorf("after the two PATCHes: %+v", info)
	}
}

func TestListUsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := f.sim.AddMailboxes("example.org", 25); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query                   string
		page, pages, perPage, n int
		first                   string
	}{
		{"", 1, 3, 10, 10, "user0001"},
		{"?page=3", 3, 3, 10, 5, "user0021"},
		{"?page=2&perPage=7", 2, 4, 7, 7, "user0008"},
		{"?perPage=1000", 1, 1, 1000, 25, "user0001"},
		{"?page=99", 99, 3, 10, 0, ""},
		{"?page=9223372036854775807", 9223372036854775807, 3, 10, 0, ""},
	}
	for _, tc := range tests {
		got := f.must(t, "GET", f.orgPath("/users"+tc.query), nil)
		users, _ := got["users"].([]any)
		want := map[string]any{"page": num(tc.page), "pages": num(tc.pages), "perPage": num(tc.perPage), "total": num(25)}
		delete(got, "users")
		if diff := cmp.Diff(want, got); diff != "" || len(users) != tc.n {
			t.Errorf("%q: %d users, want %d; fields (-want +got):\n%s", tc.query, len(users), tc.n, diff)
		}
		if tc.n > 0 && users[0].(map[string]any)["nickname"] != tc.first {
			t.Errorf("%q: first user %v, want %s", tc.query, users[0], tc.first)
		}
	}
	for _, q := range []string{"?page=0", "?perPage=-1", "?page=x", "?perPage=1001"} {
		if status, _, _ := f.call(t, "GET", f.orgPath("/users"+q), f.creds.Token, nil); status != 400 {
			t.Errorf("%q: HTTP %d, want 400", q, status)
		}
	}
}

func num(n int) json.Number { return json.Number(strconv.Itoa(n)) }

func TestDomains(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other, err := f.sim.NewOrganization("Other", "other.example")
	if err != nil {
		t.Fatal(err)
	}
	got := f.must(t, "POST", f.orgPath("/domains"), map[string]string{"domain": "New.Example."})
	want := map[string]any{"name": "new.example", "verified": false, "mx": false, "delegated": false, "master": false,
		"status": map[string]any{"status": "need-validation"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("add (-want +got):\n%s", diff)
	}
	for _, d := range []string{"new.example", "example.org", "other.example"} {
		if status, _, got := f.call(t, "POST", f.orgPath("/domains"), f.creds.Token, map[string]string{"domain": d}); status != 409 || got["code"] != json.Number("6") {
			t.Errorf("add %s again: HTTP %d %v, want 409 code 6", d, status, got)
		}
	}
	for _, d := range []string{"пример.рф", "localhost", "-a.example", "a_b.example", "192.0.2.1", ""} {
		if status, _, _ := f.call(t, "POST", f.orgPath("/domains"), f.creds.Token, map[string]string{"domain": d}); status != 400 {
			t.Errorf("add %q: HTTP %d, want 400", d, status)
		}
	}
	f.must(t, "POST", f.orgPath("/domains"), map[string]string{"domain": "xn--e1afmkfd.xn--p1ai"})

	status := f.must(t, "GET", f.orgPath("/domains/NEW.example/status"), nil)
	methods, _ := status["methods"].([]any)
	if status["status"] != "need-validation" || len(methods) != 3 {
		t.Fatalf("status = %v, want need-validation with three methods", status)
	}
	for i, m := range methods {
		m := m.(map[string]any)
		if code, _ := m["code"].(string); m["method"] != methodNames[i] || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(code) {
			t.Errorf("method %d = %v", i, m)
		}
	}
	if err := f.sim.Verify("new.example"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"status": "ok", "methods": []any{}}, f.must(t, "GET", f.orgPath("/domains/new.example/status"), nil)); diff != "" {
		t.Errorf("verified status (-want +got):\n%s", diff)
	}
	if code, _, got := f.call(t, "GET", f.orgPath("/domains/other.example/status"), f.creds.Token, nil); code != 404 {
		t.Errorf("another organisation's domain: HTTP %d %v, want 404", code, got)
	}
	if _, _, got := f.call(t, "GET", "/directory/v1/org/"+strconv.FormatInt(other.OrgID, 10)+"/domains/other.example/status", other.Token, nil); got["status"] != "ok" {
		t.Errorf("a default domain's status = %v, want ok", got)
	}
	list := f.must(t, "GET", f.orgPath("/domains?perPage=2"), nil)
	domains, _ := list["domains"].([]any)
	if list["total"] != num(3) || list["pages"] != num(2) || len(domains) != 2 ||
		domains[0].(map[string]any)["name"] != "example.org" || domains[0].(map[string]any)["master"] != true ||
		domains[1].(map[string]any)["verified"] != true {
		t.Errorf("domain list = %v", list)
	}
}

func TestUnknownPathAndMethod(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	status, _, got := f.call(t, "GET", "/directory/v1/nosuch", f.creds.Token, nil)
	if status != 404 || got["code"] != json.Number("5") {
		t.Errorf("unknown path: HTTP %d %v, want 404 code 5", status, got)
	}
	status, h, got := f.call(t, "DELETE", f.orgPath("/users"), f.creds.Token, nil)
	if status != 405 || got["code"] != json.Number("12") || !strings.Contains(h.Get("Allow"), "POST") {
		t.Errorf("DELETE users: HTTP %d %v Allow %q, want 405 code 12 allowing POST", status, got, h.Get("Allow"))
	}
}

// TestFaults drives each fault over a real connection and checks whether
// the operation happened.
func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind       string
		wantStatus int // 0: no answer
		wantDone   bool
	}{
		{Fault429, 429, false},
		{Fault502, 502, false},
		{FaultReset, 0, true},
		{FaultSlow, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if err := f.sim.InjectFault(tc.kind, 1); err != nil {
				t.Fatal(err)
			}
			arrived := make(chan struct{}, 1)
			f.sim.OnRequest(func() { arrived <- struct{}{} })
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second) // "slow" answers after 10 s
			defer cancel()
			body, _ := json.Marshal(newUser("ada", "Secret-1"))
			req, _ := http.NewRequestWithContext(ctx, "POST", f.url+f.orgPath("/users"), bytes.NewReader(body))
			req.Header.Set("Authorization", "OAuth "+f.creds.Token)
			res, err := http.DefaultClient.Do(req)
			<-arrived
			switch {
			case tc.wantStatus == 0 && err == nil:
				res.Body.Close()
				t.Fatalf("HTTP %d, want no answer", res.StatusCode)
			case tc.wantStatus != 0 && err != nil:
				t.Fatal(err)
			case tc.wantStatus != 0:
				defer res.Body.Close()
				if res.StatusCode != tc.wantStatus {
					t.Errorf("HTTP %d, want %d", res.StatusCode, tc.wantStatus)
				}
				if tc.kind == Fault429 && res.Header.Get("Retry-After") != "1" {
					t.Errorf("Retry-After %q, want 1", res.Header.Get("Retry-After"))
				}
			}
			if _, done := f.sim.Mailbox("ada@example.org"); done != tc.wantDone {
				t.Errorf("mailbox created = %v, want %v", done, tc.wantDone)
			}
			f.sim.OnRequest(nil)
			// The queue is used up: the next request is answered normally.
			if status, _, got := f.call(t, "GET", "/directory/v1/org", f.creds.Token, nil); status != 200 {
				t.Errorf("next request: HTTP %d %v", status, got)
			}
			if n := f.sim.Requests(); n != 2 {
				t.Errorf("Requests() = %d, want 2", n)
			}
		})
	}
}

func TestInjectFaultRefusesUnknownKind(t *testing.T) {
	t.Parallel()
	s := New()
	for _, kind := range []string{"", "500", "truncated"} {
		if err := s.InjectFault(kind, 1); err == nil {
			t.Errorf("InjectFault(%q) = nil, want an error", kind)
		}
	}
	if err := s.InjectFault(Fault502, -1); err == nil {
		t.Error("InjectFault(502, -1) = nil, want an error")
	}
}

func TestLatencyDropsAbandonedRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.sim.SetLatency(time.Hour)
	arrived := make(chan struct{})
	f.sim.OnRequest(func() { close(arrived) })
	ctx, cancel := context.WithCancel(t.Context())
	body, _ := json.Marshal(newUser("ada", "Secret-1"))
	req, _ := http.NewRequestWithContext(ctx, "POST", f.url+f.orgPath("/users"), bytes.NewReader(body))
	req.Header.Set("Authorization", "OAuth "+f.creds.Token)
	done := make(chan error)
	go func() {
		_, err := http.DefaultClient.Do(req)
		done <- err
	}()
	<-arrived
	cancel()
	if err := <-done; err == nil {
		t.Fatal("an answer within an hour's latency")
	}
	f.sim.SetLatency(0)
	f.sim.OnRequest(nil)
	if _, ok := f.sim.Mailbox("ada@example.org"); ok {
		t.Error("a request abandoned during the latency was carried out")
	}
}

// TestControls drives every /sim/ endpoint over HTTP.
func TestControls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	post := func(path string, form url.Values) (int, map[string]any) {
		t.Helper()
		res, err := http.PostForm(f.url+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		return res.StatusCode, decode(t, res.Body)
	}
	get := func(path string) (int, map[string]any) {
		t.Helper()
		res, err := http.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		return res.StatusCode, decode(t, res.Body)
	}
	_, acct := post("/sim/account", nil)
	tok, _ := acct["token"].(string)
	if acct["orgId"] != json.Number(strconv.FormatInt(f.creds.OrgID, 10)) || !strings.HasPrefix(tok, "y0_") {
		t.Errorf("/sim/account = %v", acct)
	}
	if status, _, _ := f.call(t, "GET", f.orgPath("/users"), tok, nil); status != 200 {
		t.Errorf("the new token: HTTP %d", status)
	}
	for _, c := range []struct {
		path string
		form url.Values
		want int
	}{
		{"/sim/domain", url.Values{"name": {"seeded.example"}}, 200},
		{"/sim/domain", url.Values{"name": {"seeded.example"}}, 400},
		{"/sim/verify", url.Values{"name": {"nosuch.example"}}, 400},
		{"/sim/mailboxes", url.Values{"domain": {"seeded.example"}, "n": {"3"}}, 200},
		{"/sim/mailboxes", url.Values{"domain": {"nosuch.example"}, "n": {"3"}}, 400},
		{"/sim/fault", url.Values{"kind": {"nosuch"}}, 400},
		{"/sim/fault", url.Values{"kind": {"502"}, "n": {"x"}}, 400},
		{"/sim/latency", url.Values{"d": {"soon"}}, 400},
		{"/sim/latency", url.Values{"d": {"0s"}}, 200},
		{"/sim/patch-force", url.Values{"reject": {"maybe"}}, 400},
		{"/sim/patch-force", url.Values{"reject": {"true"}}, 200},
		{"/sim/fault", url.Values{"kind": {"502"}, "n": {"2"}}, 200},
	} {
		if status, got := post(c.path, c.form); status != c.want {
			t.Errorf("POST %s %v: HTTP %d %v, want %d", c.path, c.form, status, got, c.want)
		}
	}
	if status, got := get("/sim/mailbox?address=user0003@seeded.example"); status != 200 || got["state"] != "active" || got["password"] == "" {
		t.Errorf("/sim/mailbox = HTTP %d %v", status, got)
	}
	if status, _ := get("/sim/mailbox?address=user0004@seeded.example"); status != 404 {
		t.Errorf("/sim/mailbox of no mailbox: HTTP %d, want 404", status)
	}
	for range 2 {
		if status, _, _ := f.call(t, "GET", "/directory/v1/org", f.creds.Token, nil); status != 502 {
			t.Errorf("after /sim/fault n=2: HTTP %d, want 502", status)
		}
	}
	if _, got := get("/sim/requests"); got["requests"] != num(3) {
		t.Errorf("/sim/requests = %v, want 3", got)
	}
	if !f.sim.rejectForceChange {
		t.Error("/sim/patch-force reject=true did not take")
	}
}
