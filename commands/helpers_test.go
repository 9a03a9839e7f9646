package commands

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeAPI is a hand-written fake of a Provider (PDD's shape): func
// fields, and a count of calls. Without a func, register answers
// domain-activate with secrets and add creates the mailbox.
type fakeAPI struct {
	register func(ctx context.Context, domain string) (*apiclient.Domain, error)
	add      func(ctx context.Context, domain, login, password string) (*apiclient.Mailbox, error)
	calls    atomic.Int64
}

var _ Provider = (*fakeAPI)(nil)

func (f *fakeAPI) Name() string { return apiclient.ProviderPDD }

func (f *fakeAPI) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: "the PDD API", UIDs: true, Paged: true, VerifiesOwnership: true}
}

func (f *fakeAPI) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	f.calls.Add(1)
	if f.register == nil {
		return &apiclient.Domain{Name: domain, Status: pdd.StatusDomainActivate, Meaning: pdd.Status(pdd.StatusDomainActivate).Meaning(), Stage: "owner-check",
			Secrets: pdd.SecretsOf(domain, "3c8a1f2e9b7d", "5f0e9d8c7b6a5f4e3d2c1b0a")}, nil
	}
	return f.register(ctx, domain)
}

func (f *fakeAPI) AddMailbox(ctx context.Context, domain, login, password string, _ bool) (*apiclient.Mailbox, error) {
	f.calls.Add(1)
	if f.add == nil {
		return &apiclient.Mailbox{Address: login + "@" + domain, UID: "1130000000000042", State: apiclient.StateActive}, nil
	}
	return f.add(ctx, domain, login, password)
}

func (f *fakeAPI) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	return nil, pddErr(apiclient.OpDomainStatus, apiclient.ClassRefused, apiclient.ReasonNotFound, "no_domain", "not in this fake")
}

func (f *fakeAPI) MailHosts() apiclient.MailDNS {
	return pdd.Hosts()
}

func (f *fakeAPI) MailDNS(context.Context, string) (*apiclient.MailDNS, error) {
	h := pdd.Hosts()
	return &h, nil
}

func (f *fakeAPI) SetPassword(context.Context, string, string, string, bool) (*apiclient.Mailbox, error) {
	return nil, pddErr(apiclient.OpReset, apiclient.ClassRefused, apiclient.ReasonNotFound, "no_login", "not in this fake")
}

func (f *fakeAPI) SetLoginEnabled(context.Context, string, string, bool) (*apiclient.Mailbox, error) {
	return nil, pddErr(apiclient.OpBlock, apiclient.ClassRefused, apiclient.ReasonNotFound, "no_login", "not in this fake")
}

func (f *fakeAPI) LookupMailbox(context.Context, string, string) (*apiclient.Mailbox, error) {
	f.calls.Add(1)
	return nil, pddErr(apiclient.OpLookup, apiclient.ClassRefused, apiclient.ReasonNotFound, "no_login", "not in this fake")
}

func (f *fakeAPI) ListMailboxes(context.Context, string, string, int) (*apiclient.Page, error) {
	return &apiclient.Page{}, nil
}

// pddErr is a failure as the PDD adapter reports it.
func pddErr(op apiclient.Op, class apiclient.Class, reason apiclient.Reason, code, message string) *apiclient.Error {
	return &apiclient.Error{Provider: apiclient.ProviderPDD, Op: op, Class: class, Reason: reason, Code: code, Message: message, Attempts: 1}
}

// withAttempts sets e's count of attempts.
func withAttempts(e *apiclient.Error, n int) *apiclient.Error {
	e.Attempts = n
	return e
}

// auditUID is an audit entry's uid as the core's notice spells it.

// clockStart is the fake clock's first reading (testkit.NewClock).
var clockStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// noStore is a Store that must not be used: it embeds the nil interface,
// so any call panics. A core built on it proves that what the test calls
// (Decide, SubmitForm, EncodePending…) is pure.
type noStore struct{ Store }

// noMessenger is a Messenger that must not be used: any call panics.
type noMessenger struct{ Messenger }

// auditStore is a Store that knows only the audit trail of runs (Begin
// and Complete); any other call panics. It lets a test call the core's
// run without the request flow.
type auditStore struct {
	Store
	mu      sync.Mutex
	entries []AuditEntry
}

func (s *auditStore) Begin(_ context.Context, e AuditEntry) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.ID = int64(len(s.entries) + 1)
	s.entries = append(s.entries, e)
	return e.ID, nil
}

func (s *auditStore) Complete(_ context.Context, id int64, e AuditEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.entries[id-1]
	a.Outcome, a.Status, a.Stage, a.UID, a.Code = e.Outcome, e.Status, e.Stage, e.UID, e.Code
	return nil
}

func (s *auditStore) all() []AuditEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]AuditEntry(nil), s.entries...)
}

// newCore returns a pure core on api with cfg: its store and messenger
// panic if used. Admins default to UADMIN1 and UADMIN2.
func newCore(t testing.TB, api Provider, cfg Config) *Core {
	t.Helper()
	return newCoreOn(t, api, noStore{}, cfg)
}

// newCoreOn is newCore on store.
func newCoreOn(t testing.TB, api Provider, store Store, cfg Config) *Core {
	t.Helper()
	if cfg.Admins == nil {
		cfg.Admins = []string{"UADMIN1", "UADMIN2"}
	}
	c, err := New(api, store, noMessenger{}, cfg, zap.NewNop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// golden compares got with testdata/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./commands -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// pddDomain is domain in PDD's status s, as PDD's adapter gives it.
func pddDomain(domain, s string) *apiclient.Domain {
	return &apiclient.Domain{Name: domain, Status: s, Meaning: pdd.Status(s).Meaning(),
		Verified: s != pdd.StatusDomainActivate, MailFlows: s == pdd.StatusAdded}
}

// resolved is what ResolveMailbox answers for a fake whose LookupMailbox
// answered m or err: the mailbox itself, no alias, no administrator.
func resolved(m *apiclient.Mailbox, err error) (*apiclient.Resolved, error) {
	if err != nil {
		return nil, err
	}
	return &apiclient.Resolved{Mailbox: *m}, nil
}

func (f *fakeAPI) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	return resolved(f.LookupMailbox(ctx, domain, login))
}
