package pddsim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture is a sandbox behind a real HTTP server with two accounts. Alice
// owns example.com (domain-activate, with the mailbox taken@example.com),
// mx.example (mx-activate) and done.example (added); Bob owns bob.example.
type fixture struct {
	sim        *Server
	ts         *httptest.Server
	url        string
	alice, bob string
}

func newFixture(t *testing.T, opts ...Option) *fixture {
	t.Helper()
	sim := New(opts...)
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	f := &fixture{sim: sim, ts: ts, url: ts.URL, alice: sim.NewAccount(), bob: sim.NewAccount()}
	for _, d := range []string{"example.com", "mx.example", "done.example"} {
		f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {d}})
	}
	f.mustPost(t, "/api2/admin/domain/register", f.bob, url.Values{"domain": {"bob.example"}})
	f.mustPost(t, "/api2/admin/email/add", f.alice, url.Values{"domain": {"example.com"}, "login": {"taken"}, "password": {"Secret-1"}})
	if err := sim.SetStatus("mx.example", StatusMXActivate); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetStatus("done.example", StatusAdded); err != nil {
		t.Fatal(err)
	}
	return f
}

// post sends a form with the token (none when token is "") and returns the
// HTTP status and the JSON answer, numbers as json.Number.
func (f *fixture) post(t *testing.T, path, token string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("PddToken", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("POST %s: Content-Type = %q, want application/json", path, ct)
	}
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	var got map[string]any
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("POST %s: decoding the answer: %v", path, err)
	}
	return res.StatusCode, got
}

func (f *fixture) mustPost(t *testing.T, path, token string, form url.Values) map[string]any {
	t.Helper()
	status, got := f.post(t, path, token, form)
	if status != http.StatusOK || got["success"] != "ok" {
		t.Fatalf("POST %s %v: HTTP %d %v, want ok", path, form, status, got)
	}
	return got
}

var hex12Re = regexp.MustCompile(`^[0-9a-f]{12}$`)

// maskSecrets replaces secrets of 12 lowercase hex characters by "<hex12>",
// so that answers compare equal; any other value stays and fails the diff.
func maskSecrets(got map[string]any) {
	sec, ok := got["secrets"].(map[string]any)
	if !ok {
		return
	}
	for k, v := range sec {
		if s, ok := v.(string); ok && hex12Re.MatchString(s) {
			sec[k] = "<hex12>"
		}
	}
}

func errAnswer(code Code, domain string) map[string]any {
	m := map[string]any{"success": "error", "error": string(code)}
	if domain != "" {
		m["domain"] = domain
	}
	return m
}

var activateAnswer = func(domain string) map[string]any {
	return map[string]any{"domain": domain, "status": "domain-activate", "stage": "owner-check",
		"secrets": map[string]any{"name": "<hex12>", "content": "<hex12>"}, "success": "ok"}
}

func TestRegister(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 63)
	tests := []struct {
		name   string
		token  func(*fixture) string
		domain []string // nil: no parameter at all
		want   map[string]any
	}{
		{"no header", func(*fixture) string { return "" }, []string{"new.example"}, errAnswer(CodeNoAuth, "new.example")},
		{"unknown token", func(*fixture) string { return "NOSUCHTOKEN" }, []string{"new.example"}, errAnswer(CodeBadToken, "new.example")},
		{"no domain parameter", alice, nil, errAnswer(CodeNoDomain, "")},
		{"empty domain", alice, []string{""}, errAnswer(CodeNoDomain, "")},
		{"one label", alice, []string{"localhost"}, errAnswer(CodeBadDomain, "localhost")},
		{"underscore", alice, []string{"a_b.example"}, errAnswer(CodeBadDomain, "a_b.example")},
		{"leading hyphen", alice, []string{"-a.example"}, errAnswer(CodeBadDomain, "-a.example")},
		{"trailing hyphen", alice, []string{"a-.example"}, errAnswer(CodeBadDomain, "a-.example")},
		{"empty label", alice, []string{"a..example"}, errAnswer(CodeBadDomain, "a..example")},
		{"label of 64", alice, []string{long + "a.example"}, errAnswer(CodeBadDomain, long+"a.example")},
		{"ip address", alice, []string{"192.0.2.1"}, errAnswer(CodeBadDomain, "192.0.2.1")},
		{"space", alice, []string{"a b.example"}, errAnswer(CodeBadDomain, "a b.example")},
		{"unicode", alice, []string{"пример.рф"}, errAnswer(CodeBadDomain, "пример.рф")},
		{"kelvin sign", alice, []string{"\u212Aey.example"}, errAnswer(CodeBadDomain, "\u212Aey.example")},
		{"too long", alice, []string{strings.Repeat(long+".", 4) + "example"}, errAnswer(CodeBadDomain, strings.Repeat(long+".", 4)+"example")},
		{"prohibited", alice, []string{"forbidden.example"}, errAnswer(CodeProhibited, "forbidden.example")},
		{"prohibited any case", alice, []string{"Forbidden.Example."}, errAnswer(CodeProhibited, "Forbidden.Example.")},
		{"blocked", alice, []string{"spam.example"}, errAnswer(CodeBlocked, "spam.example")},
		{"another account's", alice, []string{"bob.example"}, errAnswer(CodeOccupied, "bob.example")},
		{"another account's any case", alice, []string{"BOB.example"}, errAnswer(CodeOccupied, "BOB.example")},
		{"first registration", alice, []string{"new.example"}, activateAnswer("new.example")},
		{"digit first, punycode", alice, []string{"1x.xn--p1ai"}, activateAnswer("1x.xn--p1ai")},
		{"upper case and trailing dot", alice, []string{"New.Example."}, activateAnswer("new.example")},
		{"label of 63", alice, []string{long + ".example"}, activateAnswer(long + ".example")},
		{"owner again, domain-activate", alice, []string{"example.com"}, activateAnswer("example.com")},
		{"owner again, mx-activate", alice, []string{"mx.example"},
			map[string]any{"domain": "mx.example", "status": "mx-activate", "stage": "mx-check", "success": "ok"}},
		{"owner again, added", alice, []string{"done.example"},
			map[string]any{"domain": "done.example", "status": "added", "stage": "added", "success": "ok"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, WithProhibited("forbidden.example"), WithBlocked("spam.example"))
			form := url.Values{}
			if tc.domain != nil {
				form["domain"] = tc.domain
			}
			status, got := f.post(t, "/api2/admin/domain/register", tc.token(f), form)
			if status != http.StatusOK {
				t.Errorf("HTTP status = %d, want 200", status)
			}
			maskSecrets(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("register %v: answer mismatch (-want +got):\n%s", form, diff)
			}
		})
	}
}

func alice(f *fixture) string { return f.alice }

// TestRegisterSecrets checks that the secrets are random, stable for the
// domain, and gone once the domain is verified.
func TestRegisterSecrets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"a.example"}})
	again := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"A.EXAMPLE"}})
	other := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"b.example"}})
	if diff := cmp.Diff(first["secrets"], again["secrets"]); diff != "" {
		t.Errorf("secrets changed on the second registration (-first +again):\n%s", diff)
	}
	if cmp.Equal(first["secrets"], other["secrets"]) {
		t.Errorf("two domains got the same secrets %v", first["secrets"])
	}
	sec := first["secrets"].(map[string]any)
	if sec["name"] == sec["content"] {
		t.Errorf("secrets name and content are equal: %v", sec)
	}
	if err := f.sim.SetStatus("a.example", StatusMXActivate); err != nil {
		t.Fatal(err)
	}
	if got := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"a.example"}}); got["secrets"] != nil {
		t.Errorf("register after mx-activate: secrets = %v, want none", got["secrets"])
	}
}

func TestRegisterDomainLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // alice has 3 domains already
	for i := 4; i <= DomainLimit; i++ {
		f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {fmt.Sprintf("d%d.example", i)}})
	}
	_, got := f.post(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"d51.example"}})
	if diff := cmp.Diff(errAnswer(CodeDomainLimitReached, "d51.example"), got); diff != "" {
		t.Errorf("51st domain (-want +got):\n%s", diff)
	}
	// The owner may still register a domain of the 50 again, and another
	// account is not limited by Alice's domains.
	f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"d50.example"}})
	f.mustPost(t, "/api2/admin/domain/register", f.bob, url.Values{"domain": {"d51.example"}})
}

func TestAddMailbox(t *testing.T) {
	t.Parallel()
	form := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	ok := func(domain, login string) map[string]any {
		return map[string]any{"domain": domain, "login": login, "uid": json.Number(fmt.Sprint(firstUID + 1)), "success": "ok"}
	}
	long := strings.Repeat("a", MaxLoginLen)
	tests := []struct {
		name  string
		token func(*fixture) string
		form  url.Values
		want  map[string]any
	}{
		{"no header", func(*fixture) string { return "" }, form("domain", "example.com", "login", "u", "password", "Secret-1"), errAnswer(CodeNoAuth, "example.com")},
		{"unknown token", func(*fixture) string { return "x" }, form("domain", "example.com", "login", "u", "password", "Secret-1"), errAnswer(CodeBadToken, "example.com")},
		{"no domain", alice, form("login", "u", "password", "Secret-1"), errAnswer(CodeNoDomain, "")},
		{"no login", alice, form("domain", "example.com", "password", "Secret-1"), errAnswer(CodeNoLogin, "example.com")},
		{"no password", alice, form("domain", "example.com", "login", "u"), errAnswer(CodeNoPassword, "example.com")},
		{"no parameters at all", alice, form(), errAnswer(CodeNoDomain, "")},
		{"bad domain", alice, form("domain", "example", "login", "u", "password", "Secret-1"), errAnswer(CodeBadDomain, "example")},
		{"unregistered domain", alice, form("domain", "nobody.example", "login", "u", "password", "Secret-1"), errAnswer(CodeNotAllowed, "nobody.example")},
		{"another account's domain", alice, form("domain", "bob.example", "login", "u", "password", "Secret-1"), errAnswer(CodeNotAllowed, "bob.example")},
		{"not allowed before bad login", alice, form("domain", "bob.example", "login", "-", "password", "x"), errAnswer(CodeNotAllowed, "bob.example")},
		{"login starts with digit", alice, form("domain", "example.com", "login", "1u", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login starts with dot", alice, form("domain", "example.com", "login", ".u", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login ends with hyphen", alice, form("domain", "example.com", "login", "u-", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login ends with dot", alice, form("domain", "example.com", "login", "u.", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login underscore", alice, form("domain", "example.com", "login", "a_b", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login plus", alice, form("domain", "example.com", "login", "a+b", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login cyrillic", alice, form("domain", "example.com", "login", "иван", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login of another domain", alice, form("domain", "example.com", "login", "u@mx.example", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login with empty user", alice, form("domain", "example.com", "login", "@example.com", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login with two @", alice, form("domain", "example.com", "login", "u@example.com@example.com", "password", "Secret-1"), errAnswer(CodeBadLoginFormat, "example.com")},
		{"login of 31", alice, form("domain", "example.com", "login", long+"b", "password", "Secret-1"), errAnswer(CodeLoginTooLong, "example.com")},
		{"password of 5", alice, form("domain", "example.com", "login", "u", "password", "Abc-1"), errAnswer(CodePasswdTooShort, "example.com")},
		{"password of 21", alice, form("domain", "example.com", "login", "u", "password", strings.Repeat("x", 21)), errAnswer(CodePasswdTooLong, "example.com")},
		{"password with space", alice, form("domain", "example.com", "login", "u", "password", "Secret 1"), errAnswer(CodeBadPasswdChars, "example.com")},
		{"password with cyrillic", alice, form("domain", "example.com", "login", "u", "password", "Пароль123"), errAnswer(CodeBadPasswdChars, "example.com")},
		{"password equals user", alice, form("domain", "example.com", "login", "Marina", "password", "mARINA"), errAnswer(CodeBadPasswdChars, "example.com")},
		{"password equals address", alice, form("domain", "example.com", "login", "ab@example.com", "password", "AB@example.com"), errAnswer(CodeBadPasswdChars, "example.com")},
		{"existing mailbox", alice, form("domain", "example.com", "login", "taken", "password", "Secret-2"), errAnswer(CodeOccupied, "example.com")},
		{"existing mailbox any case", alice, form("domain", "EXAMPLE.com", "login", "Taken@example.COM", "password", "Secret-2"), errAnswer(CodeOccupied, "EXAMPLE.com")},
		{"user name", alice, form("domain", "example.com", "login", "user", "password", "Secret-1"), ok("example.com", "user@example.com")},
		{"full address", alice, form("domain", "example.com", "login", "user@example.com", "password", "Secret-1"), ok("example.com", "user@example.com")},
		{"full address, trailing dots", alice, form("domain", "example.com.", "login", "user@EXAMPLE.com.", "password", "Secret-1"), ok("example.com", "user@example.com")},
		{"upper case login", alice, form("domain", "example.com", "login", "Ivan.Petrov-2", "password", "Secret-1"), ok("example.com", "ivan.petrov-2@example.com")},
		{"login of 30", alice, form("domain", "example.com", "login", long, "password", "Secret-1"), ok("example.com", long+"@example.com")},
		{"login of 1", alice, form("domain", "example.com", "login", "x", "password", "Secret-1"), ok("example.com", "x@example.com")},
		{"every password symbol", alice, form("domain", "example.com", "login", "u", "password", "!@#$%^&*()_-+:;,."), ok("example.com", "u@example.com")},
		{"domain still domain-activate", alice, form("domain", "example.com", "login", "first", "password", "Secret-1"), ok("example.com", "first@example.com")},
		{"domain mx-activate", alice, form("domain", "mx.example", "login", "u", "password", "Secret-1"), ok("mx.example", "u@mx.example")},
		{"domain added", alice, form("domain", "done.example", "login", "u", "password", "Secret-1"), ok("done.example", "u@done.example")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			status, got := f.post(t, "/api2/admin/email/add", tc.token(f), tc.form)
			if status != http.StatusOK {
				t.Errorf("HTTP status = %d, want 200", status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("add %v: answer mismatch (-want +got):\n%s", tc.form, diff)
			}
			if tc.want["success"] != "ok" {
				return
			}
			pw, ok := f.sim.Mailbox(tc.want["login"].(string))
			if !ok || pw != tc.form.Get("password") {
				t.Errorf("Mailbox(%q) = %q, %t; want the password sent, true", tc.want["login"], pw, ok)
			}
		})
	}
}

func TestAddMailboxUIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	seen := map[string]bool{}
	for i := range 5 {
		got := f.mustPost(t, "/api2/admin/email/add", f.alice, url.Values{"domain": {"example.com"}, "login": {fmt.Sprint("u", i)}, "password": {"Secret-1"}})
		uid, err := got["uid"].(json.Number).Int64()
		if err != nil || uid <= 1<<40 {
			t.Errorf("uid = %v (%v), want an integer above 2^40", got["uid"], err)
		}
		if seen[got["uid"].(json.Number).String()] {
			t.Errorf("uid %v given twice", got["uid"])
		}
		seen[got["uid"].(json.Number).String()] = true
	}
}

func TestNotAnOperation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		method, path string
		wantStatus   int
		wantError    string
	}{
		{http.MethodGet, "/api2/admin/domain/register", http.StatusMethodNotAllowed, "method_not_allowed"},
		{http.MethodPut, "/api2/admin/email/add", http.StatusMethodNotAllowed, "method_not_allowed"},
		{http.MethodPost, "/api2/admin/domain/delete", http.StatusNotFound, "not_found"},
	}
	for _, tc := range tests {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, f.url+tc.path, nil)
		req.Header.Set("PddToken", f.alice)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		err = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if res.StatusCode != tc.wantStatus || err != nil || got["error"] != tc.wantError {
			t.Errorf("%s %s = HTTP %d %v (%v), want HTTP %d error %q", tc.method, tc.path, res.StatusCode, got, err, tc.wantStatus, tc.wantError)
		}
	}
	// newFixture sent 4 registers and 1 add.
	for op, want := range map[Op]int{"": 8, OpRegisterDomain: 5, OpAddMailbox: 2} {
		if got := f.sim.Requests(op); got != want {
			t.Errorf("Requests(%q) = %d, want %d", op, got, want)
		}
	}
}

// TestConcurrent races accounts for the same domains and adds mailboxes in
// parallel; run it with -race.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	sim := New()
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	f := &fixture{sim: sim, ts: ts, url: ts.URL}
	const accounts, domains = 8, 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := map[string][]int{}
	for a := range accounts {
		token := sim.NewAccount()
		wg.Go(func() {
			for d := range domains {
				name := fmt.Sprintf("race%d.example", d)
				_, got := f.post(t, "/api2/admin/domain/register", token, url.Values{"domain": {name}})
				if got["success"] != "ok" {
					continue
				}
				mu.Lock()
				winners[name] = append(winners[name], a)
				mu.Unlock()
				f.mustPost(t, "/api2/admin/email/add", token, url.Values{"domain": {name}, "login": {"u"}, "password": {"Secret-1"}})
			}
		})
	}
	wg.Wait()
	for d := range domains {
		name := fmt.Sprintf("race%d.example", d)
		if len(winners[name]) != 1 {
			t.Errorf("%s registered by accounts %v, want exactly one", name, winners[name])
		}
		if _, ok := sim.Mailbox("u@" + name); !ok {
			t.Errorf("mailbox u@%s missing", name)
		}
	}
	if got, want := sim.Requests(OpRegisterDomain), accounts*domains; got != want {
		t.Errorf("Requests(register) = %d, want %d", got, want)
	}
}

func TestMailbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if pw, ok := f.sim.Mailbox("TAKEN@Example.com"); !ok || pw != "Secret-1" {
		t.Errorf("Mailbox(TAKEN@Example.com) = %q, %t; want Secret-1, true", pw, ok)
	}
	if pw, ok := f.sim.Mailbox("nobody@example.com"); ok || pw != "" {
		t.Errorf("Mailbox(nobody@example.com) = %q, %t; want \"\", false", pw, ok)
	}
}

func TestSetStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := f.sim.SetStatus("nobody.example", StatusAdded); err == nil {
		t.Error("SetStatus of an unregistered domain: no error")
	}
	if err := f.sim.SetStatus("example.com", "verified"); err == nil {
		t.Error("SetStatus to an unknown status: no error")
	}
	if err := f.sim.SetStatus("Example.COM.", StatusAdded); err != nil {
		t.Errorf("SetStatus(Example.COM., added) = %v", err)
	}
	got := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}})
	if got["status"] != "added" {
		t.Errorf("status after SetStatus = %v, want added", got["status"])
	}
}

func TestIndex(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res, err := http.Get(f.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "/api2/admin/domain/register") {
		t.Errorf("GET / = HTTP %d %q, want 200 naming the endpoints", res.StatusCode, body)
	}
}
