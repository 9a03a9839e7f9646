package pdd_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// adapterEnv is a sandbox served over HTTPS whose first account owns
// example.com (ready), and an adapter of that account.
type adapterEnv struct {
	sim *pddsim.Server
	a   *pdd.Adapter
}

func newAdapterEnv(tb testing.TB, opts ...apiclient.Option) *adapterEnv {
	tb.Helper()
	sim := pddsim.New()
	token := sim.NewAccount()
	sim.AddDomain("example.com")
	ts := httptest.NewTLSServer(sim)
	tb.Cleanup(ts.Close)
	all := append([]apiclient.Option{apiclient.WithHTTPClient(ts.Client()), apiclient.WithRetry(fastRetry)}, opts...)
	a, err := pdd.NewAdapter(ts.URL, token, all...)
	if err != nil {
		tb.Fatal(err)
	}
	return &adapterEnv{sim: sim, a: a}
}

// answering is an adapter of a server that answers every request with
// status and body.
func answering(t *testing.T, status int, body string) *pdd.Adapter {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	a, err := pdd.NewAdapter(ts.URL, "TOKEN", apiclient.WithHTTPClient(ts.Client()), apiclient.WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestEditCodes checks the classes of the codes email/edit may answer:
// an unknown login is no_login or not_allowed, both ReasonNotFound.
func TestEditCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code   string
		class  apiclient.Class
		reason apiclient.Reason
	}{
		{"no_login", apiclient.ClassRefused, apiclient.ReasonNotFound},
		{"not_allowed", apiclient.ClassRefused, apiclient.ReasonNotFound},
		{"passwd-tooshort", apiclient.ClassRefused, apiclient.ReasonPassword},
		{"badpasswd", apiclient.ClassRefused, apiclient.ReasonPassword},
		{"bad_token", apiclient.ClassCredentials, ""},
		{"no_auth", apiclient.ClassCredentials, ""},
		{"unknown", apiclient.ClassTemporary, ""},
		{"never-heard-of-it", apiclient.ClassRefused, ""},
	}
	for _, tc := range tests {
		a := answering(t, http.StatusOK, fmt.Sprintf(`{"success":"error","error":%q}`, tc.code))
		_, err := a.SetPassword(t.Context(), "example.com", "alice", "Secret-1", false)
		var e *apiclient.Error
		if !errors.As(err, &e) || e.Class != tc.class || e.Reason != tc.reason || e.Code != tc.code || e.Op != apiclient.OpReset {
			t.Errorf("%s: %#v, want class %s, reason %q, the code", tc.code, err, tc.class, tc.reason)
		}
	}
	// The same not_allowed answered to add is not_allowed, not not found.
	a := answering(t, http.StatusOK, `{"success":"error","error":"not_allowed"}`)
	_, err := a.AddMailbox(t.Context(), "example.com", "alice", "Secret-1", false)
	if apiclient.ReasonOf(err) != apiclient.ReasonNotAllowed {
		t.Errorf("add answered not_allowed: %v, want ReasonNotAllowed", err)
	}
}

// TestListCursor checks that the cursor carries the page and its size,
// so that a caller walks the pages with the size it started with.
func TestListCursor(t *testing.T) {
	t.Parallel()
	e := newAdapterEnv(t)
	e.sim.AddMailboxes("example.com", 5)
	p, err := e.a.ListMailboxes(t.Context(), "example.com", "", 2)
	if err != nil || p.Next != "2/2" || len(p.Mailboxes) != 2 || p.Total != 5 {
		t.Fatalf("first page = %+v, %v; want 2 mailboxes of 5, next 2/2", p, err)
	}
	p, err = e.a.ListMailboxes(t.Context(), "example.com", "3/2", 100) // the cursor's size wins
	if err != nil || p.Next != "" || len(p.Mailboxes) != 1 || p.Mailboxes[0].Address != "user0005@example.com" {
		t.Fatalf("last page = %+v, %v; want user0005 alone, no next", p, err)
	}
	info, _ := e.sim.Inspect("user0005@example.com")
	if m := p.Mailboxes[0]; m.UID != info.UID || m.State != apiclient.StateActive {
		t.Errorf("listed %+v, want the sandbox's uid %s, active", m, info.UID)
	}
	before := e.sim.Requests("")
	for _, bad := range []string{"x", "0/2", "2/0", "-1/5"} {
		if _, err := e.a.ListMailboxes(t.Context(), "example.com", bad, 2); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
	if n := e.sim.Requests("") - before; n != 0 {
		t.Errorf("bad cursors sent %d requests, want none", n)
	}
}

// TestLookupPages checks that a look-up reads the pages it needs, and no
// more.
func TestLookupPages(t *testing.T) {
	t.Parallel()
	e := newAdapterEnv(t)
	e.sim.AddMailboxes("example.com", 150)
	before := e.sim.Requests(pddsim.OpListMailboxes)
	m, err := e.a.LookupMailbox(t.Context(), "example.com", "USER0150")
	if err != nil || m.Address != "user0150@example.com" {
		t.Fatalf("LookupMailbox(USER0150) = %+v, %v", m, err)
	}
	if n := e.sim.Requests(pddsim.OpListMailboxes) - before; n != 2 {
		t.Errorf("LookupMailbox read %d pages, want 2", n)
	}
	before = e.sim.Requests(pddsim.OpListMailboxes)
	if _, err := e.a.LookupMailbox(t.Context(), "example.com", "user0001@example.com"); err != nil {
		t.Fatal(err)
	}
	if n := e.sim.Requests(pddsim.OpListMailboxes) - before; n != 1 {
		t.Errorf("LookupMailbox of the first mailbox read %d pages, want 1", n)
	}
}

// TestDomainSecrets checks that status and register give the secrets
// while domain-activate, and only then.
func TestDomainSecrets(t *testing.T) {
	t.Parallel()
	e := newAdapterEnv(t)
	reg, err := e.a.RegisterDomain(t.Context(), "new.example")
	if err != nil || reg.Secrets == nil || reg.Verified || reg.Status != string(pddsim.StatusDomainActivate) {
		t.Fatalf("RegisterDomain = %+v, %v; want domain-activate, unverified, with secrets", reg, err)
	}
	st, err := e.a.DomainStatus(t.Context(), "new.example")
	if err != nil || st.Secrets == nil || cmp.Diff(reg.Secrets, st.Secrets) != "" || st.Stage != "owner-check" {
		t.Fatalf("DomainStatus = %+v, %v; want the register's secrets", st, err)
	}
	name := reg.Secrets.Name
	want := &apiclient.Record{Purpose: apiclient.PurposeVerification, Type: apiclient.TypeCNAME, Name: "yamail-" + strings.ToLower(name),
		Value: "mail.yandex.ru", Secret: true}
	if reg.Secrets.File != "http://new.example/"+name+".html" || cmp.Diff(want, reg.Secrets.Record) != "" {
		t.Errorf("secrets published by file %q, by record %+v; want the file at the domain and %+v", reg.Secrets.File, reg.Secrets.Record, want)
	}
	if err := e.sim.SetStatus("new.example", pddsim.StatusMXActivate); err != nil {
		t.Fatal(err)
	}
	st, err = e.a.DomainStatus(t.Context(), "new.example")
	if err != nil || st.Secrets != nil || !st.Verified || st.Status != string(pddsim.StatusMXActivate) {
		t.Errorf("DomainStatus after verification = %+v, %v; want mx-activate, verified, no secrets", st, err)
	}
	_, err = e.a.DomainStatus(t.Context(), "nobody.example")
	if e := (*apiclient.Error)(nil); !errors.As(err, &e) || e.Code != "not_allowed" || e.Class != apiclient.ClassRefused {
		t.Errorf("DomainStatus of a domain of no account: %v, want refused, not_allowed", err)
	}
}

// TestRetryHookReasons checks the retry hook's reasons of an "unknown"
// and a 429, reported before each retry: both temporary.
func TestRetryHookReasons(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	hook := apiclient.WithRetryHook(func(op apiclient.Op, reason string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(op)+" "+reason)
	})
	e := setup(t, true, hook)
	e.sim.FailNext(1)
	if err := e.sim.InjectFault(pddsim.FaultTooManyRequests, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.AddMailbox(t.Context(), "example.com", "alice", password, false); err != nil {
		t.Fatal(err)
	}
	if want := "add temporary,add temporary"; strings.Join(got, ",") != want {
		t.Errorf("retry hook calls %q, want %q", got, want)
	}
}
