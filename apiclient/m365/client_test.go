package m365_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
)

var fast = apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})

// world is a sandbox over HTTPS with the verified domain example.com, its
// account, and a client of it.
type world struct {
	sim  *m365sim.Server
	url  string
	acct m365sim.Account
	opts []apiclient.Option
}

func newWorld(t testing.TB) *world {
	t.Helper()
	sim := m365sim.New()
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	sim.AddDomain("example.com")
	return &world{sim: sim, url: ts.URL, acct: sim.NewAccount(), opts: []apiclient.Option{apiclient.WithHTTPClient(ts.Client()), fast}}
}

// client connects with the account's settings changed by edit.
func (w *world) client(t testing.TB, edit func(*m365.Settings)) *m365.Client {
	t.Helper()
	s := settings(w.acct, w.url)
	if edit != nil {
		edit(&s)
	}
	c, err := m365.New(w.url, s, w.opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// credError checks that err is refused credentials naming setting and
// saying want, and shows no secret.
func credError(t *testing.T, what string, err error, setting, want, secret string) {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) || e.Class != apiclient.ClassCredentials {
		t.Fatalf("%s: %v, want refused credentials", what, err)
	}
	if e.Setting != setting || !strings.Contains(e.Message, want) {
		t.Errorf("%s: setting %q, message %q; want %q and %q", what, e.Setting, e.Message, setting, want)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("%s: the error shows the secret", what)
	}
}

// The token is fetched once and reused by every later call.
func TestTokenReused(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	for range 5 {
		if _, err := c.DomainStatus(t.Context(), "example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if n := w.sim.TokenRequests(); n != 1 {
		t.Errorf("%d token requests for 5 calls, want 1", n)
	}
}

// Each refusal of the token endpoint names what to fix: the secret (as
// the operator set it, _FILE included), the client ID or the tenant.
func TestTokenRefusalsNameTheVariable(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name          string
		edit          func(*m365.Settings)
		setting, want string
	}{
		{"wrong secret", func(s *m365.Settings) { s.ClientSecret = "wrong-secret-value" }, "M365_CLIENT_SECRET", "Value (not its ID)"},
		{"secret from a file", func(s *m365.Settings) {
			s.ClientSecret, s.SecretVariable = "wrong-secret-value", "M365_CLIENT_SECRET_FILE"
		},
			"M365_CLIENT_SECRET_FILE", "M365_CLIENT_SECRET_FILE"},
		{"unknown client", func(s *m365.Settings) { s.ClientID = "00000000-0000-0000-0000-000000000000" }, "M365_CLIENT_ID", "Application (client) ID"},
		{"unknown tenant", func(s *m365.Settings) { s.TenantID = "11111111-1111-1111-1111-111111111111" }, "M365_TENANT_ID", "does not know the tenant"},
	}
	for _, c := range cases {
		err := w.client(t, c.edit).Check(t.Context())
		credError(t, c.name, err, c.setting, c.want, "wrong-secret-value")
	}
	if err := w.sim.ExpireSecret(w.acct.ClientID); err != nil {
		t.Fatal(err)
	}
	credError(t, "expired secret", w.client(t, nil).Check(t.Context()), "M365_CLIENT_SECRET", "has expired", w.acct.ClientSecret)
}

// The start-up check names the permission a 403 lacks, and a licence the
// tenant does not have; no free seat is a start-up warning.
func TestCheck(t *testing.T) {
	w := newWorld(t)
	if err := w.sim.SetPermissions(w.acct.ClientID, true, m365sim.PermUsers, m365sim.PermDomains); err != nil {
		t.Fatal(err)
	}
	credError(t, "no Organization.Read.All", w.client(t, nil).Check(t.Context()), "M365_CLIENT_ID", "Organization.Read.All", w.acct.ClientSecret)
	if err := w.sim.SetPermissions(w.acct.ClientID, true, m365sim.Permissions...); err != nil {
		t.Fatal(err)
	}
	err := w.client(t, func(s *m365.Settings) { s.License = "SPE_E5" }).Check(t.Context())
	var e *apiclient.Error
	if !errors.As(err, &e) || e.Setting != "M365_LICENSE" || !strings.Contains(e.Message, "EXCHANGESTANDARD") {
		t.Errorf("an unknown licence: %v (setting %q), want M365_LICENSE and the tenant's licences", err, e.Setting)
	}
	c := w.client(t, func(s *m365.Settings) { s.License = m365sim.SKUEssential })
	if err := c.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ws := c.StartWarnings(); len(ws) != 1 || !strings.Contains(ws[0], "no free seat") {
		t.Errorf("no free seat: warnings %q", ws)
	}
	c = w.client(t, func(s *m365.Settings) { s.License = w.sim.SKUID(m365sim.SKUExchange) }) // a skuId names it too
	if err := c.Check(t.Context()); err != nil || len(c.StartWarnings()) != 0 {
		t.Errorf("licence by skuId: %v, warnings %q", err, c.StartWarnings())
	}
}

// A reset refused 403 names the User Administrator role and the
// permission in words.
func TestResetWithoutRole(t *testing.T) {
	w := newWorld(t)
	w.sim.AddMailboxes("example.com", 1)
	if err := w.sim.SetPermissions(w.acct.ClientID, false, m365sim.Permissions...); err != nil {
		t.Fatal(err)
	}
	_, err := w.client(t, nil).SetPassword(t.Context(), "example.com", "user0001", "Fresh-Secret-1", true)
	credError(t, "reset without the role", err, "the User Administrator role and the User-PasswordProfile.ReadWrite.All permission of the app M365_CLIENT_ID names",
		"User Administrator directory role", "Fresh-Secret-1")
}
