package mailcow_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/commands"
)

// The adapter is what the core drives.
var _ commands.Provider = (*mailcow.Client)(nil)

const (
	mx       = "mx.example.net"
	password = "Secret-1"
)

// fastRetry keeps the backoff short; a Retry-After is still honoured.
var fastRetry = apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// env is a client of a sandbox served over HTTPS on loopback; the sandbox
// has example.com with taken@example.com (password Secret-1).
type env struct {
	sim *mailcowsim.Server
	url string
	key string
	ts  *httptest.Server
	c   *mailcow.Client
}

func setup(tb testing.TB, opts ...mailcowsim.Option) *env {
	tb.Helper()
	sim := mailcowsim.New(opts...)
	ts := httptest.NewTLSServer(sim)
	tb.Cleanup(ts.Close)
	e := &env{sim: sim, url: ts.URL, key: sim.NewAccount(), ts: ts}
	sim.AddDomain("example.com")
	e.c = e.client(tb, e.key)
	if _, err := e.c.AddMailbox(tb.Context(), "example.com", "taken", password, false); err != nil {
		tb.Fatal(err)
	}
	return e
}

func (e *env) client(tb testing.TB, key string) *mailcow.Client {
	tb.Helper()
	c, err := mailcow.New(e.url, key, mx, apiclient.WithHTTPClient(e.ts.Client()),
		apiclient.WithRetry(fastRetry), apiclient.WithTimeout(2*time.Second))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// atRequest makes fn run as the k-th API request from now arrives, before
// the sandbox takes that request's fault (k 1, the next: at once): an add's write is its
// second request, after the read of the domain's default quota.
func (e *env) atRequest(k int, fn func()) {
	if k <= 1 {
		fn()
		return
	}
	var mu sync.Mutex
	n := 0
	e.sim.OnRequest(func() {
		mu.Lock()
		defer mu.Unlock()
		if n++; n == k {
			fn()
		}
	})
}

// asError returns err as an *apiclient.Error, or fails.
func asError(t *testing.T, err error) *apiclient.Error {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *apiclient.Error", err, err)
	}
	return e
}

func TestOperations(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	cases := []struct {
		name string
		run  func() (any, error)
		want any
		info mailcowsim.MailboxInfo // of new@example.com afterwards
	}{
		{"add", func() (any, error) { return e.c.AddMailbox(ctx, "example.com", "New", password, true) },
			&apiclient.Mailbox{Address: "new@example.com", State: apiclient.StateActive, PasswordChangeRequired: true},
			mailcowsim.MailboxInfo{Password: password, State: "active", ForcePasswordChange: true}},
		{"reset", func() (any, error) { return e.c.SetPassword(ctx, "example.com", "new", "Secret-2", false) },
			&apiclient.Mailbox{Address: "new@example.com"},
			mailcowsim.MailboxInfo{Password: "Secret-2", State: "active"}},
		{"block", func() (any, error) { return e.c.SetLoginEnabled(ctx, "example.com", "new", false) },
			&apiclient.Mailbox{Address: "new@example.com", State: apiclient.StateBlocked},
			mailcowsim.MailboxInfo{Password: "Secret-2", State: "blocked"}},
		{"lookup blocked", func() (any, error) { return e.c.LookupMailbox(ctx, "example.com", "NEW") },
			&apiclient.Mailbox{Address: "new@example.com", State: apiclient.StateBlocked},
			mailcowsim.MailboxInfo{Password: "Secret-2", State: "blocked"}},
		{"unblock", func() (any, error) { return e.c.SetLoginEnabled(ctx, "example.com", "new", true) },
			&apiclient.Mailbox{Address: "new@example.com", State: apiclient.StateActive},
			mailcowsim.MailboxInfo{Password: "Secret-2", State: "active"}},
		{"reset forcing a change", func() (any, error) { return e.c.SetPassword(ctx, "example.com", "new", "Secret-3", true) },
			&apiclient.Mailbox{Address: "new@example.com", PasswordChangeRequired: true},
			mailcowsim.MailboxInfo{Password: "Secret-3", State: "active", ForcePasswordChange: true}},
		{"lookup", func() (any, error) { return e.c.LookupMailbox(ctx, "example.com", "new") },
			&apiclient.Mailbox{Address: "new@example.com", State: apiclient.StateActive, PasswordChangeRequired: true},
			mailcowsim.MailboxInfo{Password: "Secret-3", State: "active", ForcePasswordChange: true}},
		{"register", func() (any, error) { return e.c.RegisterDomain(ctx, "New.Example") },
			&apiclient.Domain{Name: "new.example", Status: "active", Verified: true, MaxMailboxes: mailcow.DomainMailboxes},
			mailcowsim.MailboxInfo{Password: "Secret-3", State: "active", ForcePasswordChange: true}},
		{"status", func() (any, error) { return e.c.DomainStatus(ctx, "example.com") },
			&apiclient.Domain{Name: "example.com", Status: "active", Verified: true, Mailboxes: 2, MaxMailboxes: 10},
			mailcowsim.MailboxInfo{Password: "Secret-3", State: "active", ForcePasswordChange: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if info, _ := e.sim.Mailbox("new@example.com"); info != c.info {
				t.Errorf("sandbox: %+v, want %+v", info, c.info)
			}
		})
	}
	if err := e.c.Check(ctx); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	e.sim.AddMailboxes("full.example", 10) // the sandbox's default limit
	cases := []struct {
		name   string
		run    func() error
		reason apiclient.Reason
		code   string
	}{ // an add reads the domain first: two requests
		{"add existing", func() error { _, err := e.c.AddMailbox(ctx, "example.com", "taken", password, false); return err },
			apiclient.ReasonExists, "object_exists"},
		{"add to unknown domain", func() error { _, err := e.c.AddMailbox(ctx, "other.example", "a", password, false); return err },
			apiclient.ReasonNotFound, ""},
		{"add bad name", func() error { _, err := e.c.AddMailbox(ctx, "example.com", "a b", password, false); return err },
			apiclient.ReasonInvalid, "mailbox_invalid"},
		{"add short password", func() error { _, err := e.c.AddMailbox(ctx, "example.com", "a", "abc", false); return err },
			apiclient.ReasonPassword, "password_complexity"},
		{"add past the limit", func() error { _, err := e.c.AddMailbox(ctx, "full.example", "a", password, false); return err },
			apiclient.ReasonLimit, "max_mailbox_exceeded"},
		{"reset unknown", func() error { _, err := e.c.SetPassword(ctx, "example.com", "nobody", password, false); return err },
			apiclient.ReasonNotFound, "access_denied"},
		{"reset short password", func() error { _, err := e.c.SetPassword(ctx, "example.com", "taken", "abc", false); return err },
			apiclient.ReasonPassword, "password_complexity"},
		{"block unknown", func() error { _, err := e.c.SetLoginEnabled(ctx, "example.com", "nobody", false); return err },
			apiclient.ReasonNotFound, "access_denied"},
		{"lookup unknown", func() error { _, err := e.c.LookupMailbox(ctx, "example.com", "nobody"); return err },
			apiclient.ReasonNotFound, ""},
		{"register existing", func() error { _, err := e.c.RegisterDomain(ctx, "example.com"); return err },
			apiclient.ReasonExists, "domain_exists"},
		{"register invalid", func() error { _, err := e.c.RegisterDomain(ctx, "not_a_domain"); return err },
			apiclient.ReasonInvalid, "domain_invalid"},
		{"register the server's name", func() error { _, err := e.c.RegisterDomain(ctx, mailcowsim.DefaultHostname); return err },
			apiclient.ReasonInvalid, "domain_cannot_match_hostname"},
		{"status unknown", func() error { _, err := e.c.DomainStatus(ctx, "other.example"); return err },
			apiclient.ReasonNotFound, ""},
		{"lookup a path", func() error { _, err := e.c.LookupMailbox(ctx, "example.com", "a/../../x"); return err },
			apiclient.ReasonInvalid, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.sim.Requests()
			err := asError(t, c.run())
			if err.Class != apiclient.ClassRefused || err.Reason != c.reason || err.Code != c.code || err.Message == "" {
				t.Errorf("error %+v, want refused, reason %q, code %q, a message", err, c.reason, c.code)
			}
			want := 1
			if strings.HasPrefix(c.name, "add ") && c.code != "" {
				want = 2
			}
			if sent := e.sim.Requests() - before; sent > want || c.code != "" && sent != want {
				t.Errorf("%d requests sent, want %d and no retry", sent, want)
			}
		})
	}
}

func TestAccessDeniedOnAddIsNotAllowed(t *testing.T) {
	e := setup(t)
	e.atRequest(2, func() { e.sim.FailNextWith(1, "access_denied") })
	_, err := e.c.AddMailbox(t.Context(), "example.com", "a", password, false)
	if got := asError(t, err); got.Class != apiclient.ClassRefused || got.Reason != apiclient.ReasonNotAllowed {
		t.Errorf("access_denied on add: %+v, want refused, not allowed", got)
	}
}

func TestUnknownCodeShownCut(t *testing.T) {
	e := setup(t)
	code := "brand_new_code_" + strings.Repeat("x", 300)
	e.atRequest(2, func() { e.sim.FailNextWith(1, code) })
	_, err := e.c.AddMailbox(t.Context(), "example.com", "a", password, false)
	got := asError(t, err)
	if got.Class != apiclient.ClassRefused || got.Reason != "" || !strings.HasPrefix(got.Code, "brand_new_code_") ||
		utf8.RuneCountInString(got.Code) > apiclient.MaxCodeLen {
		t.Errorf("unknown code: %+v", got)
	}
}

func TestPartialSuccessIsWarned(t *testing.T) {
	e := setup(t)
	e.sim.WarnNextWith(1, "domain_added_sogo_failed")
	d, err := e.c.RegisterDomain(t.Context(), "warn.example")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"the domain was added, but the webmail (SOGo) was not updated"}; !cmp.Equal(d.Warnings, want) {
		t.Errorf("warnings %q, want %q", d.Warnings, want)
	}
	e.sim.WarnNextWith(1, "something_odd")
	m, err := e.c.SetLoginEnabled(t.Context(), "example.com", "taken", false)
	if err != nil || !cmp.Equal(m.Warnings, []string{"something_odd"}) {
		t.Errorf("block with a warning: %+v, %v", m, err)
	}
}

// TestFaults: each operation meets each fault; the table says what the
// caller gets and how many requests it took.
func TestFaults(t *testing.T) {
	type op struct {
		name       string
		idempotent bool // a state set, or a read: an uncertain attempt is sent again
		reads      int  // requests before the one the fault hits
		run        func(ctx context.Context, c *mailcow.Client) error
	}
	ops := []op{
		{"add", false, 1, func(ctx context.Context, c *mailcow.Client) error {
			_, err := c.AddMailbox(ctx, "example.com", "fresh", password, false)
			return err
		}},
		{"reset", true, 0, func(ctx context.Context, c *mailcow.Client) error {
			_, err := c.SetPassword(ctx, "example.com", "taken", "Secret-9", false)
			return err
		}},
		{"block", true, 0, func(ctx context.Context, c *mailcow.Client) error {
			_, err := c.SetLoginEnabled(ctx, "example.com", "taken", false)
			return err
		}},
		{"lookup", true, 0, func(ctx context.Context, c *mailcow.Client) error {
			_, err := c.LookupMailbox(ctx, "example.com", "taken")
			return err
		}},
	}
	faults := []struct {
		kind string
		n    int
		// for an add, and for the others
		addClass   apiclient.Class
		addSent    int
		otherSent  int
		otherClass apiclient.Class
	}{
		{mailcowsim.Fault502, 1, apiclient.ClassUncertain, 1, 2, 0},
		{mailcowsim.Fault502, 3, apiclient.ClassUncertain, 1, 3, apiclient.ClassTemporary},
		{mailcowsim.FaultReset, 1, apiclient.ClassUncertain, 1, 2, 0},
		{mailcowsim.FaultSlow, 1, apiclient.ClassUncertain, 1, 2, 0},
	}
	for _, f := range faults {
		for _, o := range ops {
			t.Run(fmt.Sprintf("%s×%d/%s", f.kind, f.n, o.name), func(t *testing.T) {
				t.Parallel()
				e := setup(t)
				c := e.c
				if f.kind == mailcowsim.FaultSlow {
					var err error
					c, err = mailcow.New(e.url, e.key, mx, apiclient.WithHTTPClient(e.ts.Client()),
						apiclient.WithRetry(fastRetry), apiclient.WithTimeout(200*time.Millisecond))
					if err != nil {
						t.Fatal(err)
					}
				}
				e.atRequest(o.reads+1, func() {
					if err := e.sim.InjectFault(f.kind, f.n); err != nil {
						t.Error(err)
					}
				})
				before := e.sim.Requests()
				err := o.run(t.Context(), c)
				wantClass, wantSent := f.otherClass, f.otherSent
				if !o.idempotent {
					wantClass, wantSent = f.addClass, f.addSent
				}
				if got := apiclient.ClassOf(err); got != wantClass {
					t.Errorf("class %v (%v), want %v", got, err, wantClass)
				}
				if sent := e.sim.Requests() - before; sent != o.reads+wantSent {
					t.Errorf("%d requests, want %d", sent, o.reads+wantSent)
				}
				if err != nil && asError(t, err).Attempts != wantSent {
					t.Errorf("Attempts = %d, want %d", asError(t, err).Attempts, wantSent)
				}
				if f.kind == mailcowsim.FaultSlow && !o.idempotent && !asError(t, err).Timeout {
					t.Errorf("a slow answer is not a timeout: %+v", err)
				}
			})
		}
	}
}

// TestAddAfterLostAnswerHappened: a reset after processing is uncertain,
// and the mailbox does exist: why the core looks it up.
func TestAddAfterLostAnswerHappened(t *testing.T) {
	e := setup(t)
	e.atRequest(2, func() {
		if err := e.sim.InjectFault(mailcowsim.FaultReset, 1); err != nil {
			t.Error(err)
		}
	})
	_, err := e.c.AddMailbox(t.Context(), "example.com", "lost", password, false)
	if !apiclient.MayHaveHappened(err) || !asError(t, err).Sent {
		t.Fatalf("lost answer: %v, want uncertain and sent", err)
	}
	if _, err := e.c.LookupMailbox(t.Context(), "example.com", "lost"); err != nil {
		t.Errorf("the lost add did happen, but the look-up says %v", err)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.sim.InjectFault(mailcowsim.Fault429, 1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := e.c.AddMailbox(t.Context(), "example.com", "later", password, false); err != nil {
		t.Fatalf("add after one 429: %v", err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, before the Retry-After of 1 s", waited)
	}
	if _, ok := e.sim.Mailbox("later@example.com"); !ok {
		t.Error("the retried add did not create the mailbox")
	}
}

func TestTooManyRequestsExhausted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.sim.InjectFault(mailcowsim.Fault429, 3); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.SetLoginEnabled(t.Context(), "example.com", "taken", false)
	got := asError(t, err)
	if got.Class != apiclient.ClassTemporary || got.Attempts != 3 || got.RetryAfter != time.Second || got.HTTPStatus != 429 {
		t.Errorf("three 429s: %+v, want temporary after 3 attempts, Retry-After 1s", got)
	}
	if !apiclient.NothingDone(err) {
		t.Error("NothingDone is false after three 429s")
	}
}

// TestRefusedKeyNeverSentAgain: after one 401 the client sends nothing
// more, whatever the call, so mailcow's fail2ban never bans it.
func TestRefusedKeyNeverSentAgain(t *testing.T) {
	e := setup(t)
	c := e.client(t, "WRONG0-WRONG0-WRONG0-WRONG0-WRONG0")
	ctx := t.Context()
	before := e.sim.Requests()
	err := c.Check(ctx)
	if got := asError(t, err); got.Class != apiclient.ClassCredentials || got.HTTPStatus != 401 || got.Message != "authentication failed" {
		t.Fatalf("Check with a wrong key: %+v", got)
	}
	calls := []func() error{
		func() error { return c.Check(ctx) },
		func() error { _, err := c.AddMailbox(ctx, "example.com", "a", password, false); return err },
		func() error { _, err := c.SetPassword(ctx, "example.com", "taken", password, false); return err },
		func() error { _, err := c.SetLoginEnabled(ctx, "example.com", "taken", true); return err },
		func() error { _, err := c.LookupMailbox(ctx, "example.com", "taken"); return err },
		func() error { _, err := c.ListMailboxes(ctx, "example.com", "", 10); return err },
		func() error { _, err := c.RegisterDomain(ctx, "x.example"); return err },
		func() error { _, err := c.DomainStatus(ctx, "example.com"); return err },
		func() error { _, err := c.MailDNS(ctx, "example.com"); return err },
	}
	for range 3 { // more than the sandbox's ban threshold in all
		for _, call := range calls {
			if got := asError(t, call()); got.Class != apiclient.ClassCredentials || got.Sent {
				t.Errorf("after a 401: %+v, want credentials refused, nothing sent", got)
			}
		}
	}
	if sent := e.sim.Requests() - before; sent != 1 {
		t.Errorf("%d requests sent with the refused key, want 1", sent)
	}
	if e.sim.Banned("127.0.0.1") || e.sim.AuthFailures() != 1 {
		t.Errorf("banned %v after %d failures", e.sim.Banned("127.0.0.1"), e.sim.AuthFailures())
	}
	if err := e.c.Check(ctx); err != nil { // another client, another key
		t.Errorf("the good key's client: %v", err)
	}
}

func TestReadOnlyKey(t *testing.T) {
	e := setup(t)
	c := e.client(t, e.sim.NewReadOnlyKey())
	before := e.sim.Requests()
	_, err := c.AddMailbox(t.Context(), "example.com", "a", password, false)
	if got := asError(t, err); got.Class != apiclient.ClassCredentials || got.HTTPStatus != 403 || got.Message != "API read/write access denied" {
		t.Errorf("write with a read-only key: %+v", got)
	}
	if _, err := c.LookupMailbox(t.Context(), "example.com", "taken"); err != nil {
		t.Errorf("read with a read-only key: %v", err)
	}
	if sent := e.sim.Requests() - before; sent != 3 {
		t.Errorf("%d requests, want 3: the add's read and write, the look-up (no retry of a 403)", sent)
	}
}

func TestListMailboxesPagesInMemory(t *testing.T) {
	e := setup(t)
	e.sim.AddMailboxes("list.example", 25)
	var got []string
	var nexts []string
	cursor := ""
	before := e.sim.Requests()
	for {
		p, err := e.c.ListMailboxes(t.Context(), "list.example", cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 25 {
			t.Errorf("Total = %d, want 25", p.Total)
		}
		for _, m := range p.Mailboxes {
			got = append(got, m.Address)
			if m.State != apiclient.StateActive || m.UID != "" {
				t.Errorf("mailbox %+v", m)
			}
		}
		nexts = append(nexts, p.Next)
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	var want []string
	for i := 1; i <= 25; i++ {
		want = append(want, fmt.Sprintf("user%04d@list.example", i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if !cmp.Equal(nexts, []string{"10", "20", ""}) {
		t.Errorf("cursors %q", nexts)
	}
	if sent := e.sim.Requests() - before; sent != 3 {
		t.Errorf("%d requests for 3 pages, want 3", sent)
	}
	e.sim.AddDomain("empty.example")
	p, err := e.c.ListMailboxes(t.Context(), "empty.example", "", 10)
	if err != nil || len(p.Mailboxes) != 0 || p.Total != 0 || p.Next != "" {
		t.Errorf("empty domain ({} from mailcow): %+v, %v", p, err)
	}
	_, err = e.c.ListMailboxes(t.Context(), "unknown.example", "", 10)
	if got := asError(t, err); got.Class != apiclient.ClassRefused || got.Reason != apiclient.ReasonNotFound {
		t.Errorf("a domain the server does not have: %v; want not found, not an empty list", err)
	}
	_, err = e.c.ListMailboxes(t.Context(), "list.example", "bogus", 10)
	if asError(t, err).Reason != apiclient.ReasonInvalid {
		t.Errorf("bad cursor: %v", err)
	}
}

func TestMailDNS(t *testing.T) {
	for _, withKey := range []bool{true, false} {
		t.Run(fmt.Sprintf("dkim=%v", withKey), func(t *testing.T) {
			var opts []mailcowsim.Option
			if !withKey {
				opts = append(opts, mailcowsim.WithoutDKIM())
			}
			e := setup(t, opts...)
			got, err := e.c.MailDNS(t.Context(), "example.com")
			if err != nil {
				t.Fatal(err)
			}
			fixed := []apiclient.Record{apiclient.MXSet(apiclient.MXRecord{Pref: 10, Host: mx}), apiclient.SPFHost(mx)}
			if diff := cmp.Diff(fixed, got.Records[:min(2, len(got.Records))]); diff != "" {
				t.Errorf("MailDNS's MX and SPF (-want +got):\n%s", diff)
			}
			dkim := got.Of(apiclient.PurposeDKIM)
			if withKey != (len(dkim) == 1) || withKey && (dkim[0].Name != "dkim._domainkey" || dkim[0].Match != apiclient.MatchKey ||
				!strings.HasPrefix(dkim[0].Value, "v=DKIM1; k=rsa; p=") || len(dkim[0].Value) < 100) {
				t.Errorf("DKIM = %+v, want a key: %v", dkim, withKey)
			}
		})
	}
}

func TestNew(t *testing.T) {
	cases := []struct {
		url, mx, wantErr string
	}{
		{"https://mail.example.com", "", ""},
		{"https://192.0.2.1", "", "MAILCOW_MX"},
		{"https://192.0.2.1", "mail.example.com", ""},
		{"http://mail.example.com", "", "scheme"},
	}
	for _, c := range cases {
		_, err := mailcow.New(c.url, "KEY", c.mx)
		if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("New(%q, mx %q) = %v, want error containing %q", c.url, c.mx, err, c.wantErr)
		}
	}
	c, err := mailcow.New("https://Mail.Example.com/", "KEY", "")
	if err != nil {
		t.Fatal(err)
	}
	dns, err := c.MailDNS(t.Context(), "..")
	if err == nil || dns != nil {
		t.Fatalf("MailDNS(..) = %+v, %v", dns, err)
	}
	if caps := c.Capabilities(); caps != (apiclient.Capabilities{Title: "mailcow", ForcePasswordChange: true, KeepsMailWhenBlocked: true, Aliases: true}) || c.Name() != apiclient.ProviderMailcow {
		t.Errorf("Name %q, Capabilities %+v", c.Name(), caps)
	}
}
