package google_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// env is a sandbox over HTTPS and a client of it.
type env struct {
	sim  *googlesim.Server
	acct googlesim.Account
	url  string
	c    *google.Client
	opts []apiclient.Option
}

var fast = apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func setup(tb testing.TB) *env {
	tb.Helper()
	sim := googlesim.New()
	ts := httptest.NewTLSServer(sim)
	tb.Cleanup(ts.Close)
	e := &env{sim: sim, acct: sim.NewAccount(), url: ts.URL,
		opts: []apiclient.Option{apiclient.WithHTTPClient(ts.Client()), apiclient.WithTimeout(5 * time.Second), apiclient.WithRetry(fast)}}
	sim.AddDomain("example.com")
	e.c = e.connect(tb, e.acct.Admin, google.Settings{})
	return e
}

func (e *env) connect(tb testing.TB, admin string, s google.Settings) *google.Client {
	tb.Helper()
	c, err := google.New(e.url, e.acct.KeyFile(e.url), admin, s, e.opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

const password = "Sandbox-pw-1234"

// credentials checks that err is refused credentials naming setting, and
// that its text holds want.
func credentials(t *testing.T, what string, err error, setting, want string) {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) || e.Class != apiclient.ClassCredentials || e.Setting != setting || !strings.Contains(e.Message, want) {
		t.Errorf("%s: %v (setting %q); want refused credentials naming %s, saying %q", what, err, settingOf(err), setting, want)
	}
}

func settingOf(err error) string {
	var e *apiclient.Error
	if errors.As(err, &e) {
		return e.Setting
	}
	return ""
}

func TestCredentialsNameTheSetting(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	s := google.Settings{CredentialsVariable: "GOOGLE_CREDENTIALS_FILE"}

	credentials(t, "an unknown admin", e.connect(t, "nobody@"+googlesim.DefaultPrimaryDomain, s).Check(ctx), "GOOGLE_ADMIN", "does not know the admin")

	e.sim.AddUser("clerk@"+googlesim.DefaultPrimaryDomain, "Clerk-pass-1")
	credentials(t, "an admin without the privilege", e.connect(t, "clerk@"+googlesim.DefaultPrimaryDomain, s).Check(ctx), "GOOGLE_ADMIN", "super admin")

	if err := e.sim.SetDelegation(e.acct.ClientEmail, googlesim.ScopeUser); err != nil {
		t.Fatal(err)
	}
	err := e.connect(t, e.acct.Admin, s).Check(ctx)
	credentials(t, "delegation missing", err, "GOOGLE_CREDENTIALS_FILE", google.ScopeDomain)
	credentials(t, "delegation missing", err, "GOOGLE_CREDENTIALS_FILE", "Domain-wide delegation")

	e.sim.DeleteKey(e.acct.ClientEmail)
	credentials(t, "a deleted key", e.connect(t, e.acct.Admin, google.Settings{}).Check(ctx), "GOOGLE_CREDENTIALS", "refused the key")
}

func TestFaultsAreClassified(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	if _, err := e.c.AddMailbox(ctx, "example.com", "ann", password, false); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"403rate", "quota", "429", "503"} {
		if err := e.sim.InjectFault(kind, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.SetPassword(ctx, "example.com", "ann", password, false); err != nil {
			t.Errorf("SetPassword after one %s: %v; want it retried", kind, err)
		}
		if err := e.sim.InjectFault(kind, 3); err != nil {
			t.Fatal(err)
		}
		_, err := e.c.LookupMailbox(ctx, "example.com", "ann")
		if c := apiclient.ClassOf(err); c != apiclient.ClassTemporary {
			t.Errorf("LookupMailbox after three %s: %v; want temporary", kind, err)
		}
	}
	if err := e.sim.InjectFault("503", 1); err != nil {
		t.Fatal(err)
	}
	before := e.sim.Requests()
	_, err := e.c.AddMailbox(ctx, "example.com", "bob", password, false)
	if apiclient.ClassOf(err) != apiclient.ClassUncertain || e.sim.Requests()-before != 1 {
		t.Errorf("AddMailbox answered 503: %v after %d requests; want uncertain, sent once", err, e.sim.Requests()-before)
	}
	_, err = e.c.AddMailbox(ctx, "example.com", "ann", password, false)
	if apiclient.ReasonOf(err) != apiclient.ReasonExists {
		t.Errorf("an existing user: %v", err)
	}
	_, err = e.c.AddMailbox(ctx, "example.com", "carl", "short", false)
	if apiclient.ReasonOf(err) != apiclient.ReasonPassword {
		t.Errorf("a 5-character password: %v; want refused by the password rules before sending", err)
	}
}

// TestOneTokenPerRun: a burst of concurrent calls, and every call after
// it, share one token request.
func TestOneTokenPerRun(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.sim.AddMailboxes("example.com", 10)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Go(func() {
			_, err := e.c.LookupMailbox(t.Context(), "example.com", fmt.Sprintf("user%04d", i%10+1))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.c.ListMailboxes(t.Context(), "example.com", "", 5); err != nil {
		t.Fatal(err)
	}
	if n := e.sim.TokenRequests(); n != 1 {
		t.Errorf("%d token requests for 41 calls, want 1", n)
	}
}

func TestRegisterAndVerify(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	d, err := e.c.RegisterDomain(ctx, "Fresh.ORG")
	if err != nil {
		t.Fatal(err)
	}
	want := e.sim.VerificationToken("fresh.org", e.acct.Admin)
	if d.Name != "fresh.org" || d.Verified || d.Status != google.StatusUnverified || d.VerifyTXT != want || want == "" {
		t.Fatalf("RegisterDomain = %+v; want unverified with the sandbox's DNS_TXT token", d)
	}
	again, err := e.c.RegisterDomain(ctx, "fresh.org")
	if err != nil || again.VerifyTXT != want {
		t.Errorf("RegisterDomain again: %+v, %v; want the same domain and token", again, err)
	}
	dns, err := e.c.MailDNS(ctx, "fresh.org")
	wantDNS := []apiclient.Record{google.MXSets[0], google.MXSets[1], apiclient.SPFInclude("_spf.google.com"),
		{Purpose: apiclient.PurposeDKIM, Type: apiclient.TypeTXT, Name: "google._domainkey", Match: apiclient.MatchPresent, Advice: true},
		apiclient.VerifyTXT(want)}
	if err != nil || cmp.Diff(wantDNS, dns.Records) != "" {
		t.Errorf("MailDNS = %v (-want +got):\n%s", err, cmp.Diff(wantDNS, dns.Records))
	}
	_, err = e.c.VerifyDomain(ctx, "fresh.org")
	if apiclient.ClassOf(err) != apiclient.ClassRefused {
		t.Errorf("VerifyDomain before the record is published: %v; want refused", err)
	}
	e.sim.PublishTXT("fresh.org")
	d, err = e.c.VerifyDomain(ctx, "fresh.org")
	if err != nil || !d.Verified || d.Status != google.StatusVerified {
		t.Fatalf("VerifyDomain once published: %+v, %v", d, err)
	}
	if _, err := e.c.AddMailbox(ctx, "fresh.org", "ann", password, true); err != nil {
		t.Errorf("AddMailbox in the verified domain: %v", err)
	}
}

func TestUnblockSendsSuspendedFalse(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	if _, err := e.c.AddMailbox(ctx, "example.com", "ann", password, true); err != nil {
		t.Fatal(err)
	}
	m, err := e.c.SetLoginEnabled(ctx, "example.com", "ann", false)
	if err != nil || m.State != apiclient.StateBlocked || !m.PasswordChangeRequired {
		t.Fatalf("block: %+v, %v; want blocked, the force-change flag untouched", m, err)
	}
	m, err = e.c.SetLoginEnabled(ctx, "example.com", "ann", true)
	if info, _ := e.sim.Mailbox("ann@example.com"); err != nil || m.State != apiclient.StateActive || info.State != "active" {
		t.Errorf("unblock: %+v, %v, sandbox %s", m, err, info.State)
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, tc := range []struct {
		name  string
		key   []byte
		admin string
	}{
		{"not JSON", []byte("not json"), e.acct.Admin},
		{"no private key", []byte(`{"type":"service_account","client_email":"a@b.iam.gserviceaccount.com","private_key":"x","token_uri":"https://oauth2.googleapis.com/token"}`), e.acct.Admin},
		{"admin not an address", e.acct.KeyFile(e.url), "admin"},
		{"token_uri plain http", e.acct.KeyFile("http://oauth2.example.net"), e.acct.Admin},
	} {
		_, err := google.New(e.url, tc.key, tc.admin, google.Settings{}, e.opts...)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
		} else if strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("%s: the error shows the key: %v", tc.name, err)
		}
	}
}

// TestNoSecretInErrors: the access token and the private key stay out of
// every error, even an answer that repeats them.
func TestNoSecretInErrors(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := providertestAnswerer(t)
	c, err := google.New(a.URL, e.acct.KeyFile(e.url), e.acct.Admin, google.Settings{}, e.opts...)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := e.acct.PrivateKeyPEM()
	line := strings.Split(pemKey, "\n")[3]
	for _, body := range []string{
		`{"error":{"code":400,"message":"bad key ` + line + `","errors":[{"reason":"invalid"}]}}`,
		`{"error":{"code":403,"message":"` + strings.ReplaceAll(pemKey, "\n", `\n`) + `"}}`,
		"plain text " + line,
	} {
		a.Set(400, body)
		_, err := c.LookupMailbox(t.Context(), "example.com", "ann")
		if err == nil || strings.Contains(err.Error(), line) || strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("an answer repeating the key: %v", err)
		}
	}
}

// TestTokenEndpointAnswers: the token endpoint's own failures, with a
// server that answers as set standing in for it: 429 and 503 are
// temporary (retried, nothing sent to the API), unauthorized_client names
// the key's setting with the scopes, invalid_grant for an unknown admin
// names GOOGLE_ADMIN, and an answer that is not a token is temporary.
func TestTokenEndpointAnswers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := providertestAnswerer(t)
	c, err := google.New(e.url, e.acct.KeyFile(a.URL), e.acct.Admin, google.Settings{}, e.opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, status := range []int{429, 503} {
		a.Set(status, `{"error":"temporarily_unavailable"}`)
		before := e.sim.Requests()
		err := c.Check(ctx)
		var ae *apiclient.Error
		if !errors.As(err, &ae) || ae.Class != apiclient.ClassTemporary || ae.Attempts != 3 || e.sim.Requests() != before {
			t.Errorf("token endpoint %d: %v; want temporary after 3 attempts, nothing sent to the API", status, err)
		}
	}
	a.Set(401, `{"error":"unauthorized_client","error_description":"Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested."}`)
	credentials(t, "unauthorized_client", c.Check(ctx), "GOOGLE_CREDENTIALS", google.ScopeVerification)
	a.Set(400, `{"error":"invalid_grant","error_description":"Invalid email or User ID"}`)
	credentials(t, "an unknown admin", c.Check(ctx), "GOOGLE_ADMIN", "does not know the admin")
	a.Set(200, `not a token`)
	if err := c.Check(ctx); apiclient.ClassOf(err) != apiclient.ClassTemporary {
		t.Errorf("a token answer that is not JSON: %v; want temporary", err)
	}
}
