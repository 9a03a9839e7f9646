package pddsim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// raw posts a form with Alice's token and returns the status, the body and
// the transport error.
func (f *fixture) raw(t *testing.T, ctx context.Context, path string, form url.Values) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PddToken", f.alice)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, string(body), err
}

func TestFaults(t *testing.T) {
	t.Parallel()
	addForm := url.Values{"domain": {"example.com"}, "login": {"new"}, "password": {"Secret-1"}}
	tests := []struct {
		name       string
		inject     func(*Server) error
		wantStatus int
		wantBody   func(string) bool
		wantErr    bool
		wantExists bool // whether the operation happened
	}{
		{"fail next", func(s *Server) error { s.FailNext(1); return nil },
			http.StatusOK, equals(`{"domain":"example.com","success":"error","error":"unknown"}` + "\n"), false, false},
		{"fail next with a code", func(s *Server) error { s.FailNextWith(1, "no_reply"); return nil },
			http.StatusOK, equals(`{"domain":"example.com","success":"error","error":"no_reply"}` + "\n"), false, false},
		{"bad gateway", func(s *Server) error { return s.InjectFault(FaultBadGateway, 1) },
			http.StatusBadGateway, contains("<h1>502 Bad Gateway</h1>"), false, false},
		{"truncated", func(s *Server) error { return s.InjectFault(FaultTruncated, 1) },
			http.StatusOK, truncatedJSON, false, true},
		{"reset", func(s *Server) error { return s.InjectFault(FaultReset, 1) },
			0, nil, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if err := tc.inject(f.sim); err != nil {
				t.Fatal(err)
			}
			status, body, err := f.raw(t, t.Context(), "/api2/admin/email/add", addForm)
			if (err != nil) != tc.wantErr {
				t.Fatalf("POST: error %v, want error %t", err, tc.wantErr)
			}
			if status != tc.wantStatus || tc.wantBody != nil && !tc.wantBody(body) {
				t.Errorf("POST = HTTP %d %q, want HTTP %d and the fault's body", status, body, tc.wantStatus)
			}
			if _, ok := f.sim.Mailbox("new@example.com"); ok != tc.wantExists {
				t.Errorf("mailbox exists = %t, want %t", ok, tc.wantExists)
			}
			// One fault, one request: the next one is served normally.
			_, got := f.post(t, "/api2/admin/email/add", f.alice, url.Values{"domain": {"example.com"}, "login": {"next"}, "password": {"Secret-1"}})
			if got["success"] != "ok" {
				t.Errorf("request after the fault = %v, want ok", got)
			}
		})
	}
}

func equals(want string) func(string) bool { return func(s string) bool { return s == want } }
func contains(want string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, want) }
}

// truncatedJSON reports whether s is the start of the add answer, cut short.
func truncatedJSON(s string) bool {
	return strings.HasPrefix(s, `{"domain":"example.com","login":"new`) && !json.Valid([]byte(s))
}

func TestFaultQueue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.sim.FailNext(2)
	if err := f.sim.InjectFault(FaultBadGateway, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.sim.InjectFault("teapot", 1); err == nil {
		t.Error(`InjectFault("teapot") = nil, want an error`)
	}
	var got []string
	for range 4 {
		status, body, err := f.raw(t, t.Context(), "/api2/admin/domain/register", url.Values{"domain": {"example.com"}})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case status == http.StatusBadGateway:
			got = append(got, "502")
		case strings.Contains(body, `"error":"unknown"`):
			got = append(got, "unknown")
		case strings.Contains(body, `"success":"ok"`):
			got = append(got, "ok")
		default:
			got = append(got, body)
		}
	}
	if diff := cmp.Diff([]string{"unknown", "unknown", "502", "ok"}, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestLatency(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.sim.SetLatency(100 * time.Millisecond)
	start := time.Now()
	f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}})
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("answer took %s, want at least the latency of 100ms", took)
	}

	// A client that gives up during the latency: the operation is dropped.
	f.sim.SetLatency(time.Minute)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	before := f.sim.Requests(OpAddMailbox)
	f.sim.OnRequest(func(Op) { cancel() }) // arrived: now waiting out the latency
	form := url.Values{"domain": {"example.com"}, "login": {"late"}, "password": {"Secret-1"}}
	if _, _, err := f.raw(t, ctx, "/api2/admin/email/add", form); !errors.Is(err, context.Canceled) {
		t.Fatalf("POST cancelled during a minute of latency: error %v, want context.Canceled", err)
	}
	// Close waits until every handler has returned, the dropped one's too.
	f.ts.Close()
	if got := f.sim.Requests(OpAddMailbox) - before; got != 1 {
		t.Errorf("the sandbox saw %d add requests, want 1", got)
	}
	if _, ok := f.sim.Mailbox("late@example.com"); ok {
		t.Error("the operation of a request dropped during its latency happened")
	}
}

func TestControlEndpoints(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		path       string
		form       url.Values
		wantStatus int
		wantBody   string
	}{
		{"/sim/status", url.Values{"domain": {"Example.com"}, "status": {"mx-activate"}}, 200, `{"success":"ok","domain":"example.com","status":"mx-activate"}`},
		{"/sim/status", url.Values{"domain": {"nobody.example"}, "status": {"added"}}, 400, `{"success":"error","error":"pddsim: domain \"nobody.example\" is not registered"}`},
		{"/sim/status", url.Values{"domain": {"example.com"}, "status": {"verified"}}, 400, `{"success":"error","error":"pddsim: unknown status \"verified\""}`},
		{"/sim/latency", url.Values{"d": {"soon"}}, 400, `{"success":"error","error":"d=\"soon\" is not a duration such as 250ms"}`},
		{"/sim/latency", url.Values{"d": {"1ms"}}, 200, `{"success":"ok"}`},
		{"/sim/fail", url.Values{"n": {"-1"}}, 400, `{"success":"error","error":"n=\"-1\" is not a number from 0 to 1000"}`},
		{"/sim/fail", url.Values{"code": {"blocked"}}, 200, `{"success":"ok"}`}, // n defaults to 1, as in the other sandboxes
		{"/sim/mailboxes", url.Values{"domain": {"example.com"}}, 400, `{"success":"error","error":"n=\"\" is not a number from 0 to 1000"}`},
		{"/sim/fault", url.Values{"kind": {"teapot"}}, 400, `{"success":"error","error":"pddsim: unknown fault \"teapot\" (want 429, 502, truncated, reset or slow)"}`},
		{"/sim/fault", url.Values{"kind": {"502"}}, 200, `{"success":"ok"}`},
	}
	for _, tc := range tests {
		status, body, err := f.raw(t, t.Context(), tc.path, tc.form)
		if err != nil {
			t.Fatal(err)
		}
		if status != tc.wantStatus || strings.TrimSpace(body) != tc.wantBody {
			t.Errorf("POST %s %v = HTTP %d %s, want HTTP %d %s", tc.path, tc.form, status, body, tc.wantStatus, tc.wantBody)
		}
	}
	// The effects: one "blocked", then one 502, then the mx-activate status.
	_, got := f.post(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}})
	if got["error"] != "blocked" {
		t.Errorf("after /sim/fail code=blocked: %v, want error blocked", got)
	}
	if status, _, _ := f.raw(t, t.Context(), "/api2/admin/domain/register", url.Values{"domain": {"example.com"}}); status != http.StatusBadGateway {
		t.Errorf("after /sim/fault kind=502: HTTP %d, want 502", status)
	}
	if got := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}}); got["status"] != "mx-activate" {
		t.Errorf("after /sim/status: %v, want status mx-activate", got)
	}

	// /sim/account opens an account that the API knows.
	_, body, err := f.raw(t, t.Context(), "/sim/account", nil)
	if err != nil {
		t.Fatal(err)
	}
	var acct struct{ Token string }
	if err := json.Unmarshal([]byte(body), &acct); err != nil || len(acct.Token) != 52 {
		t.Fatalf("/sim/account = %s, want a token of 52 characters", body)
	}
	f.mustPost(t, "/api2/admin/domain/register", acct.Token, url.Values{"domain": {"fresh.example"}})

	res, err := http.Get(f.url + "/sim/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var counts map[string]int
	if err := json.NewDecoder(res.Body).Decode(&counts); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"domain/register": 8, "email/add": 1, "email/edit": 0, "email/list": 0, "domain/registration_status": 0, "all": 9}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("/sim/requests (-want +got):\n%s", diff)
	}

	// Controls take POST only.
	res, err = http.Get(f.url + "/sim/fail?n=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /sim/fail = HTTP %d, want 405", res.StatusCode)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	sim := New()
	seen := map[string]bool{}
	for range 100 {
		tok := sim.NewAccount()
		if len(tok) != 52 || strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" || seen[tok] {
			t.Fatalf("NewAccount() = %q: want 52 new base32 characters", tok)
		}
		seen[tok] = true
	}
}

// TestServeHTTPDirectly calls ServeHTTP with no server around it, as an
// in-process transport would: answers as over HTTP, and a reset fault
// leaves the recorder empty instead of panicking.
func TestServeHTTPDirectly(t *testing.T) {
	t.Parallel()
	sim := New()
	token := sim.NewAccount()
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/api2/admin/domain/register", strings.NewReader("domain=example.com"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("PddToken", token)
		rec := httptest.NewRecorder()
		sim.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"status":"domain-activate"`) {
		t.Errorf("ServeHTTP = %d %q, want 200 domain-activate", rec.Code, rec.Body)
	}
	if err := sim.InjectFault(FaultReset, 1); err != nil {
		t.Fatal(err)
	}
	if rec := serve(); rec.Body.Len() != 0 {
		t.Errorf("ServeHTTP with a reset fault wrote %q, want nothing", rec.Body)
	}
}

// TestOnRequest checks that the hook hears every arrival with its
// operation, before the operation, and that the answer waits for it.
func TestOnRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	arrived := make(chan Op, 10)
	release := make(chan struct{})
	f.sim.OnRequest(func(op Op) {
		arrived <- op
		if op == OpAddMailbox {
			<-release
		}
	})
	f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}})
	if _, _, err := f.raw(t, t.Context(), "/api2/admin/domain/delete", nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan map[string]any, 1)
	go func() {
		_, got := f.post(t, "/api2/admin/email/add", f.alice, url.Values{"domain": {"example.com"}, "login": {"held"}, "password": {"Secret-1"}})
		done <- got
	}()
	var got []Op
	for range 3 {
		got = append(got, <-arrived)
	}
	if diff := cmp.Diff([]Op{OpRegisterDomain, "", OpAddMailbox}, got); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	if _, ok := f.sim.Mailbox("held@example.com"); ok {
		t.Error("the held add was performed before the hook returned")
	}
	close(release)
	if a := <-done; a["success"] != "ok" {
		t.Errorf("the held add answered %v, want ok", a)
	}
	f.sim.OnRequest(nil)
	f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}})
	if len(arrived) != 0 {
		t.Errorf("the hook heard %d requests after its removal", len(arrived))
	}
}
