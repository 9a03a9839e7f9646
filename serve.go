package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/commands/meteredstore"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/providers"
)

// runServe runs the Slack bot until ctx ends.
func runServe(ctx context.Context, cfg *config.Config, logger *zap.Logger, stdout io.Writer) error {
	if u := cfg.UnusedVars(); u != "" {
		logger.Warn(u)
	}
	if err := cfg.RequireServe(); err != nil {
		return err
	}
	// Every series exists before the listener is up: while serve waits for
	// Slack or its database, /metrics shows the socket and the database down.
	ms := newServeMetrics(cfg.Provider, cfg.DatabaseURL.Reveal() != "", cfg.Selected()...)
	var ready atomic.Pointer[bot.Bot]
	stopHTTP, err := listenHealth(ctx, cfg, &ready, ms, logger)
	if err != nil {
		return err
	}
	defer stopHTTP()
	d, closeStore, err := serveParts(ctx, cfg, ms, logger)
	if err != nil || d == nil {
		return err
	}
	defer closeStore()
	b, err := newServeBot(ctx, cfg, d, ms, logger)
	if err != nil {
		return err
	}
	ready.Store(b)
	logger.Info("starting", zap.String("team", d.auth.Team), zap.String("bot_user_id", d.auth.UserID),
		zap.String("approvals", cfg.Approvals), zap.Int("admins", len(cfg.Admins)), zap.Bool("database", d.store.Durable()))
	if err := b.Run(ctx); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// listenHealth starts the health and metrics listener of MAILBOT_HTTP_ADDR,
// ready once ready holds a bot that says so; without an address it starts
// nothing. stop closes the listener.
func listenHealth(ctx context.Context, cfg *config.Config, ready *atomic.Pointer[bot.Bot], ms *serveMetrics, logger *zap.Logger) (stop func(), err error) {
	if cfg.HTTPAddr == "" {
		return func() {}, nil
	}
	isReady := func() bool { b := ready.Load(); return b != nil && b.Ready() }
	return listenHTTP(ctx, cfg.HTTPAddr, isReady, ms.reg, logger)
}

// serveDeps are what the bot is built from: the metered providers, the
// Slack client and the identity Slack authenticated it as, and the store.
type serveDeps struct {
	router  *commands.Router
	api     *bot.Client
	apiHTTP *http.Client // api's HTTP client
	auth    *bot.Auth
	store   commands.Store
}

// serveParts checks the provider, authenticates with Slack and opens the
// store, in that order. It returns nil parts and no error when ctx ends
// on the way; closeStore closes the store.
func serveParts(ctx context.Context, cfg *config.Config, ms *serveMetrics, logger *zap.Logger) (_ *serveDeps, closeStore func(), _ error) {
	router, err := serveRouter(ctx, cfg, ms, logger)
	if err != nil || ctx.Err() != nil {
		return nil, nil, err
	}
	api, apiHTTP, auth, err := slackAuth(ctx, cfg, logger)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	store, closeStore, err := openStore(ctx, cfg, logger)
	if err != nil || ctx.Err() != nil {
		return nil, nil, err
	}
	if ms.databaseUp != nil {
		store = meteredstore.New(store, ms.databaseUp)
	}
	return &serveDeps{router: router, api: api, apiHTTP: apiHTTP, auth: auth, store: store}, closeStore, nil
}

// serveRouter is every provider in use (MAILBOT_PROVIDER and those
// MAILBOT_ROUTES names), each started and checked as it would be alone,
// routed by domain. One that cannot start stops start-up, naming it.
// Once they are checked, it returns to the system the memory the checks
// left behind if any of them made a request (releaseCheckMemory).
func serveRouter(ctx context.Context, cfg *config.Config, ms *serveMetrics, logger *zap.Logger) (*commands.Router, error) {
	byName := map[string]commands.Provider{}
	var dialled atomic.Bool
	for _, name := range cfg.Selected() {
		p, err := serveProvider(ctx, providers.As(cfg, name), ms.providers[name], &dialled, logger)
		if err != nil || ctx.Err() != nil {
			if err != nil && len(cfg.Selected()) > 1 {
				err = fmt.Errorf("provider %s: %w", name, err)
			}
			return nil, err
		}
		byName[name] = p
	}
	if dialled.Load() {
		releaseCheckMemory()
	}
	return providers.Router(cfg, byName)
}

// serveProvider is cfg's provider, metered, once its start-up
// check passed; it logs the provider's start-up warnings. dialled turns
// true when its client opens a connection.
func serveProvider(ctx context.Context, cfg *config.Config, pm *providers.Metrics, dialled *atomic.Bool, logger *zap.Logger) (commands.Provider, error) {
	// Only the command workers call the provider, one request each at a
	// time: with as many connections as workers, a request waits for one
	// on its way back to the pool instead of dialling a spare, whose TLS
	// handshake costs CPU (BenchmarkRelease's tls-conns).
	upstream := apiclient.NewTransport(cfg.Concurrency)
	upstream.MaxConnsPerHost = cfg.Concurrency
	noteDials(upstream, dialled)
	provider, err := providers.New(cfg, apiclient.WithTimeout(cfg.ProviderTimeout), apiclient.WithUserAgent("mailbot/"+versionLine()),
		apiclient.WithTransport(upstream), apiclient.WithRetryHook(pm.CountRetry))
	if err != nil {
		return nil, err
	}
	provider = pm.Meter(provider) // the start-up check counts too
	if err := providers.Check(ctx, cfg, provider, logger); err != nil || ctx.Err() != nil {
		return nil, err
	}
	pm.Up()
	if w, ok := providers.Unwrap(provider).(interface{ StartWarnings() []string }); ok {
		for _, line := range w.StartWarnings() {
			logger.Warn(line, zap.String("provider", cfg.Provider))
		}
	}
	return provider, nil
}

// noteDials makes t set dialled whenever it dials a connection.
func noteDials(t *http.Transport, dialled *atomic.Bool) {
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialled.Store(true)
		return dial(ctx, network, addr)
	}
}

// releaseCheckMemory returns to the system the garbage of a start-up
// check that went over HTTPS: loading the system's certificate
// authorities for the first handshake parses every one of them and
// leaves about 2 MiB of the heap idle but resident (Google's and Yandex
// 360's idle RSS 1.6 MiB above PDD's, whose check makes no request).
// Without a request it would cost a collection and about 0.4 MiB of the
// collector's own memory for nothing, so it runs only after one.
var releaseCheckMemory = debug.FreeOSMemory

// slackAuth is the Slack client of the bot's tokens and its HTTP client,
// and who Slack says the bot is.
func slackAuth(ctx context.Context, cfg *config.Config, logger *zap.Logger) (*bot.Client, *http.Client, *bot.Auth, error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: apiclient.NewTransport(cfg.Concurrency)}
	api := bot.NewClient(cfg.SlackBotToken.Reveal(), cfg.SlackAppToken.Reveal(), cfg.SlackAPIURL, hc, logger)
	auth, err := bot.CheckAuth(ctx, api, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	return api, hc, auth, nil
}

// newServeBot builds the core and the bot around it from d.
func newServeBot(ctx context.Context, cfg *config.Config, d *serveDeps, ms *serveMetrics, logger *zap.Logger) (*bot.Bot, error) {
	groups, err := loadGroups(ctx, cfg, d.api, ms, logger)
	if err != nil {
		return nil, err
	}
	// response_url posts go to hooks.slack.com: a pool of their own.
	hooks := &http.Client{Timeout: 10 * time.Second, Transport: apiclient.NewTransport(cfg.Concurrency)}
	msgr := bot.NewMessenger(d.api, bot.MessengerConfig{OpsChannel: cfg.OpsChannel, HTTPClient: hooks,
		APIURL: cfg.SlackAPIURL, BotToken: cfg.SlackBotToken.Reveal(), APIClient: d.apiHTTP}, logger, ms.bot)
	core, err := commands.NewRouted(d.router, d.store, msgr, serveCoreConfig(cfg, d, ms, groups), logger)
	if err != nil {
		return nil, err
	}
	sm := bot.NewSocket(d.api, logger)
	return bot.New(d.api, sm, core, msgr, groups, bot.Config{
		Concurrency:      cfg.Concurrency,
		ShutdownTimeout:  cfg.ShutdownTimeout,
		WorkTimeout:      workTimeout(cfg.ProviderTimeout),
		CloseSocketFirst: d.store.Durable(),
		SweepEvery:       sweepEvery(cfg.ApprovalTTL, cfg.ApprovalRemind),
		APIURL:           cfg.SlackAPIURL,
	}, logger, ms.bot), nil
}

// loadGroups is the admin user groups, loaded, or nil when none is set.
func loadGroups(ctx context.Context, cfg *config.Config, api *bot.Client, ms *serveMetrics, logger *zap.Logger) (*bot.Groups, error) {
	ids := cfg.AdminGroups()
	if len(ids) == 0 {
		return nil, nil
	}
	groups := bot.NewGroups(api, ids, bot.GroupRefreshEvery, logger.Named("groups"), ms.bot)
	if err := groups.Load(ctx); err != nil {
		return nil, err
	}
	return groups, nil
}

// serveCoreConfig is the core's configuration in serve: Slack's mentions,
// people and admin groups, and the approvals' signing key.
func serveCoreConfig(cfg *config.Config, d *serveDeps, ms *serveMetrics, groups *bot.Groups) commands.Config {
	coreCfg := cfg.CoreConfig()
	coreCfg.Source = commands.SourceSlack
	coreCfg.SigningKey = signingKey(cfg.SlackBotToken)
	coreCfg.Mention, coreCfg.MentionGroup = bot.Mention, bot.MentionGroup
	coreCfg.People, coreCfg.OnHandover = bot.NewPeople(d.api, d.auth.TeamID), ms.bot.Handover
	if groups != nil {
		coreCfg.InGroup, coreCfg.GroupHandle = groups.Contains, groups.Handle
	}
	return coreCfg
}

// attribute returns err naming, where it is about a secret that Slack or
// the provider refused, the variable the operator set: the secret's _FILE
// variant when its value came from a file (loadConfig kept which did).
func attribute(c *config.Config, err error) error {
	var auth *bot.AuthError
	if errors.As(err, &auth) {
		auth.Var = c.Variable(auth.Var)
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		*ce = *c.Attributed(ce)
	}
	return err
}

// listenHTTP serves /healthz, /readyz and /metrics on addr. The listener
// outlives the stop signal, so that /readyz answers 503 while the work in
// flight finishes; stop closes it.
func listenHTTP(ctx context.Context, addr string, ready func() bool, reg *metrics.Registry, logger *zap.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &config.Error{Var: "MAILBOT_HTTP_ADDR", Reason: err.Error()}
	}
	srv := newHTTPServer(addr, ready, reg, logger)
	httpCtx, stopHTTP := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- serveHTTP(httpCtx, srv, ln) }()
	logger.Info("health and metrics listening", zap.String("addr", ln.Addr().String()))
	return func() {
		stopHTTP()
		if err := <-done; err != nil {
			logger.Error("health and metrics listener failed", zap.Error(err))
		}
	}, nil
}

// openStore opens the PostgreSQL store of MAILBOT_DATABASE_URL, retrying
// for up to 30 s while it cannot be reached, or keeps state in memory
// without one.
func openStore(ctx context.Context, cfg *config.Config, logger *zap.Logger) (commands.Store, func(), error) {
	dsn := cfg.DatabaseURL.Reveal()
	if dsn == "" {
		return memstore.New(memstore.Options{}), func() {}, nil
	}
	st, err := pgstore.Open(ctx, dsn, logger.Named("store"), pgstore.WithAuditRetention(cfg.AuditRetention))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil
		}
		return nil, nil, databaseError(cfg, err)
	}
	return st, st.Close, nil
}

// databaseError is err about the database of MAILBOT_DATABASE_URL, under
// the variable the operator set (its _FILE variant when the URL came from
// a file).
func databaseError(c *config.Config, err error) error {
	return fmt.Errorf("%s: %w", c.Variable("MAILBOT_DATABASE_URL"), err)
}

// signingKey derives the key that signs pending approval requests from the
// bot token, so that requests survive a restart and work on any replica
// holding the same token. Rotating the token voids pending requests.
func signingKey(botToken config.Secret) []byte {
	sum := sha256.Sum256([]byte("mailbot approvals v1\x00" + botToken.Reveal()))
	return sum[:]
}

// sweepEvery is how often requests are expired and reminders sent: every
// 20 s (expiry within a minute of the deadline), more often
// when the TTL or the reminder delay is short, never more than once a
// second.
func sweepEvery(ttl, remind time.Duration) time.Duration {
	d := ttl
	if remind > 0 {
		d = min(d, remind)
	}
	return min(max(d/4, time.Second), commands.SweepEvery)
}

// workTimeout bounds one piece of work: the PDD attempts with their
// backoff, and the Slack calls around them.
func workTimeout(pdd time.Duration) time.Duration {
	return 3*pdd + 30*time.Second
}
