package mailcowsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture is a sandbox behind a real HTTP server with a read-write and a
// read-only key, the domain example.com and its mailbox taken@example.com
// (password Secret-1).
type fixture struct {
	sim    *Server
	url    string
	rw, ro string
}

func newFixture(t *testing.T, opts ...Option) *fixture {
	t.Helper()
	sim := New(opts...)
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	f := &fixture{sim: sim, url: ts.URL, rw: sim.NewAccount(), ro: sim.NewReadOnlyKey()}
	sim.AddDomain("example.com")
	f.mustWrite(t, "add/mailbox", map[string]any{"local_part": "taken", "domain": "example.com", "name": "Taken",
		"password": "Secret-1", "password2": "Secret-1", "quota": 100, "active": 1, "force_pw_update": 0}, "mailbox_added")
	return f
}

// do sends a request with the key ("" for none) and returns the status and
// the body.
func (f *fixture) do(t *testing.T, method, path, key string, body any) (int, []byte) {
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
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// write posts attributes to /api/v1/<path> and returns the answer's
// entries, each entry's msg reduced to its code.
func (f *fixture) write(t *testing.T, path string, body any) []string {
	t.Helper()
	status, data := f.do(t, http.MethodPost, "/api/v1/"+path, f.rw, body)
	if status != http.StatusOK {
		t.Fatalf("POST %s: HTTP %d %s", path, status, data)
	}
	var entries []struct {
		Type string          `json:"type"`
		Log  []any           `json:"log"`
		Msg  json.RawMessage `json:"msg"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("POST %s: %s is not an array of entries: %v", path, data, err)
	}
	var out []string
	for _, e := range entries {
		var code string
		var list []any
		if json.Unmarshal(e.Msg, &list) == nil && len(list) > 0 {
			code, _ = list[0].(string)
		} else if err := json.Unmarshal(e.Msg, &code); err != nil {
			t.Fatalf("POST %s: msg %s is neither a code nor a list", path, e.Msg)
		}
		out = append(out, e.Type+":"+code)
	}
	return out
}

func (f *fixture) mustWrite(t *testing.T, path string, body any, code string) {
	t.Helper()
	if got, want := f.write(t, path, body), []string{"success:" + code}; !cmp.Equal(got, want) {
		t.Fatalf("POST %s = %v, want %v", path, got, want)
	}
}

// read gets /api/v1/get/<path> and decodes it.
func (f *fixture) read(t *testing.T, path string) any {
	t.Helper()
	status, data := f.do(t, http.MethodGet, "/api/v1/get/"+path, f.rw, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d %s", path, status, data)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("GET %s: %s: %v", path, data, err)
	}
	return v
}

func mailboxAttrs(local, password string) map[string]any {
	return map[string]any{"local_part": local, "domain": "example.com", "name": local,
		"password": password, "password2": password, "active": 1, "force_pw_update": 1}
}

func TestAuthentication(t *testing.T) {
	f := newFixture(t)
	add := mailboxAttrs("new", "Secret-1")
	cases := []struct {
		name, method, path, key string
		body                    any
		status                  int
		answer                  string
	}{
		{"no key", "POST", "/api/v1/add/mailbox", "", add, 401, `{"type":"error","msg":"authentication failed"}`},
		{"wrong key", "GET", "/api/v1/get/domain/all", "AAAAAA-BBBBBB-CCCCCC-DDDDDD-EEEEEE", nil, 401, `{"type":"error","msg":"authentication failed"}`},
		{"read-only key writes", "POST", "/api/v1/add/mailbox", f.ro, add, 403, `{"type":"error","msg":"API read/write access denied"}`},
		{"read-only key reads", "GET", "/api/v1/get/status/version", f.ro, nil, 200, `{"version":"` + Version + `"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, data := f.do(t, c.method, c.path, c.key, c.body)
			if status != c.status || string(data) != c.answer {
				t.Errorf("HTTP %d %s, want %d %s", status, data, c.status, c.answer)
			}
		})
	}
	if _, ok := f.sim.Mailbox("new@example.com"); ok {
		t.Error("a refused key created a mailbox")
	}
	if got := f.sim.AuthFailures(); got != 2 {
		t.Errorf("AuthFailures = %d, want 2", got)
	}
}

func TestAddDomain(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, domain, want string
	}{
		{"new", "New.Example", "success:domain_added"},
		{"exists", "example.com", "danger:domain_exists"},
		{"not a name", "bad_domain", "danger:domain_invalid"},
		{"numeric last label", "example.123", "danger:domain_invalid"},
		{"leading hyphen", "-a.example", "danger:domain_invalid"},
		{"trailing hyphen", "example.com-", "danger:domain_invalid"},
		{"internationalised, in punycode", "xn--e1afmkfd.xn--p1ai", "success:domain_added"},
		{"the server's host name", DefaultHostname, "danger:domain_cannot_match_hostname"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := f.write(t, "add/domain", map[string]any{"domain": c.domain, "active": 1, "mailboxes": 5, "aliases": 10,
				"quota": 1000, "maxquota": 500, "defquota": 100})
			if !cmp.Equal(got, []string{c.want}) {
				t.Errorf("add/domain %q = %v, want [%s]", c.domain, got, c.want)
			}
		})
	}
	want := map[string]any{"domain_name": "new.example", "active": 1.0, "mboxes_in_domain": 0.0, "max_num_mboxes_for_domain": 5.0}
	got, _ := f.read(t, "domain/new.example").(map[string]any)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("get/domain/new.example %s = %v, want %v", k, got[k], v)
		}
	}
}

func TestAddMailbox(t *testing.T) {
	f := newFixture(t)
	f.mustWrite(t, "add/domain", map[string]any{"domain": "small.example", "mailboxes": 2, "quota": 100, "maxquota": 100, "defquota": 60}, "domain_added")
	f.sim.SetMailboxLimit("small.example", 1)
	f.mustWrite(t, "add/mailbox", map[string]any{"local_part": "one", "domain": "small.example", "password": "Secret-1", "password2": "Secret-1"}, "mailbox_added")
	change := func(k string, v any) map[string]any {
		a := mailboxAttrs("new", "Secret-1")
		a[k] = v
		return a
	}
	cases := []struct {
		name  string
		attrs map[string]any
		want  string
	}{
		{"bad local part", change("local_part", "a b"), "danger:mailbox_invalid"},
		{"local part ends with a dot", change("local_part", "a."), "danger:mailbox_invalid"},
		{"unknown domain", change("domain", "other.example"), "danger:domain_not_found"},
		{"exists", change("local_part", "Taken"), "danger:object_exists"},
		{"mismatch", change("password2", "Secret-2"), "danger:password_mismatch"},
		{"five characters", map[string]any{"local_part": "new", "domain": "example.com", "password": "Abc-1", "password2": "Abc-1"}, "danger:password_complexity"},
		{"domain full", map[string]any{"local_part": "two", "domain": "small.example", "password": "Secret-1", "password2": "Secret-1"}, "danger:max_mailbox_exceeded"},
		{"quota above the mailbox maximum", change("quota", 20000), "danger:mailbox_quota_exceeded"},
		{"created", change("force_pw_update", "1"), "success:mailbox_added"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := f.write(t, "add/mailbox", c.attrs); !cmp.Equal(got, []string{c.want}) {
				t.Errorf("add/mailbox = %v, want [%s]", got, c.want)
			}
		})
	}
	got, ok := f.sim.Mailbox("NEW@example.com")
	if want := (MailboxInfo{Password: "Secret-1", State: "active", ForcePasswordChange: true}); !ok || got != want {
		t.Errorf("Mailbox(new) = %+v, %v, want %+v", got, ok, want)
	}
	if got := f.sim.mailboxCountLocked("small.example"); got != 1 {
		t.Errorf("small.example has %d mailboxes, want 1", got)
	}
}

func (s *Server) mailboxCountLocked(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mailboxCount(name)
}

func TestEditMailbox(t *testing.T) {
	f := newFixture(t)
	edit := func(attr map[string]any, items ...any) map[string]any {
		return map[string]any{"items": items, "attr": attr}
	}
	cases := []struct {
		name string
		body map[string]any
		want []string
		info MailboxInfo // of taken@example.com afterwards
	}{
		{"password and force", edit(map[string]any{"password": "Secret-2", "password2": "Secret-2", "force_pw_update": "1"}, "taken@example.com"),
			[]string{"success:mailbox_modified"}, MailboxInfo{Password: "Secret-2", State: "active", ForcePasswordChange: true}},
		{"block: active 2", edit(map[string]any{"active": 2}, "TAKEN@example.com"),
			[]string{"success:mailbox_modified"}, MailboxInfo{Password: "Secret-2", State: "blocked", ForcePasswordChange: true}},
		{"inactive: active 0", edit(map[string]any{"active": "0", "force_pw_update": 0}, "taken@example.com"),
			[]string{"success:mailbox_modified"}, MailboxInfo{Password: "Secret-2", State: "inactive"}},
		{"unblock: active 1", edit(map[string]any{"active": 1}, "taken@example.com"),
			[]string{"success:mailbox_modified"}, MailboxInfo{Password: "Secret-2", State: "active"}},
		{"mismatch", edit(map[string]any{"password": "Secret-3", "password2": "Secret-4"}, "taken@example.com"),
			[]string{"danger:password_mismatch"}, MailboxInfo{Password: "Secret-2", State: "active"}},
		{"too short", edit(map[string]any{"password": "abc", "password2": "abc"}, "taken@example.com"),
			[]string{"danger:password_complexity"}, MailboxInfo{Password: "Secret-2", State: "active"}},
		{"unknown mailbox is access_denied", edit(map[string]any{"active": 2}, "nobody@example.com"),
			[]string{"danger:access_denied"}, MailboxInfo{Password: "Secret-2", State: "active"}},
		{"one entry per item", edit(map[string]any{"active": 2}, "nobody@example.com", "taken@example.com"),
			[]string{"danger:access_denied", "success:mailbox_modified"}, MailboxInfo{Password: "Secret-2", State: "blocked"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := f.write(t, "edit/mailbox", c.body); !cmp.Equal(got, c.want) {
				t.Errorf("edit/mailbox = %v, want %v", got, c.want)
			}
			if got, _ := f.sim.Mailbox("taken@example.com"); got != c.info {
				t.Errorf("taken@example.com = %+v, want %+v", got, c.info)
			}
		})
	}
}

func TestReadsAnswerEmptyObjectForNothing(t *testing.T) {
	f := newFixture(t, WithoutDKIM())
	f.sim.AddDomain("empty.example")
	for _, path := range []string{"mailbox/all/empty.example", "mailbox/all/unknown.example", "mailbox/nobody@example.com",
		"domain/unknown.example", "dkim/example.com", "dkim/unknown.example"} {
		t.Run(path, func(t *testing.T) {
			status, data := f.do(t, http.MethodGet, "/api/v1/get/"+path, f.rw, nil)
			if status != http.StatusOK || string(data) != "{}" {
				t.Errorf("GET %s = HTTP %d %s, want 200 {}", path, status, data)
			}
		})
	}
}

func TestReadMailboxes(t *testing.T) {
	f := newFixture(t)
	f.sim.AddMailboxes("list.example", 25)
	list, ok := f.read(t, "mailbox/all/list.example").([]any)
	if !ok || len(list) != 25 {
		t.Fatalf("get/mailbox/all/list.example: %d mailboxes (array %v), want 25", len(list), ok)
	}
	first, _ := list[0].(map[string]any)
	want := map[string]any{"username": "user0001@list.example", "local_part": "user0001", "domain": "list.example",
		"active": 1.0, "attributes": map[string]any{"force_pw_update": "0", "tls_enforce_in": "0", "tls_enforce_out": "0",
			"sogo_access": "1", "imap_access": "1", "pop3_access": "1", "smtp_access": "1"}}
	for k, v := range want {
		if !cmp.Equal(first[k], v) {
			t.Errorf("first mailbox %s = %v, want %v", k, first[k], v)
		}
	}
	if last, _ := list[24].(map[string]any); last["username"] != "user0025@list.example" {
		t.Errorf("last mailbox = %v, want user0025@list.example", last["username"])
	}
	one, _ := f.read(t, "mailbox/user0007@list.example").(map[string]any)
	if one["username"] != "user0007@list.example" {
		t.Errorf("get/mailbox/user0007@list.example = %v", one)
	}
	dom, _ := f.read(t, "domain/list.example").(map[string]any)
	if dom["mboxes_in_domain"] != 25.0 {
		t.Errorf("mboxes_in_domain = %v, want 25", dom["mboxes_in_domain"])
	}
}

func TestReadDKIM(t *testing.T) {
	f := newFixture(t)
	got, _ := f.read(t, "dkim/example.com").(map[string]any)
	pub, _ := got["pubkey"].(string)
	if got["dkim_selector"] != "dkim" || len(pub) < 100 || got["dkim_txt"] != "v=DKIM1;k=rsa;t=s;s=email;p="+pub {
		t.Errorf("get/dkim/example.com = %v", got)
	}
}

func TestRoutes(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/v1/add/mailbox", 405},
		{"POST", "/api/v1/get/domain/all", 405},
		{"GET", "/api/v1/get/nothing/x", 404},
		{"POST", "/api/v1/delete/mailbox", 404},
	}
	for _, c := range cases {
		status, data := f.do(t, c.method, c.path, f.rw, nil)
		if status != c.status || !strings.HasPrefix(string(data), `{"type":"error"`) {
			t.Errorf("%s %s = HTTP %d %s, want %d and an error object", c.method, c.path, status, data, c.status)
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", f.url+"/api/v1/add/domain", strings.NewReader("domain=x.example"))
	req.Header.Set("X-API-Key", f.rw)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(data) != `{"type":"error","msg":"Cannot find attributes in post data"}` {
		t.Errorf("a form body = HTTP %d %s", res.StatusCode, data)
	}
}

func TestFaults(t *testing.T) {
	f := newFixture(t)
	add := func(local string) (int, []byte) {
		return f.do(t, http.MethodPost, "/api/v1/add/mailbox", f.rw, mailboxAttrs(local, "Secret-1"))
	}
	exists := func(local string) bool { _, ok := f.sim.Mailbox(local + "@example.com"); return ok }

	must(t, f.sim.InjectFault(Fault429, 1))
	req, _ := http.NewRequestWithContext(t.Context(), "GET", f.url+"/api/v1/get/domain/all", nil)
	req.Header.Set("X-API-Key", f.rw)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" {
		t.Errorf("429 fault: HTTP %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}

	must(t, f.sim.InjectFault(Fault429, 1))
	if status, _ := add("a429"); status != 429 || exists("a429") {
		t.Errorf("429 fault: HTTP %d, created %v; want 429, nothing done", status, exists("a429"))
	}
	must(t, f.sim.InjectFault(Fault502, 1))
	if status, data := add("a502"); status != 502 || !strings.Contains(string(data), "502 Bad Gateway") || exists("a502") {
		t.Errorf("502 fault: HTTP %d %q, created %v; want 502, nothing done", status, data, exists("a502"))
	}
	f.sim.FailNextWith(1, "some_new_code")
	if got := f.write(t, "add/mailbox", mailboxAttrs("coded", "Secret-1")); !cmp.Equal(got, []string{"danger:some_new_code"}) || exists("coded") {
		t.Errorf("injected code: %v, created %v", got, exists("coded"))
	}
	f.sim.WarnNextWith(1, "domain_added_sogo_failed")
	if got := f.write(t, "add/domain", map[string]any{"domain": "warn.example"}); !cmp.Equal(got, []string{"success:domain_added", "warning:domain_added_sogo_failed"}) {
		t.Errorf("injected warning: %v", got)
	}
	if err := f.sim.InjectFault("teapot", 1); err == nil {
		t.Error("InjectFault(teapot) did not fail")
	}
}

// TestFaultsThatLoseTheAnswer: reset and slow perform the operation and
// the client gets no answer.
func TestFaultsThatLoseTheAnswer(t *testing.T) {
	f := newFixture(t)
	for _, kind := range []string{FaultReset, FaultSlow} {
		t.Run(kind, func(t *testing.T) {
			must(t, f.sim.InjectFault(kind, 1))
			body, _ := json.Marshal(mailboxAttrs("lost"+kind, "Secret-1"))
			req, _ := http.NewRequestWithContext(t.Context(), "POST", f.url+"/api/v1/add/mailbox", bytes.NewReader(body))
			req.Header.Set("X-API-Key", f.rw)
			client := &http.Client{Timeout: 300 * time.Millisecond}
			res, err := client.Do(req)
			if err == nil {
				res.Body.Close()
				t.Fatalf("%s fault: HTTP %d, want no answer", kind, res.StatusCode)
			}
			if _, ok := f.sim.Mailbox("lost" + kind + "@example.com"); !ok {
				t.Errorf("%s fault: the mailbox was not created", kind)
			}
		})
	}
}

func TestFail2Ban(t *testing.T) {
	f := newFixture(t, WithBanAfter(3))
	for range 2 {
		if status, _ := f.do(t, "GET", "/api/v1/get/domain/all", "wrong", nil); status != 401 {
			t.Fatalf("wrong key: HTTP %d", status)
		}
	}
	if status, _ := f.do(t, "GET", "/api/v1/get/domain/all", f.rw, nil); status != 200 { // resets the count
		t.Fatalf("good key: HTTP %d", status)
	}
	for range 3 {
		f.do(t, "GET", "/api/v1/get/domain/all", "wrong", nil)
	}
	if !f.sim.Banned("127.0.0.1") {
		t.Fatal("not banned after 3 failures in a row")
	}
	before := f.sim.Requests()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", f.url+"/api/v1/get/domain/all", nil)
	req.Header.Set("X-API-Key", f.rw)
	fresh := &http.Client{Transport: &http.Transport{}} // a new connection: no retry of a reused one
	if res, err := fresh.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("banned: HTTP %d, want the connection closed", res.StatusCode)
	}
	if got := f.sim.Requests(); got != before+1 {
		t.Errorf("a banned request was counted %d times", got-before)
	}
	f.sim.Unban()
	if status, _ := f.do(t, "GET", "/api/v1/get/domain/all", f.rw, nil); status != 200 {
		t.Errorf("after Unban: HTTP %d", status)
	}
}

func TestRequestsAndOnRequest(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	hooked := 0
	f.sim.OnRequest(func() { mu.Lock(); hooked++; mu.Unlock() })
	before := f.sim.Requests()
	f.do(t, "GET", "/api/v1/get/status/version", f.rw, nil)
	f.do(t, "GET", "/api/v1/get/status/version", "", nil)
	f.do(t, "GET", "/sim/requests", "", nil) // a control is no API request
	if got := f.sim.Requests() - before; got != 2 {
		t.Errorf("Requests grew by %d, want 2", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if hooked != 2 {
		t.Errorf("OnRequest ran %d times, want 2", hooked)
	}
}

// TestConcurrentAdds: of 20 concurrent adds of one mailbox, exactly one
// succeeds.
func TestConcurrentAdds(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	results := make(chan string, 20)
	for range 20 {
		wg.Go(func() {
			status, data := f.do(t, "POST", "/api/v1/add/mailbox", f.rw, mailboxAttrs("race", "Secret-1"))
			results <- fmt.Sprintf("%d %s", status, data)
		})
	}
	wg.Wait()
	close(results)
	added := 0
	for r := range results {
		if strings.Contains(r, `"mailbox_added"`) {
			added++
		}
	}
	if added != 1 {
		t.Errorf("%d adds succeeded, want 1", added)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
