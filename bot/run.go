package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// Config is the bot's part of mailbot's configuration.
type Config struct {
	OpsChannel      string        // MAILBOT_OPS_CHANNEL; empty: no notifications
	ApprovalTTL     time.Duration // shown on approval requests
	Concurrency     int           // operations run at once
	MaxQueue        int           // operations accepted and waiting; more are turned away
	WorkTimeout     time.Duration // deadline of one piece of work
	ShutdownTimeout time.Duration // how long work in flight may finish after the stop
	AckTimeout      time.Duration // how long an ack may wait for the socket
	HTTPClient      *http.Client  // for response_url posts
}

func (c *Config) defaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = 1000
	}
	if c.WorkTimeout <= 0 {
		c.WorkTimeout = 2 * time.Minute
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 20 * time.Second
	}
	if c.AckTimeout <= 0 {
		c.AckTimeout = 2 * time.Second
	}
	if c.ApprovalTTL <= 0 {
		c.ApprovalTTL = 24 * time.Hour
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
}

// Bot serves the slash commands over Socket Mode.
type Bot struct {
	api  *slack.Client
	sm   *socketmode.Client
	core *commands.Core
	cfg  Config
	log  *zap.Logger
	m    *Metrics

	sem       chan struct{}
	queued    atomic.Int64
	connected atomic.Bool

	mu       sync.Mutex // guards draining and the Add side of work
	draining bool
	work     sync.WaitGroup
	workCtx  context.Context
}

// New returns a bot that receives events through sm, calls the Web API
// through api and runs commands with core.
func New(api *slack.Client, sm *socketmode.Client, core *commands.Core, cfg Config, logger *zap.Logger, m *Metrics) *Bot {
	cfg.defaults()
	return &Bot{api: api, sm: sm, core: core, cfg: cfg, log: logger, m: m, sem: make(chan struct{}, cfg.Concurrency)}
}

// Ready reports whether the socket is connected and the bot takes work.
func (b *Bot) Ready() bool {
	return b.connected.Load() && !b.isDraining()
}

// AuthError is a token Slack rejected.
type AuthError struct {
	Var  string // the variable holding the token
	Code string // Slack's error, such as invalid_auth
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("%s: Slack rejected the token (%s)", e.Var, e.Code)
}

// fatalAuthCodes are the auth errors that retrying cannot mend.
var fatalAuthCodes = map[string]bool{"invalid_auth": true, "account_inactive": true, "token_revoked": true, "not_authed": true, "not_allowed_token_type": true}

// CheckAuth calls auth.test with the bot token until it succeeds, a token
// error says the token is bad, or ctx ends. Transient failures are retried.
func CheckAuth(ctx context.Context, api *slack.Client, logger *zap.Logger) (*slack.AuthTestResponse, error) {
	delay := 500 * time.Millisecond
	for {
		resp, err := api.AuthTestContext(ctx)
		if err == nil {
			return resp, nil
		}
		if fatalAuthCodes[err.Error()] {
			return nil, &AuthError{Var: "SLACK_BOT_TOKEN", Code: err.Error()}
		}
		logger.Warn("auth.test failed, retrying", zap.Error(err), zap.Duration("retry_in", delay))
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("slack auth.test: %w", ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// Run serves until ctx ends, then stops taking new work, lets the work in
// flight finish (at most ShutdownTimeout), closes the socket and returns
// nil. It returns an error when the socket cannot go on: a rejected app
// token, or another failure the client does not retry.
func (b *Bot) Run(ctx context.Context) error {
	sockCtx, stopSock := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSock()
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	b.workCtx = workCtx

	sockErr := make(chan error, 1)
	go func() { sockErr <- b.sm.RunContext(sockCtx) }()
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); b.loop(sockCtx) }()

	var err error
	select {
	case err = <-sockErr:
		err = classifySocketError(err)
	case <-ctx.Done():
		b.log.Info("stopping: finishing work in flight", zap.Duration("budget", b.cfg.ShutdownTimeout))
	}
	b.drain(stopWork)
	stopSock()
	if err == nil {
		<-sockErr
	}
	<-loopDone
	b.setConnected(false)
	return err
}

// drain stops new work and waits for the work in flight, at most
// ShutdownTimeout; then it cancels what is left and waits for it to return.
func (b *Bot) drain(stopWork context.CancelFunc) {
	b.mu.Lock()
	b.draining = true
	b.mu.Unlock()
	done := make(chan struct{})
	go func() { b.work.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(b.cfg.ShutdownTimeout):
		b.log.Warn("shutdown budget spent: cancelling work in flight", zap.Int64("in_flight", b.queued.Load()))
		stopWork()
		<-done
	}
}

func classifySocketError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	if fatalAuthCodes[err.Error()] {
		return &AuthError{Var: "SLACK_APP_TOKEN", Code: err.Error()}
	}
	var sce slack.StatusCodeError
	if errors.As(err, &sce) && sce.Code == http.StatusNotFound {
		return &AuthError{Var: "SLACK_APP_TOKEN", Code: "404 from apps.connections.open"}
	}
	return fmt.Errorf("slack socket mode: %w", err)
}

func (b *Bot) setConnected(up bool) {
	b.connected.Store(up)
	if up {
		b.m.connected.Set(1)
	} else {
		b.m.connected.Set(0)
	}
}

// loop reads the socket's events until ctx ends.
func (b *Bot) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case evt := <-b.sm.Events:
			b.handle(ctx, evt)
		}
	}
}

func (b *Bot) handle(ctx context.Context, evt socketmode.Event) {
	received := time.Now()
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		b.setConnected(false)
	case socketmode.EventTypeConnected:
		b.setConnected(true)
		if ce, ok := evt.Data.(*socketmode.ConnectedEvent); ok && ce.ConnectionCount > 0 {
			b.m.reconnects.Inc()
		}
		b.log.Info("socket connected")
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError:
		b.setConnected(false)
		b.log.Warn("socket trouble, reconnecting", zap.String("event", string(evt.Type)), zap.Error(eventError(evt.Data)))
	case socketmode.EventTypeInvalidAuth:
		b.log.Error("socket: app token rejected")
	case socketmode.EventTypeSlashCommand:
		if cmd, ok := evt.Data.(slack.SlashCommand); ok && evt.Request != nil {
			b.slashCommand(ctx, evt.Request, cmd, received)
		}
	case socketmode.EventTypeInteractive:
		if cb, ok := evt.Data.(slack.InteractionCallback); ok && evt.Request != nil {
			b.interaction(ctx, evt.Request, cb, received)
		}
	default:
		if evt.Request != nil && evt.Request.EnvelopeID != "" {
			b.ack(ctx, evt.Request, nil, received)
		}
	}
}

func eventError(data any) error {
	switch e := data.(type) {
	case *slack.ConnectionErrorEvent:
		return e.ErrorObj
	case *slack.IncomingEventError:
		return e.ErrorObj
	}
	return nil
}

// ack acknowledges an envelope, with an optional payload (the immediate
// reply to a slash command).
func (b *Bot) ack(ctx context.Context, req *socketmode.Request, payload any, received time.Time) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.AckTimeout)
	defer cancel()
	if err := b.sm.AckCtx(ctx, req.EnvelopeID, payload); err != nil {
		b.log.Error("ack failed", zap.String("envelope_id", req.EnvelopeID), zap.Error(err))
		return
	}
	b.m.ackLatency.Observe(time.Since(received).Seconds())
}

// submit runs fn in the bounded pool, under WorkTimeout. It returns false
// when the bot is stopping or too much work waits already.
func (b *Bot) submit(fn func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.draining || b.queued.Load() >= int64(b.cfg.MaxQueue) {
		return false
	}
	b.queued.Add(1)
	b.m.inFlight.Inc()
	b.work.Add(1)
	go func() {
		defer b.work.Done()
		defer b.m.inFlight.Dec()
		defer b.queued.Add(-1)
		select {
		case b.sem <- struct{}{}:
		case <-b.workCtx.Done():
			return
		}
		defer func() { <-b.sem }()
		ctx, cancel := context.WithTimeoutCause(b.workCtx, b.cfg.WorkTimeout, errWorkTimeout)
		defer cancel()
		fn(ctx)
	}()
	return true
}

var errWorkTimeout = errors.New("the operation ran out of time")

// isDraining reports whether the bot has stopped taking work.
func (b *Bot) isDraining() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.draining
}
