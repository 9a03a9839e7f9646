package bot_test

// The harness runs mailbot's Slack adapter the way `mailbot serve` does, over
// real protocols on loopback: the real socketmode and Web API clients of
// slack-go against the fake Slack (bot/slackfake), the real PDD client
// against the sandbox (apiclient/pddsim) over HTTP, and the real core
// (commands.New) on a commands.Store.
//
// An env is one test's world: the fake Slack, the sandbox, the store, the
// signing key and a log sink. A replica is one mailbot process in it: its own
// slack.Client, socketmode client (one connection to the fake), Messenger,
// core and bot.Bot, started with bot.Run. Any number of replicas may run in
// one env; they share the store, the sandbox, the fake and the signing key,
// exactly as replicas share a database and a Slack app.
//
//	h := newHarness(t, withApprovals(commands.ApprovalsRequests))  // env + one replica, h.r
//	id, ack := h.command(stranger, "/mailbox", "add alice@example.com")
//	res := h.result(id)                     // its first response_url post
//	r2 := h.start(withSweep(50 * time.Millisecond))  // a second replica: h's options, then these
//	h.slack.Via(r2.conn).Click(...)         // an envelope to that replica's connection
//	r2.stop()                               // cancel its Run and wait for it to return
//
// Options set a replica's configuration: the core's policy (withApprovals,
// withAdmins with user IDs and S… user groups, withApprovalsRequired,
// withRemind, withTTL, withDomains, withDefaultDomain, withClock, withDNS,
// withDNSTimeout), the bot's (withBotConfig for Concurrency, MaxQueue,
// WorkTimeout, ShutdownTimeout, CloseSocketFirst…; withSweep, default
// never; withGroupRefresh) and the messenger's (withOps, default COPS).
// Options given to newHarness or newEnv are every replica's; those given
// to start come after them, for that replica alone. withStore given to
// newEnv is every replica's store (default a memstore), given to start
// that replica's alone (a restart without a database is a replica on a new
// memstore); withSimWrap (a handler in front of the sandbox) counts only
// in newEnv. A replica whose admins name user groups reads them with
// bot.Groups before it starts, as serve does; env.tryStart returns that
// error instead of failing the test. Every replica is stopped when the
// test ends; r.cancel and r.wait stop one in two steps.
//
// The options live in options_test.go. Helpers order events without
// sleeping: env.holdRequests holds the sandbox's requests until the test
// lets them through (gate.next, gate.allow, gate.release); ask, click and
// decide drive approvals (drive_test.go); openForm and submit forms
// (forms_test.go); openHome and waitHome the Home tab (home_test.go); the
// fake's Wait* helpers and Wait(cond) the rest.
//
// Every env checks, when its test ends and after every replica stopped, that
// Slack refused nothing (slackfake.Rejected) and that no password or
// verification secret that went through the sandbox shows in a log line,
// in the audit trail of any store a replica used, in anything public, or
// privately to anyone but the person who asked for the operation (the
// actor of its audit entries); and no token in a log line (secrets_test.go).

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/internal/testkit"
)

// Users and channels of the tests.
const (
	admin    = "UADMIN1"
	admin2   = "UADMIN2"
	stranger = "USTRANGER"
	general  = "CGENERAL"
	ops      = "COPS"
)

// wait bounds every wait of a test: far above what anything takes.
const wait = 10 * time.Second

// env is one test's world; see the top of this file.
type env struct {
	t       testing.TB
	slack   *slackfake.Server
	sim     *pddsim.Server
	simURL  string
	token   string           // the bot's PDD token
	store   commands.Store   // the replicas' store unless they are given another
	stores  []commands.Store // every store a replica used, for the checks
	logs    *testkit.Buffer
	logger  *zap.Logger
	key     []byte
	secrets *secretLog
	base    []option // every replica's options, before its own

	mu       sync.Mutex
	replicas []*replica
}

// newEnv starts a fake Slack and a sandbox; opts are every replica's
// defaults (withStore and withSimWrap are read here).
func newEnv(t testing.TB, opts ...option) *env {
	t.Helper()
	var s settings
	for _, o := range opts {
		o(&s)
	}
	e := &env{t: t, slack: slackfake.New(), sim: pddsim.New(), logs: &testkit.Buffer{}, key: []byte("test signing key"),
		secrets: &secretLog{}, base: opts, store: s.store}
	t.Cleanup(e.slack.Close)
	e.logger = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(e.logs), zapcore.DebugLevel))
	if e.store == nil {
		e.store = memstore.New(memstore.Options{})
	}
	var h http.Handler = e.secrets.record(e.sim)
	if s.simWrap != nil {
		h = s.simWrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e.simURL = srv.URL
	e.token = e.sim.NewAccount()
	t.Cleanup(e.check) // runs after every replica's stop, registered later
	return e
}

// defaults are a replica's settings before options.
func (e *env) defaults() settings {
	return settings{
		core: commands.Config{Admins: []string{admin, admin2}, SigningKey: e.key,
			Mention: bot.Mention, MentionGroup: bot.MentionGroup},
		bot:   bot.Config{ShutdownTimeout: 5 * time.Second, WorkTimeout: 20 * time.Second, SweepEvery: -1, APIURL: e.slack.URL},
		ops:   ops,
		retry: apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	}
}

// replica is one running mailbot; see the top of this file.
type replica struct {
	env    *env
	name   string
	bot    *bot.Bot
	core   *commands.Core
	reg    *metrics.Registry
	conn   int // its connection's id on the fake (slackfake.Server.Via)
	cancel context.CancelFunc
	done   chan error

	once sync.Once
	err  error
}

// start starts a replica with the env's options, then opts, and waits
// until its socket is connected and it takes work.
func (e *env) start(opts ...option) *replica {
	e.t.Helper()
	r, err := e.tryStart(opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// tryStart is start that returns a start-up failure (a user group that
// cannot be read) instead of failing the test.
func (e *env) tryStart(opts ...option) (*replica, error) {
	t := e.t
	t.Helper()
	s := e.defaults()
	for _, o := range append(slices.Clone(e.base), opts...) {
		o(&s)
	}
	e.mu.Lock()
	name := "r" + string(rune('1'+len(e.replicas)))
	e.mu.Unlock()
	logger := e.logger.Named(name)
	provider, err := pdd.NewAdapter(e.simURL, e.token, apiclient.WithRetry(s.retry))
	if err != nil {
		t.Fatal(err)
	}
	api := slack.New(slackfake.BotToken, slack.OptionAppLevelToken(slackfake.AppToken), slack.OptionAPIURL(e.slack.URL))
	reg := metrics.NewRegistry()
	bm := bot.NewMetrics(reg)
	groups, err := loadGroups(t, api, s, logger, bm)
	if err != nil {
		return nil, err
	}
	if groups != nil {
		s.core.InGroup = groups.Contains
	}
	msgr := bot.NewMessenger(api, bot.MessengerConfig{OpsChannel: s.ops, APIURL: e.slack.URL, BotToken: slackfake.BotToken}, logger, bm)
	s.core.People, s.core.OnHandover = bot.NewPeople(api, slackfake.TeamID), bm.Handover
	store := cmp.Or[commands.Store](s.store, e.store)
	core, err := commands.New(provider, store, msgr, s.core, logger)
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{env: e, name: name, core: core, reg: reg, done: make(chan error, 1)}
	r.bot = bot.New(api, socketmode.New(api), core, msgr, groups, s.bot, logger, bm)
	before := e.slack.Socket.ConnIDs()
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- r.bot.Run(ctx) }()
	t.Cleanup(func() { _ = r.stop() })
	e.mu.Lock()
	e.replicas = append(e.replicas, r)
	if !slices.Contains(e.stores, store) {
		e.stores = append(e.stores, store)
	}
	e.mu.Unlock()
	if err := e.slack.Wait(wait, name+" connected and ready", func() bool {
		for _, id := range e.slack.Socket.ConnIDs() {
			if !slices.Contains(before, id) {
				r.conn = id
			}
		}
		return r.conn != 0 && r.bot.Ready()
	}); err != nil {
		t.Fatal(err)
	}
	return r, nil
}

// loadGroups reads the admin user groups of s, as serve does before it
// starts; nil when the admins name none.
func loadGroups(t testing.TB, api *slack.Client, s settings, logger *zap.Logger, m *bot.Metrics) (*bot.Groups, error) {
	var ids []string
	for _, a := range s.core.Admins {
		if commands.IsGroupID(a) {
			ids = append(ids, a)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	g := bot.NewGroups(api, ids, s.groupEvery, logger.Named("groups"), m)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return g, g.Load(ctx)
}

// stop cancels the replica's Run and returns what it returned; it may be
// called again and returns the same.
func (r *replica) stop() error {
	r.cancel()
	return r.wait()
}

// wait waits for Run to return after the replica's context ended.
func (r *replica) wait() error {
	r.once.Do(func() {
		select {
		case r.err = <-r.done:
		case <-time.After(60 * time.Second):
			r.env.t.Errorf("%s did not stop within 60s", r.name)
		}
	})
	return r.err
}

// harness is an env with its first replica, r, for tests of one mailbot.
type harness struct {
	*env
	r *replica
}

// newHarness starts an env and one replica with opts.
func newHarness(t testing.TB, opts ...option) *harness {
	t.Helper()
	e := newEnv(t, opts...)
	return &harness{env: e, r: e.start()}
}

// command sends a slash command typed in general and waits for its ack.
func (e *env) command(user, cmd, text string) (string, slackfake.Ack) {
	e.t.Helper()
	return e.commandVia(e.slack.Via(0), user, cmd, text)
}

// commandVia sends a slash command through one sender and waits for its ack.
func (e *env) commandVia(via slackfake.Sender, user, cmd, text string) (string, slackfake.Ack) {
	e.t.Helper()
	id, err := via.SlashCommand(user, general, cmd, text)
	if err != nil {
		e.t.Fatal(err)
	}
	ack, err := e.slack.Socket.WaitAck(id, wait)
	if err != nil {
		e.t.Fatal(err)
	}
	return id, ack
}

// result waits for the first response_url post of an envelope.
func (e *env) result(id string) message {
	e.t.Helper()
	posts, err := e.slack.WaitPosts(id, 1, wait)
	if err != nil {
		e.t.Fatal(err)
	}
	return decodeMessage(e.t, posts[0].Raw)
}

// ownDomain registers domain in the sandbox for the bot's PDD account, as
// an operator would have done before, so that mailboxes can be added.
func (e *env) ownDomain(domain string) {
	e.t.Helper()
	if _, err := e.pdd().RegisterDomain(context.Background(), domain); err != nil {
		e.t.Fatal(err)
	}
}

// pdd is a PDD adapter of the bot's account, for the test's own calls.
func (e *env) pdd() *pdd.Adapter {
	c, err := pdd.NewAdapter(e.simURL, e.token)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}
