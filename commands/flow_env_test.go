package commands_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/testkit"
)

// The people of the flow tests.
const (
	admin1 = "UADMIN1"
	admin2 = "UADMIN2"
	admin3 = "UADMIN3"
	user1  = "UUSER1"
	user2  = "UUSER2"
)

// start is the fake clock's first reading; the clock (testkit.Clock) is
// the flow's only time source.
var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeProvider is a hand-written fake of a Provider in PDD's shape: func
// fields and a count of calls. Without a func, register answers
// domain-activate with secrets and add creates the mailbox, keeping the
// password it was sent; a mailbox it created can be looked up.
type fakeProvider struct {
	register func(ctx context.Context, domain string) (*apiclient.Domain, error)
	add      func(ctx context.Context, domain, login, password string) (*apiclient.Mailbox, error)
	lookup   func(ctx context.Context, domain, login string) (*apiclient.Mailbox, error)
	calls    atomic.Int64
	mu       sync.Mutex
	sent     []string // passwords sent to AddMailbox
}

var _ commands.Provider = (*fakeProvider)(nil)

// The verification secrets fakeProvider answers.
const (
	secretName    = "3c8a1f2e9b7d"
	secretContent = "5f0e9d8c7b6a5f4e3d2c1b0a"
)

func (f *fakeProvider) Name() string { return apiclient.ProviderPDD }

func (f *fakeProvider) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: "the PDD API", UIDs: true, Paged: true, VerifiesOwnership: true}
}

func (f *fakeProvider) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	f.calls.Add(1)
	if f.register != nil {
		return f.register(ctx, domain)
	}
	return &apiclient.Domain{Name: domain, Status: pdd.StatusDomainActivate, Meaning: pdd.Status(pdd.StatusDomainActivate).Meaning(), Stage: "owner-check",
		Secrets: pdd.SecretsOf(domain, secretName, secretContent)}, nil
}

func (f *fakeProvider) AddMailbox(ctx context.Context, domain, login, password string, _ bool) (*apiclient.Mailbox, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.sent = append(f.sent, password)
	f.mu.Unlock()
	if f.add != nil {
		return f.add(ctx, domain, login, password)
	}
	return &apiclient.Mailbox{Address: login + "@" + domain, UID: "1130000000000042", State: apiclient.StateActive}, nil
}

func (f *fakeProvider) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	f.calls.Add(1)
	if f.lookup != nil {
		return f.lookup(ctx, domain, login)
	}
	return nil, notFound(apiclient.OpLookup)
}

func (f *fakeProvider) DomainStatus(context.Context, string) (*apiclient.Domain, error) {
	return nil, notFound(apiclient.OpDomainStatus)
}

func (f *fakeProvider) MailHosts() apiclient.MailDNS {
	return pdd.Hosts()
}

func (f *fakeProvider) MailDNS(context.Context, string) (*apiclient.MailDNS, error) {
	h := pdd.Hosts()
	return &h, nil
}

func (f *fakeProvider) SetPassword(context.Context, string, string, string, bool) (*apiclient.Mailbox, error) {
	return nil, notFound(apiclient.OpReset)
}

func (f *fakeProvider) SetLoginEnabled(context.Context, string, string, bool) (*apiclient.Mailbox, error) {
	return nil, notFound(apiclient.OpBlock)
}

func (f *fakeProvider) ListMailboxes(context.Context, string, string, int) (*apiclient.Page, error) {
	return &apiclient.Page{}, nil
}

// notFound is PDD's answer for a mailbox it does not have.
func notFound(op apiclient.Op) error {
	return &apiclient.Error{Provider: apiclient.ProviderPDD, Op: op, Class: apiclient.ClassRefused, Reason: apiclient.ReasonNotFound, Code: "no_login", Attempts: 1}
}

// passwords returns the passwords sent to AddMailbox.
func (f *fakeProvider) passwords() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

// sandbox is the PDD sandbox served over HTTP on loopback, and a real
// client of it with fast retries.
type sandbox struct {
	sim    *pddsim.Server
	client *pdd.Adapter
}

// newSandbox starts a sandbox whose account owns example.com.
func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	sim := pddsim.New()
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	c, err := pdd.NewAdapter(ts.URL, sim.NewAccount(),
		apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RegisterDomain(t.Context(), "example.com"); err != nil {
		t.Fatalf("RegisterDomain(example.com) on the sandbox: %v", err)
	}
	return &sandbox{sim: sim, client: c}
}

// adds is how many email/add requests reached the sandbox.
func (s *sandbox) adds() int { return s.sim.Requests(pddsim.OpAddMailbox) }

// env is a core with a recording messenger, an in-memory store and a fake
// clock.
type env struct {
	t     testing.TB
	core  *commands.Core
	msgr  *recMessenger
	store commands.Store
	mem   *memstore.Store
	clk   *testkit.Clock
	logs  *observer.ObservedLogs
	cfg   commands.Config
}

// testKey signs the requests of every env, so that a second env plays a
// restarted mailbot.
var testKey = []byte("flow-test-key")

// newEnv returns an env on api. cfg's zero fields get: admins UADMIN1-3,
// the signing key, the fake clock, and mentions as Slack writes them.
// wrap, if not nil, wraps the memory store (to make it fail).
func newEnv(t testing.TB, api commands.Provider, cfg commands.Config, wrap func(commands.Store) commands.Store) *env {
	t.Helper()
	r, err := commands.NewRouter(api)
	if err != nil {
		t.Fatalf("commands.NewRouter: %v", err)
	}
	return newRoutedEnv(t, r, cfg, wrap)
}

// newRoutedEnv is newEnv with several providers, as r routes domains.
func newRoutedEnv(t testing.TB, r *commands.Router, cfg commands.Config, wrap func(commands.Store) commands.Store) *env {
	t.Helper()
	clk := testkit.NewClock(start)
	if cfg.Admins == nil {
		cfg.Admins = []string{admin1, admin2, admin3}
	}
	if cfg.SigningKey == nil {
		cfg.SigningKey = testKey
	}
	cfg.Now = clk.Now
	if cfg.Mention == nil {
		cfg.Mention = func(id string) string { return "<@" + id + ">" }
	}
	if cfg.MentionGroup == nil {
		cfg.MentionGroup = func(id string) string { return "<!subteam^" + id + ">" }
	}
	mem := memstore.New(memstore.Options{Now: clk.Now})
	var store commands.Store = mem
	if wrap != nil {
		store = wrap(mem)
	}
	obs, logs := observer.New(zapcore.DebugLevel)
	msgr := &recMessenger{t: t}
	core, err := commands.NewRouted(r, store, msgr, cfg, zap.New(obs))
	if err != nil {
		t.Fatalf("commands.NewRouted: %v", err)
	}
	return &env{t: t, core: core, msgr: msgr, store: store, mem: mem, clk: clk, logs: logs, cfg: cfg}
}

// typed has user type "/command text" in channel C1 and carries out the
// decision; it returns the decision and Execute's label.
func (e *env) typed(user, line string) (commands.Decision, string) {
	e.t.Helper()
	cmd, text, _ := strings.Cut(line, " ")
	d := e.core.Decide(commands.Request{UserID: user, ChannelID: "C1", Command: cmd, Text: text})
	return d, e.core.Execute(e.t.Context(), commands.Route{User: user, Channel: "C1"}, d)
}

// request has user ask for line and returns the request and its message.
func (e *env) request(user, line string) (commands.Pending, commands.MessageRef) {
	e.t.Helper()
	d, label := e.typed(user, line)
	if d.Step != commands.StepApproval || label != commands.LabelRequested {
		e.t.Fatalf("%s typed %q: outcome %v, label %q; want an approval request", user, line, d.Step, label)
	}
	post, ok := e.msgr.last("post")
	if !ok || post.View.Pending.ID != d.Pending.ID {
		e.t.Fatalf("request %s was not posted for the admins: %+v", d.Pending.ID, post)
	}
	return *d.Pending, post.Ref
}

// click has user click kind on p's request message at ref (zero: from
// the Home tab or the requester's notice) and returns the label.
func (e *env) click(kind commands.ButtonKind, p commands.Pending, user string, ref commands.MessageRef) string {
	e.t.Helper()
	return e.clickValue(kind, e.core.EncodePending(p), user, ref)
}

// clickValue is click with a button value as the transport hands it back.
func (e *env) clickValue(kind commands.ButtonKind, value, user string, ref commands.MessageRef) string {
	return e.core.Click(e.t.Context(), commands.Click{Kind: kind, Value: value, User: user,
		Route: commands.Route{User: user, Channel: "COPS", Handle: "https://hooks.example/" + user}, Message: ref})
}

// audit returns the audit trail, oldest first.
func (e *env) audit() []commands.AuditEntry {
	e.t.Helper()
	entries, err := e.mem.Audit(context.Background(), time.Time{}, 0, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return entries
}

// record returns the store's record of the request id.
func (e *env) record(id string) commands.Record {
	e.t.Helper()
	rec, ok, err := e.mem.Get(context.Background(), id)
	if err != nil || !ok {
		e.t.Fatalf("Get(%s) = %v, %v", id, ok, err)
	}
	return rec
}

// noSecrets fails the test if any message that is not the requester's
// private answer, any audit entry or any log line holds one of secrets:
// ops notices, request messages, reminders, answers to anyone else.
func (e *env) noSecrets(requester string, secrets ...string) {
	e.t.Helper()
	e.noSecretsFor([]string{requester}, secrets...)
}

// noSecretsFor is noSecrets with several people who asked.
func (e *env) noSecretsFor(requesters []string, secrets ...string) {
	e.t.Helper()
	var public []string
	for _, c := range e.msgr.all() {
		if c.Kind == "deliver" && slices.Contains(requesters, c.Route.User) {
			continue
		}
		public = append(public, fmt.Sprintf("%s %+v", c.Kind, c))
	}
	for _, a := range e.audit() {
		public = append(public, fmt.Sprintf("audit %+v", a))
	}
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	for _, l := range e.logs.All() {
		b, err := enc.EncodeEntry(l.Entry, l.Context)
		if err != nil {
			e.t.Fatal(err)
		}
		public = append(public, "log "+b.String())
	}
	for _, s := range secrets {
		if s == "" {
			e.t.Fatal("noSecrets: an empty secret")
		}
		for _, p := range public {
			if strings.Contains(p, s) {
				e.t.Errorf("a secret appears outside the requester's answer: %s", p)
			}
		}
	}
}

// errDown is what a store answers when its database is unreachable.
var errDown = fmt.Errorf("dial tcp 127.0.0.1:5432: connection refused: %w", commands.ErrStoreUnavailable)

// downStore wraps a store and fails the methods named in down with an
// error wrapping commands.ErrStoreUnavailable, as a database store does
// during an outage. durable says what Durable reports.
type downStore struct {
	commands.Store
	durable bool
	mu      sync.Mutex
	down    map[string]bool
}

// newDownEnv is newEnv on a downStore (durable or not) around the memory
// store, with nothing down yet.
func newDownEnv(t testing.TB, api commands.Provider, cfg commands.Config, durable bool) (*env, *downStore) {
	t.Helper()
	var ds *downStore
	e := newEnv(t, api, cfg, func(s commands.Store) commands.Store {
		ds = newDownStore(durable)(s).(*downStore)
		return ds
	})
	return e, ds
}

func newDownStore(durable bool, methods ...string) func(commands.Store) commands.Store {
	return func(s commands.Store) commands.Store {
		d := &downStore{Store: s, durable: durable, down: map[string]bool{}}
		d.set(true, methods...)
		return d
	}
}

// set takes the methods down (or brings them back).
func (d *downStore) set(down bool, methods ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range methods {
		d.down[m] = down
	}
}

func (d *downStore) fails(method string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.down[method] || d.down["*"]
}

func (d *downStore) Durable() bool { return d.durable }

func (d *downStore) Submit(ctx context.Context, p commands.Pending) error {
	if d.fails("Submit") {
		return errDown
	}
	return d.Store.Submit(ctx, p)
}

func (d *downStore) Attach(ctx context.Context, id string, ref commands.MessageRef) error {
	if d.fails("Attach") {
		return errDown
	}
	return d.Store.Attach(ctx, id, ref)
}

func (d *downStore) Get(ctx context.Context, id string) (commands.Record, bool, error) {
	if d.fails("Get") {
		return commands.Record{}, false, errDown
	}
	return d.Store.Get(ctx, id)
}

func (d *downStore) Approve(ctx context.Context, p commands.Pending, approver string, need int, now time.Time) (commands.Record, commands.ApproveResult, error) {
	if d.fails("Approve") {
		return commands.Record{}, 0, errDown
	}
	return d.Store.Approve(ctx, p, approver, need, now)
}

func (d *downStore) End(ctx context.Context, p commands.Pending, to commands.State, by string, now time.Time) (commands.Record, bool, error) {
	if d.fails("End") {
		return commands.Record{}, false, errDown
	}
	return d.Store.End(ctx, p, to, by, now)
}

func (d *downStore) Finish(ctx context.Context, id string, to commands.State, outcome string, now time.Time) error {
	if d.fails("Finish") {
		return errDown
	}
	return d.Store.Finish(ctx, id, to, outcome, now)
}

func (d *downStore) Pending(ctx context.Context, requester string, limit int) ([]commands.Record, error) {
	if d.fails("Pending") {
		return nil, errDown
	}
	return d.Store.Pending(ctx, requester, limit)
}

func (d *downStore) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	if d.fails("ClaimExpired") {
		return nil, errDown
	}
	return d.Store.ClaimExpired(ctx, now, limit)
}

func (d *downStore) ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]commands.Record, error) {
	if d.fails("ClaimReminders") {
		return nil, errDown
	}
	return d.Store.ClaimReminders(ctx, cutoff, now, limit)
}

func (d *downStore) Begin(ctx context.Context, e commands.AuditEntry) (int64, error) {
	if d.fails("Begin") {
		return 0, errDown
	}
	return d.Store.Begin(ctx, e)
}

func (d *downStore) Complete(ctx context.Context, id int64, e commands.AuditEntry) error {
	if d.fails("Complete") {
		return errDown
	}
	return d.Store.Complete(ctx, id, e)
}

func (d *downStore) AppendAudit(ctx context.Context, e commands.AuditEntry) error {
	if d.fails("AppendAudit") {
		return errDown
	}
	return d.Store.AppendAudit(ctx, e)
}

func (d *downStore) Audit(ctx context.Context, since time.Time, limit int, newestFirst bool) ([]commands.AuditEntry, error) {
	if d.fails("Audit") {
		return nil, errDown
	}
	return d.Store.Audit(ctx, since, limit, newestFirst)
}

// errNotDelivered is the recording messenger's failure to deliver.
var errNotDelivered = errors.New("no route reached the person: response_url expired, chat.postEphemeral not_in_channel")

// ResolveMailbox answers as lookup does; without it, every address is a
// plain, active mailbox of its own (as SetPassword and SetLoginEnabled
// take any), and the call is not counted.
func (f *fakeProvider) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	if f.lookup != nil {
		return resolved(f.lookup(ctx, domain, login))
	}
	return &apiclient.Resolved{Mailbox: apiclient.Mailbox{Address: login + "@" + domain, State: apiclient.StateActive}}, nil
}

// resolved is what ResolveMailbox answers for a fake whose LookupMailbox
// answered m or err: the mailbox itself, no alias, no administrator.
func resolved(m *apiclient.Mailbox, err error) (*apiclient.Resolved, error) {
	if err != nil {
		return nil, err
	}
	return &apiclient.Resolved{Mailbox: *m}, nil
}
