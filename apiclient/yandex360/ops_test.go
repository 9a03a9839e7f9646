package yandex360_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
)

var uidRe = regexp.MustCompile(`^[0-9]{16,20}$`)

func TestDomains(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	d, err := e.c.RegisterDomain(ctx, "New.Example.")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "new.example" || d.Verified || d.Status != y360sim.StatusNeedValidation || len(d.Methods) != 3 || d.Methods[0].Method != "webmaster.dns" || d.Methods[0].Code == "" {
		t.Errorf("RegisterDomain = %+v, want unverified with three methods", d)
	}
	again, err := e.c.RegisterDomain(ctx, "new.example")
	if d.Existed || err != nil || !again.Existed {
		t.Errorf("RegisterDomain: Existed %v, then %v (%v); want false, then true", d.Existed, again != nil && again.Existed, err)
	}
	if again != nil {
		again.Existed = false
	}
	if err != nil || cmp.Diff(d, again) != "" {
		t.Errorf("RegisterDomain again = %+v, %v; want the same domain (-first +again):\n%s", again, err, cmp.Diff(d, again))
	}
	dns, err := e.c.MailDNS(ctx, "new.example")
	want := &apiclient.MailDNS{Records: []apiclient.Record{apiclient.MXSet(apiclient.MXRecord{Pref: 10, Host: "mx.yandex.net"}), apiclient.SPFInclude("_spf.yandex.net")}}
	for _, m := range d.Methods {
		want.Records = append(want.Records, apiclient.Record{Purpose: apiclient.PurposeVerification, Label: m.Method, Value: m.Code,
			Match: apiclient.MatchShown, Secret: true})
	}
	if err != nil || cmp.Diff(want, dns) != "" {
		t.Errorf("MailDNS = %v (-want +got):\n%s", err, cmp.Diff(want, dns))
	}
	if err := e.sim.Verify("new.example"); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.DomainStatus(ctx, "new.example")
	if err != nil || cmp.Diff(&apiclient.Domain{Name: "new.example", Status: "ok", Verified: true}, got) != "" {
		t.Errorf("DomainStatus after Verify = %+v, %v", got, err)
	}
	if _, err := e.sim.NewOrganization("Other", "other.example"); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.RegisterDomain(ctx, "other.example")
	if got := checked(t, err, apiclient.ClassRefused, apiclient.ReasonExists, 1); got.Code != "HTTP 409" || got.Message != "domain already exists" {
		t.Errorf("another organisation's domain: %+v", got)
	}
	for _, name := range []string{"other.example", "nosuch.example"} {
		_, err = e.c.DomainStatus(ctx, name)
		wantError(t, err, apiclient.ClassRefused, apiclient.ReasonNotFound, 0)
		_, err = e.c.MailDNS(ctx, name)
		wantError(t, err, apiclient.ClassRefused, apiclient.ReasonNotFound, 1)
	}
	_, err = e.c.RegisterDomain(ctx, "пример.рф")
	wantError(t, err, apiclient.ClassRefused, apiclient.ReasonInvalid, 1)
	before := e.sim.Requests()
	for _, bad := range []string{"..", "", "a/../b.example", "x.example?y"} {
		_, err = e.c.DomainStatus(ctx, bad)
		wantError(t, err, apiclient.ClassRefused, apiclient.ReasonInvalid, 0)
	}
	if n := e.sim.Requests() - before; n != 0 {
		t.Errorf("%d requests for names that are no domains, want 0", n)
	}
}

func TestMailboxes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	if err := e.sim.AddDomain("second.example"); err != nil {
		t.Fatal(err)
	}
	m, err := e.c.AddMailbox(ctx, "second.example", "Ada", password, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Address != "ada@example.org" || !uidRe.MatchString(m.UID) || m.State != apiclient.StateActive || !m.PasswordChangeRequired {
		t.Errorf("AddMailbox = %+v", m)
	}
	wantSim := y360sim.MailboxInfo{Password: password, State: "active", ForcePasswordChange: true, UID: m.UID}
	if got, _ := e.sim.Mailbox("ada@second.example"); got != wantSim {
		t.Errorf("sandbox mailbox = %+v, want %+v", got, wantSim)
	}
	found, err := e.c.LookupMailbox(ctx, "example.org", "ADA")
	if err != nil || found.UID != m.UID || found.Address != m.Address {
		t.Errorf("LookupMailbox = %+v, %v", found, err)
	}

	reset, err := e.c.SetPassword(ctx, "example.org", "ada", "New-pass1", false)
	wantSim.Password, wantSim.ForcePasswordChange = "New-pass1", true // not sent: unchanged
	if got, _ := e.sim.Mailbox("ada@example.org"); err != nil || reset.PasswordChangeRequired || got != wantSim {
		t.Errorf("SetPassword without force = %+v, %v; sandbox %+v, want %+v", reset, err, got, wantSim)
	}
	blocked, err := e.c.SetLoginEnabled(ctx, "example.org", "ada", false)
	if err != nil || blocked.State != apiclient.StateBlocked {
		t.Errorf("block = %+v, %v", blocked, err)
	}
	if got, _ := e.sim.Mailbox("ada@example.org"); got.State != "blocked" {
		t.Errorf("sandbox state after block = %q", got.State)
	}
	unblocked, err := e.c.SetLoginEnabled(ctx, "example.org", "ada", true)
	if err != nil || unblocked.State != apiclient.StateActive {
		t.Errorf("unblock = %+v, %v", unblocked, err)
	}

	_, err = e.c.AddMailbox(ctx, "example.org", "ada", password, false)
	if got := checked(t, err, apiclient.ClassRefused, apiclient.ReasonExists, 1); got.Code != "HTTP 409" || !strings.Contains(got.Message, "already exists") {
		t.Errorf("existing mailbox: %+v", got)
	}
	_, err = e.c.AddMailbox(ctx, "example.org", "bob", "short", false)
	if got := checked(t, err, apiclient.ClassRefused, apiclient.ReasonInvalid, 1); !strings.Contains(got.Message, "6 to 20") {
		t.Errorf("refused password: %+v, want the rule in the message", got)
	}
	before := e.sim.Requests()
	_, err = e.c.AddMailbox(ctx, "nosuch.example", "bob", password, false)
	wantError(t, err, apiclient.ClassRefused, apiclient.ReasonNotFound, 0)
	if n := e.sim.Requests() - before; n != 1 {
		t.Errorf("%d requests for a domain of no organisation, want 1 (the domain list)", n)
	}
	for name, call := range map[string]func() error{
		"lookup": func() error { _, err := e.c.LookupMailbox(ctx, "example.org", "nobody"); return err },
		"reset":  func() error { _, err := e.c.SetPassword(ctx, "example.org", "nobody", password, true); return err },
		"block":  func() error { _, err := e.c.SetLoginEnabled(ctx, "example.org", "nobody", false); return err },
		"other":  func() error { _, err := e.c.LookupMailbox(ctx, "nosuch.example", "ada"); return err },
	} {
		t.Run(name, func(t *testing.T) { wantError(t, call(), apiclient.ClassRefused, apiclient.ReasonNotFound, 0) })
	}
}

func TestSetPasswordForce(t *testing.T) {
	t.Parallel()
	for _, reject := range []bool{false, true} {
		t.Run(fmt.Sprintf("reject=%v", reject), func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			e.sim.SetPatchRejectsForceChange(reject)
			if _, err := e.c.AddMailbox(t.Context(), "example.org", "ada", password, false); err != nil {
				t.Fatal(err)
			}
			m, err := e.c.SetPassword(t.Context(), "example.org", "ada", "New-pass1", true)
			if err != nil || m.PasswordChangeRequired == reject {
				t.Fatalf("SetPassword = %+v, %v; want PasswordChangeRequired %v", m, err, !reject)
			}
			if got, _ := e.sim.Mailbox("ada@example.org"); got.Password != "New-pass1" || got.ForcePasswordChange == reject {
				t.Errorf("sandbox = %+v", got)
			}
			_, err = e.c.SetPassword(t.Context(), "example.org", "ada", "x", true)
			wantError(t, err, apiclient.ClassRefused, apiclient.ReasonInvalid, 1)
		})
	}
}

func TestListMailboxes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.sim.AddMailboxes("example.org", 25); err != nil {
		t.Fatal(err)
	}
	var got []string
	cursor, pages := "", 0
	for {
		before := e.sim.Requests()
		p, err := e.c.ListMailboxes(t.Context(), "example.org", cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n := e.sim.Requests() - before; n != 2 {
			t.Errorf("page %d took %d requests, want 2 (the domain, one page of users)", pages+1, n)
		}
		if p.Total != 25 || len(p.Mailboxes) > 10 {
			t.Errorf("page %d: total %d, %d mailboxes", pages+1, p.Total, len(p.Mailboxes))
		}
		for _, m := range p.Mailboxes {
			if m.State != apiclient.StateActive || !uidRe.MatchString(m.UID) {
				t.Errorf("mailbox %+v", m)
			}
			got = append(got, m.Address)
		}
		pages++
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if pages != 3 || len(got) != 25 || got[0] != "user0001@example.org" || got[24] != "user0025@example.org" {
		t.Errorf("%d pages, addresses %v", pages, got)
	}
	for _, bad := range []string{"0", "x", "-1"} {
		_, err := e.c.ListMailboxes(t.Context(), "example.org", bad, 10)
		wantError(t, err, apiclient.ClassRefused, apiclient.ReasonInvalid, 0)
	}
	_, err := e.c.ListMailboxes(t.Context(), "nosuch.example", "", 10)
	wantError(t, err, apiclient.ClassRefused, apiclient.ReasonNotFound, 0)
}

// operation is one provider operation as the fault tests drive it: the
// requests it makes in order, which of them the fault hits, and whether
// that request creates something.
type operation struct {
	name   string
	target int // the request the fault hits, from 1
	total  int // the requests it makes without a fault
	create bool
	setup  func(*testing.T, *env)
	run    func(context.Context, *yandex360.Client) error
	done   func(*env) bool // whether the operation took effect in the sandbox
}

func withAda(t *testing.T, e *env) {
	if _, err := e.c.AddMailbox(t.Context(), "example.org", "ada", password, false); err != nil {
		t.Fatal(err)
	}
}

func simState(e *env) y360sim.MailboxInfo { m, _ := e.sim.Mailbox("ada@example.org"); return m }

var operations = []operation{
	{"check", 1, 2, false, nil, func(ctx context.Context, c *yandex360.Client) error { return c.Check(ctx) }, nil},
	{"register", 1, 2, true, nil, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.RegisterDomain(ctx, "new.example")
		return err
	}, func(e *env) bool { return e.sim.Verify("new.example") == nil }},
	{"status", 2, 2, false, nil, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.DomainStatus(ctx, "example.org")
		return err
	}, nil},
	{"add", 2, 2, true, nil, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.AddMailbox(ctx, "example.org", "ada", password, true)
		return err
	}, func(e *env) bool { _, ok := e.sim.Mailbox("ada@example.org"); return ok }},
	{"reset", 3, 3, false, withAda, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.SetPassword(ctx, "example.org", "ada", "New-pass1", true)
		return err
	}, func(e *env) bool { return simState(e).Password == "New-pass1" }},
	{"block", 3, 3, false, withAda, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.SetLoginEnabled(ctx, "example.org", "ada", false)
		return err
	}, func(e *env) bool { return simState(e).State == "blocked" }},
	{"lookup", 2, 2, false, withAda, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.LookupMailbox(ctx, "example.org", "ada")
		return err
	}, nil},
	{"list", 2, 2, false, withAda, func(ctx context.Context, c *yandex360.Client) error {
		_, err := c.ListMailboxes(ctx, "example.org", "", 10)
		return err
	}, nil},
}

// TestFaults drives every operation into every fault, on the request that
// matters (a create's POST, a change's PATCH, a read's GET): a temporary
// failure is retried (429 after its Retry-After); a create that may have
// happened is never sent again; a change or a read is sent again as it is.
func TestFaults(t *testing.T) {
	t.Parallel()
	for _, op := range operations {
		for _, fault := range []string{y360sim.Fault429, y360sim.Fault502, y360sim.FaultReset, y360sim.FaultSlow} {
			t.Run(op.name+"/"+fault, func(t *testing.T) {
				t.Parallel()
				e := setup(t)
				c := e.c
				if fault == y360sim.FaultSlow {
					c = e.client(t, e.creds.Token, yandex360.Settings{OrgID: e.creds.OrgID}, apiclient.WithTimeout(time.Second))
				}
				if op.setup != nil {
					op.setup(t, e)
				}
				e.faultAt(t, op.target, fault)
				err := op.run(t.Context(), c)
				e.sim.OnRequest(nil)
				lost := fault == y360sim.FaultReset || fault == y360sim.FaultSlow
				switch {
				case op.create && (fault == y360sim.Fault502 || lost):
					got := checked(t, err, apiclient.ClassUncertain, "", 1)
					if got.Timeout != (fault == y360sim.FaultSlow) {
						t.Errorf("Timeout = %v", got.Timeout)
					}
					// A gateway's HTML page is told in words, not quoted.
					if fault == y360sim.Fault502 && (got.Code != "HTTP 502" || got.Message != "bad gateway (an error page, not the API's answer)") {
						t.Errorf("502 page: code %q, message %q", got.Code, got.Message)
					}
					if e.mu.Lock(); len(e.arrivals) != op.target {
						t.Errorf("%d requests, want %d: an uncertain create was sent again", len(e.arrivals), op.target)
					}
					e.mu.Unlock()
				case err != nil:
					t.Fatalf("%s = %v, want it retried to success", op.name, err)
				default:
					e.mu.Lock()
					if len(e.arrivals) != op.total+1 {
						t.Errorf("%d requests, want %d (one retry)", len(e.arrivals), op.total+1)
					} else if gap := e.arrivals[op.target].Sub(e.arrivals[op.target-1]); fault == y360sim.Fault429 && gap < time.Second {
						t.Errorf("retried %v after a 429 with Retry-After: 1", gap)
					}
					e.mu.Unlock()
				}
				if op.done != nil && op.done(e) != (err == nil || lost) {
					t.Errorf("operation took effect = %v, with error %v", op.done(e), err)
				}
			})
		}
	}
}
