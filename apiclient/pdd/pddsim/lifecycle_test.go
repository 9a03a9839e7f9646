package pddsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// get sends a GET with the token and the query, and returns the HTTP
// status and the JSON answer, numbers as json.Number.
func (f *fixture) get(t *testing.T, path, token string, query url.Values) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, f.url+path+"?"+query.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("PddToken", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	var got map[string]any
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("GET %s: decoding the answer: %v", path, err)
	}
	return res.StatusCode, got
}

func TestEditMailbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	info, _ := f.sim.Inspect("taken@example.com")
	edit := func(form url.Values) map[string]any {
		_, got := f.post(t, "/api2/admin/email/edit", f.alice, form)
		return got
	}
	// The record: email/edit answers {domain, login, uid, success}.
	got := edit(url.Values{"domain": {"example.com"}, "login": {"taken"}, "password": {"Newpass-2"}})
	want := map[string]any{"domain": "example.com", "login": "taken@example.com", "uid": json.Number(info.UID), "success": "ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edit password (-want +got):\n%s", diff)
	}
	if m, _ := f.sim.Inspect("taken@example.com"); m.Password != "Newpass-2" || m.State != "active" {
		t.Errorf("after edit password: %+v, want the new password, active", m)
	}
	edit(url.Values{"domain": {"example.com"}, "login": {"taken@example.com"}, "enabled": {"no"}})
	if m, _ := f.sim.Inspect("taken@example.com"); m.State != "blocked" || m.Password != "Newpass-2" {
		t.Errorf("after enabled=no: %+v, want blocked with the password kept", m)
	}
	edit(url.Values{"domain": {"example.com"}, "uid": {info.UID}, "enabled": {"yes"}})
	if m, _ := f.sim.Inspect("taken@example.com"); m.State != "active" {
		t.Errorf("after enabled=yes by uid: %+v, want active", m)
	}
	tests := []struct {
		name string
		form url.Values
		want map[string]any
	}{
		{"unknown login", url.Values{"domain": {"example.com"}, "login": {"nobody"}, "enabled": {"no"}}, errAnswer(CodeNoLogin, "example.com")},
		{"unknown uid", url.Values{"domain": {"example.com"}, "uid": {"42"}, "enabled": {"no"}}, errAnswer(CodeNoLogin, "example.com")},
		{"no login", url.Values{"domain": {"example.com"}, "enabled": {"no"}}, errAnswer(CodeNoLogin, "example.com")},
		{"no domain", url.Values{"login": {"taken"}}, errAnswer(CodeNoDomain, "")},
		{"another account's domain", url.Values{"domain": {"bob.example"}, "login": {"taken"}}, errAnswer(CodeNotAllowed, "bob.example")},
		{"bad password", url.Values{"domain": {"example.com"}, "login": {"taken"}, "password": {"short"}}, errAnswer(CodePasswdTooShort, "example.com")},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, edit(tc.form)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if m, _ := f.sim.Inspect("taken@example.com"); m.Password != "Newpass-2" || m.State != "active" {
		t.Errorf("after refused edits: %+v, want unchanged", m)
	}
}

func TestListMailboxes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.sim.AddMailboxes("example.com", 4) // after taken@: 5 in all
	list := func(q url.Values) map[string]any {
		status, got := f.get(t, "/api2/admin/email/list", f.alice, q)
		if status != http.StatusOK {
			t.Fatalf("email/list %v: HTTP %d", q, status)
		}
		return got
	}
	// The record: {domain, page, pages, on_page, total, found, accounts:[{login, uid, enabled, ready, aliases…}]}.
	got := list(url.Values{"domain": {"example.com"}, "page": {"2"}, "on_page": {"2"}})
	u2, _ := f.sim.Inspect("user0002@example.com")
	u3, _ := f.sim.Inspect("user0003@example.com")
	account := func(login, uid string) map[string]any {
		return map[string]any{"login": login, "uid": json.Number(uid), "enabled": "yes", "ready": "yes", "aliases": []any{}, "fio": ""}
	}
	want := map[string]any{"domain": "example.com", "page": json.Number("2"), "pages": json.Number("3"), "on_page": json.Number("2"),
		"total": json.Number("5"), "found": json.Number("2"), "success": "ok",
		"accounts": []any{account("user0002@example.com", u2.UID), account("user0003@example.com", u3.UID)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page 2 of 2 (-want +got):\n%s", diff)
	}
	if got := list(url.Values{"domain": {"example.com"}}); got["on_page"] != json.Number("30") || got["found"] != json.Number("5") {
		t.Errorf("without page and on_page: %v, want on_page 30 and all 5", got)
	}
	if got := list(url.Values{"domain": {"example.com"}, "page": {"9"}}); fmt.Sprint(got["accounts"]) != "[]" {
		t.Errorf("past the last page: accounts %v, want none", got["accounts"])
	}
	f.mustPost(t, "/api2/admin/email/edit", f.alice, url.Values{"domain": {"example.com"}, "login": {"taken"}, "enabled": {"no"}})
	accounts := list(url.Values{"domain": {"example.com"}, "on_page": {"1"}})["accounts"].([]any)
	if a := accounts[0].(map[string]any); a["login"] != "taken@example.com" || a["enabled"] != "no" {
		t.Errorf("the first mailbox after enabled=no: %v, want taken@example.com, enabled no", a)
	}
	if _, got := f.get(t, "/api2/admin/email/list", f.alice, url.Values{"domain": {"bob.example"}}); got["error"] != "not_allowed" {
		t.Errorf("another account's domain: %v, want not_allowed", got)
	}
}

func TestRegistrationStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	reg := f.mustPost(t, "/api2/admin/domain/register", f.alice, url.Values{"domain": {"example.com"}})
	status := func(domain string) map[string]any {
		_, got := f.get(t, "/api2/admin/domain/registration_status", f.alice, url.Values{"domain": {domain}})
		return got
	}
	// The record: {domain, status, stage, last_check, next_check, secrets:{name, content}}, secrets while domain-activate.
	got := status("example.com")
	for _, k := range []string{"last_check", "next_check"} {
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(got[k])); err != nil {
			t.Errorf("%s = %v, want a time", k, got[k])
		}
		delete(got, k)
	}
	want := map[string]any{"domain": "example.com", "status": "domain-activate", "stage": "owner-check", "secrets": reg["secrets"], "success": "ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("domain-activate (-want +got):\n%s", diff)
	}
	if got := status("done.example"); got["status"] != "added" || got["stage"] != "added" || got["secrets"] != nil {
		t.Errorf("added: %v, want status and stage added, no secrets", got)
	}
	for _, d := range []string{"bob.example", "nobody.example"} {
		if got := status(d); got["error"] != "not_allowed" {
			t.Errorf("%s: %v, want not_allowed", d, got)
		}
	}
	if status, _ := f.post(t, "/api2/admin/domain/registration_status", f.alice, url.Values{"domain": {"example.com"}}); status != http.StatusMethodNotAllowed {
		t.Errorf("POST registration_status: HTTP %d, want 405", status)
	}
}

// TestNewFaults checks 429 (nothing done, Retry-After: 1) and slow (done,
// answered SlowDelay late: a client with a shorter timeout gets nothing).
func TestNewFaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	form := url.Values{"domain": {"example.com"}, "login": {"new"}, "password": {"Secret-1"}}
	if err := f.sim.InjectFault(FaultTooManyRequests, 1); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+"/api2/admin/email/add", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PddToken", f.alice)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if _, ok := f.sim.Inspect("new@example.com"); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" || ok {
		t.Errorf("429: HTTP %d, Retry-After %q, mailbox created %v; want 429, 1, not created", res.StatusCode, res.Header.Get("Retry-After"), ok)
	}
	if err := f.sim.InjectFault(FaultSlow, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	if _, _, err := f.raw(t, ctx, "/api2/admin/email/add", form); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow: %v, want no answer before the deadline", err)
	}
	if m, ok := f.sim.Inspect("new@example.com"); !ok || m.Password != "Secret-1" {
		t.Error("slow: the operation was not performed")
	}
}

// TestSharedControls checks the sandbox API every provider's sandbox
// offers, through its Go methods and its HTTP endpoints.
func TestSharedControls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	post := func(path string, form url.Values) int {
		status, _, err := f.raw(t, t.Context(), path, form)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	if post("/sim/domain", url.Values{"name": {"Seeded.Example"}}) != http.StatusOK ||
		post("/sim/mailboxes", url.Values{"domain": {"seeded.example"}, "n": {"3"}}) != http.StatusOK {
		t.Fatal("/sim/domain or /sim/mailboxes refused")
	}
	// The first account (Alice's) owns the seeded domain, which is ready.
	_, got := f.get(t, "/api2/admin/domain/registration_status", f.alice, url.Values{"domain": {"seeded.example"}})
	if got["status"] != "added" {
		t.Errorf("seeded domain: %v, want status added in Alice's account", got)
	}
	_, got = f.get(t, "/api2/admin/email/list", f.alice, url.Values{"domain": {"seeded.example"}})
	if got["total"] != json.Number("3") {
		t.Errorf("seeded mailboxes: %v, want 3", got)
	}
	res, err := http.Get(f.url + "/sim/mailbox?address=user0002@seeded.example")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	info, _ := f.sim.Inspect("user0002@seeded.example")
	if m["password"] != info.Password || m["uid"] != info.UID || m["state"] != "active" || info.Password == "" {
		t.Errorf("/sim/mailbox = %v, want the record %+v", m, info)
	}
	sh := f.sim.Shared()
	arrived := make(chan struct{}, 1)
	sh.OnRequest(func() { arrived <- struct{}{} })
	before := sh.Requests()
	if err := sh.InjectFault("502", 1); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := f.raw(t, t.Context(), "/api2/admin/domain/register", url.Values{"domain": {"example.com"}}); status != http.StatusBadGateway {
		t.Errorf("after Shared.InjectFault(502): HTTP %d", status)
	}
	<-arrived
	if sh.Requests() != before+1 {
		t.Errorf("Shared.Requests: %d, want %d", sh.Requests(), before+1)
	}
	if err := sh.InjectFault("teapot", 1); err == nil {
		t.Error("Shared.InjectFault(teapot) accepted")
	}
}
