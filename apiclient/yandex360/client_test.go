package yandex360_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands"
)

var _ commands.Provider = (*yandex360.Client)(nil)

// password is sent in the tests; it must never show in an error.
const password = "Pa&ss+w%rd;1"

// fastRetry keeps the backoff of the tests short (Retry-After still counts).
var fastRetry = apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}

// env is a sandbox behind a real HTTPS server, mounted under /y360/ so
// that a path resolved against the root fails loudly, and a client of its
// first organisation (default domain example.org).
type env struct {
	sim   *y360sim.Server
	url   string
	hc    *http.Client
	creds y360sim.Credentials
	c     *yandex360.Client

	mu       sync.Mutex
	arrivals []time.Time
}

func setup(t testing.TB, opts ...y360sim.Option) *env {
	t.Helper()
	sim := y360sim.New(opts...)
	mux := http.NewServeMux()
	mux.Handle("/y360/", http.StripPrefix("/y360", sim))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base URL: %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	ts := httptest.NewTLSServer(mux)
	t.Cleanup(ts.Close)
	e := &env{sim: sim, url: ts.URL + "/y360", hc: ts.Client(), creds: sim.NewAccount()}
	e.c = e.client(t, e.creds.Token, yandex360.Settings{OrgID: e.creds.OrgID})
	return e
}

// client returns a client of the sandbox with fast retries.
func (e *env) client(t testing.TB, token string, s yandex360.Settings, opts ...apiclient.Option) *yandex360.Client {
	t.Helper()
	all := append([]apiclient.Option{apiclient.WithRetry(fastRetry), apiclient.WithHTTPClient(e.hc)}, opts...)
	c, err := yandex360.New(e.url, token, s, all...)
	if err != nil {
		t.Fatalf("New(%q) = %v", e.url, err)
	}
	return c
}

// faultAt makes the k-th API request from now meet the fault kind, and
// records when each request arrives.
func (e *env) faultAt(t testing.TB, k int, kind string) {
	t.Helper()
	n := 0
	e.sim.OnRequest(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		n++
		e.arrivals = append(e.arrivals, time.Now())
		if n == k {
			if err := e.sim.InjectFault(kind, 1); err != nil {
				t.Error(err)
			}
		}
	})
}

// wantError checks err's class, reason and attempts, and that no secret
// shows in it.
func wantError(t *testing.T, err error, class apiclient.Class, reason apiclient.Reason, attempts int) {
	t.Helper()
	_ = checked(t, err, class, reason, attempts)
}

// checked is [wantError] that returns the error's details.
func checked(t *testing.T, err error, class apiclient.Class, reason apiclient.Reason, attempts int) *apiclient.Error {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want an *apiclient.Error", err)
	}
	if e.Class != class || e.Reason != reason || attempts != 0 && e.Attempts != attempts {
		t.Errorf("error = %v (class %v, reason %q, attempts %d), want class %v, reason %q, attempts %d",
			e, e.Class, e.Reason, e.Attempts, class, reason, attempts)
	}
	if e.Provider != apiclient.ProviderYandex360 {
		t.Errorf("provider = %q", e.Provider)
	}
	if strings.Contains(err.Error(), password) {
		t.Errorf("error %q shows the password", err)
	}
	return e
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, token string
		s                yandex360.Settings
	}{
		{"http elsewhere", "http://api360.yandex.net", "T", yandex360.Settings{}},
		{"no token", yandex360.DefaultBaseURL, "", yandex360.Settings{}},
		{"negative organisation", yandex360.DefaultBaseURL, "T", yandex360.Settings{OrgID: -1}},
		{"negative department", yandex360.DefaultBaseURL, "T", yandex360.Settings{DepartmentID: -1}},
	}
	for _, tc := range tests {
		if _, err := yandex360.New(tc.url, tc.token, tc.s); err == nil {
			t.Errorf("%s: New = nil error", tc.name)
		}
	}
	c, err := yandex360.New(yandex360.DefaultBaseURL, "T", yandex360.Settings{OrgID: 5})
	if err != nil || c.OrgID() != 5 || c.Name() != apiclient.ProviderYandex360 {
		t.Fatalf("New = %v, %v", c, err)
	}
	want := apiclient.Capabilities{Title: "Yandex 360", ForcePasswordChange: true, UIDs: true, Paged: true, VerifiesOwnership: true, OwnAddresses: true,
		Aliases: true, OrgWideAliases: true}
	if got := c.Capabilities(); got != want {
		t.Errorf("Capabilities = %+v, want %+v", got, want)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	e := setup(t)
	other, err := e.sim.NewOrganization("Other", "other.example")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.Check(t.Context()); err != nil {
		t.Errorf("Check with the organisation = %v", err)
	}
	one := e.client(t, e.creds.Token, yandex360.Settings{})
	if _, err := one.LookupMailbox(t.Context(), "example.org", "x"); apiclient.ClassOf(err) != apiclient.ClassCredentials {
		t.Errorf("an operation before Check = %v, want refused credentials", err)
	}
	if err := one.Check(t.Context()); err != nil || one.OrgID() != e.creds.OrgID {
		t.Errorf("Check without an organisation = %v, org %d; want nil, %d", err, one.OrgID(), e.creds.OrgID)
	}
	wrong := e.client(t, e.creds.Token, yandex360.Settings{OrgID: other.OrgID})
	err = wrong.Check(t.Context())
	wantError(t, err, apiclient.ClassRefused, apiclient.ReasonNotFound, 0)
	if !strings.Contains(err.Error(), strconv.FormatInt(other.OrgID, 10)) || !strings.Contains(err.Error(), strconv.FormatInt(e.creds.OrgID, 10)) {
		t.Errorf("Check of another organisation = %v, want both IDs named", err)
	}
	if err := e.sim.Grant(e.creds.Token, other.OrgID); err != nil {
		t.Fatal(err)
	}
	several := e.client(t, e.creds.Token, yandex360.Settings{})
	err = several.Check(t.Context())
	wantError(t, err, apiclient.ClassRefused, apiclient.ReasonNotAllowed, 0)
	if !strings.Contains(err.Error(), strconv.FormatInt(e.creds.OrgID, 10)+", "+strconv.FormatInt(other.OrgID, 10)) || several.OrgID() != 0 {
		t.Errorf("Check with several organisations = %v (org %d), want the IDs listed and none chosen", err, several.OrgID())
	}
	orgs, err := several.Organizations(t.Context())
	if err != nil || len(orgs) != 2 || orgs[1] != (yandex360.Organization{ID: other.OrgID, Name: "Other"}) {
		t.Errorf("Organizations = %+v, %v", orgs, err)
	}
}

func TestCheckRefusedToken(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const token = "y0_NOT-A-TOKEN-0123456789"
	err := e.client(t, token, yandex360.Settings{}).Check(t.Context())
	got := checked(t, err, apiclient.ClassCredentials, "", 1)
	if got.HTTPStatus != 401 || got.Code != "HTTP 401" || got.Message != "Unauthenticated" {
		t.Errorf("error = %+v, want HTTP 401 Unauthenticated", got)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "NOT-A-TOKEN") {
		t.Errorf("error %q shows the token", err)
	}
	if n := e.sim.Requests(); n != 1 {
		t.Errorf("%d requests, want 1 (credentials are never retried)", n)
	}
}
