// Package bot is mailbot's Slack adapter: it receives slash commands and
// button clicks over Socket Mode, acknowledges them at once, hands them to
// the transport-free core (package commands) and delivers the replies:
// results to the person who asked, ephemerally, and notices without
// secrets to the ops channel.
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
	Concurrency     int           // operations run at once
	MaxQueue        int           // operations accepted and waiting; more are turned away
	WorkTimeout     time.Duration // deadline of one piece of work
	ShutdownTimeout time.Duration // how long work in flight may finish after the stop
	AckTimeout      time.Duration // how long an ack may wait for the socket
	// CloseSocketFirst closes the Socket Mode connection as soon as the
	// stop begins, so that Slack sends new commands to the other replicas
	// (with a database); otherwise the socket stays open during the
	// drain and new commands are told that mailbot is restarting.
	CloseSocketFirst bool
	// SweepEvery is how often requests are expired and reminders sent;
	// zero means commands.SweepEvery, negative never.
	SweepEvery time.Duration
	// APIURL is the Web API's base URL: an import's CSV file is read with
	// the bot token only from its host, or from a subdomain of its domain.
	APIURL string
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
	if c.SweepEvery == 0 {
		c.SweepEvery = commands.SweepEvery
	}
}

// Bot serves the slash commands, clicks, forms and the Home tab over
// Socket Mode. Its event loop only acknowledges: everything that talks to
// Slack's Web API, the PDD API or the database runs on the worker side.
type Bot struct {
	api    *slack.Client
	sm     *socketmode.Client
	core   *commands.Core
	msgr   *Messenger
	groups *Groups
	cfg    Config
	log    *zap.Logger
	m      *Metrics
	seen   *envelopes
	// interims holds, by step, the encoded acknowledgement of a command
	// taken for the workers (see interimPayload).
	interims sync.Map

	queue     chan job // work waiting for a worker
	answers   chan job // short answers (refusals, Home tabs), apart from the work
	forms     chan job // forms to open: their trigger lives 3 s, so nothing else waits in front
	queued    atomic.Int64
	connected atomic.Bool

	mu            sync.Mutex // guards draining, answersClosed and sends on the queues
	draining      bool
	answersClosed bool
}

// job is one piece of work: run runs it; notRun answers for it when it
// will not start (the stop came first).
type job struct {
	run    func(ctx context.Context)
	notRun func(ctx context.Context)
}

// New returns a bot that receives events through sm, calls the Web API
// through api, decides with core and answers through msgr. groups, which
// may be nil, is refreshed on subteam_members_changed and periodically.
func New(api *slack.Client, sm *socketmode.Client, core *commands.Core, msgr *Messenger, groups *Groups, cfg Config, logger *zap.Logger, m *Metrics) *Bot {
	cfg.defaults()
	return &Bot{api: api, sm: sm, core: core, msgr: msgr, groups: groups, cfg: cfg, log: logger, m: m,
		seen:    newEnvelopes(4096),
		queue:   make(chan job, cfg.MaxQueue),
		answers: make(chan job, 256),
		forms:   make(chan job, 64)}
}

// Ready reports whether the socket is connected and the bot takes work.
func (b *Bot) Ready() bool {
	return b.connected.Load() && !b.isDraining()
}

// Run serves until ctx ends, then stops taking new work, lets the work in
// flight finish (at most ShutdownTimeout), answers what will not run,
// closes the socket and returns nil. It returns an error when the socket
// cannot go on: a rejected app token, or another failure the client does
// not retry. Run owns every goroutine it starts.
func (b *Bot) Run(ctx context.Context) error {
	sockCtx, stopSock := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSock()
	workCtx, stopWork := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopWork(nil)

	var wg, answerWG sync.WaitGroup
	sockErr := make(chan error, 1)
	go func() { sockErr <- b.sm.RunContext(sockCtx) }()
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); b.loop(sockCtx) }()
	b.startWorkers(workCtx, b.queue, b.cfg.Concurrency, &wg)
	b.startWorkers(context.WithoutCancel(ctx), b.answers, answerWorkers, &answerWG)
	b.startWorkers(context.WithoutCancel(ctx), b.forms, formWorkers, &answerWG)
	bgCtx, stopBG := context.WithCancel(workCtx)
	bgDone := b.background(bgCtx)

	err := b.waitStop(ctx, sockErr)
	stopBG()
	<-bgDone
	if b.cfg.CloseSocketFirst {
		b.setDraining()
		stopSock()
	}
	b.drain(&wg, stopWork)
	stopSock()
	if serr := classifySocketError(<-sockErr); serr != nil {
		b.log.Warn("socket closed with an error at the stop", zap.Error(serr))
	}
	<-loopDone
	b.closeAnswers(&answerWG)
	b.setConnected(false)
	return err
}

// waitStop waits for the socket to end or ctx to be done. When the socket
// ended it returns the socket's classified error and puts a nil back on
// sockErr, for the stop to read.
func (b *Bot) waitStop(ctx context.Context, sockErr chan error) error {
	select {
	case err := <-sockErr:
		sockErr <- nil
		return classifySocketError(err)
	case <-ctx.Done():
		b.log.Info("stopping: finishing work in flight", zap.Duration("budget", b.cfg.ShutdownTimeout),
			zap.Bool("socket_closed_first", b.cfg.CloseSocketFirst))
		return nil
	}
}

// closeAnswers closes the answer and form queues to new work and waits for
// their workers to finish what was queued.
func (b *Bot) closeAnswers(answerWG *sync.WaitGroup) {
	b.mu.Lock()
	b.answersClosed = true
	close(b.answers)
	close(b.forms)
	b.mu.Unlock()
	answerWG.Wait()
}

// errShutdown is the cause of the work's cancellation at the stop.
var errShutdown = errors.New("mailbot stopped before the operation finished (MAILBOT_SHUTDOWN_TIMEOUT)")

// drain stops new work and waits for the queue to empty, at most
// ShutdownTimeout; then it cancels what runs (its answers still go out)
// and answers every job that never started.
func (b *Bot) drain(wg *sync.WaitGroup, stopWork context.CancelCauseFunc) {
	b.setDraining()
	b.mu.Lock()
	close(b.queue)
	b.mu.Unlock()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(b.cfg.ShutdownTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		b.log.Warn("shutdown budget spent: cancelling work in flight", zap.Int64("in_flight", b.queued.Load()))
		stopWork(errShutdown)
		<-done
	}
}

// Workers of the short answers and of the forms.
const (
	answerWorkers = 2
	formWorkers   = 2
)

// startWorkers starts n workers on q.
func (b *Bot) startWorkers(ctx context.Context, q <-chan job, n int, wg *sync.WaitGroup) {
	for range n {
		wg.Add(1)
		go func() { defer wg.Done(); b.work(ctx, q) }()
	}
}

// work runs jobs until q is closed and empty. Once ctx is cancelled (the
// shutdown budget is spent) the jobs left are answered, not run.
func (b *Bot) work(ctx context.Context, q <-chan job) {
	for j := range q {
		if ctx.Err() != nil {
			if j.notRun != nil {
				j.notRun(ctx)
			}
		} else {
			jctx, cancel := context.WithTimeoutCause(ctx, b.cfg.WorkTimeout, errWorkTimeout)
			j.run(jctx)
			cancel()
		}
		b.queued.Add(-1)
		b.m.inFlight.Dec()
	}
}

var errWorkTimeout = errors.New("the operation ran out of time")

// take queues j for a worker, the one way work enters the queue. When
// the bot is stopping or too much work waits already, it returns the
// refusal to answer with and ok false. It never blocks.
func (b *Bot) take(j job) (refused commands.Refusal, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.draining:
		return commands.RefusedRestarting, false
	case !b.enqueue(b.queue, j):
		return commands.RefusedBusy, false
	}
	return commands.Refusal{}, true
}

// answer queues a short answer (a refusal, the Home tab) on its own
// workers, so that the event loop never waits on Slack. Answers are taken
// while the bot drains, until its socket is closed.
func (b *Bot) answer(fn func(ctx context.Context)) bool { return b.answerOn(b.answers, fn) }

// openSoon queues the opening of a form on workers that nothing slower
// waits in front of: a form's trigger lives 3 s.
func (b *Bot) openSoon(fn func(ctx context.Context)) bool { return b.answerOn(b.forms, fn) }

func (b *Bot) answerOn(q chan job, fn func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.answersClosed && b.enqueue(q, job{run: fn})
}

// enqueue sends j on q without blocking; the caller holds mu.
func (b *Bot) enqueue(q chan job, j job) bool {
	select {
	case q <- j:
		b.queued.Add(1)
		b.m.inFlight.Inc()
		return true
	default:
		return false
	}
}

// background runs the periodic work: the sweep of expiries and reminders,
// and the refresh of admin user groups. It returns a channel closed when
// all of it has stopped.
func (b *Bot) background(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	var wg sync.WaitGroup
	if b.cfg.SweepEvery > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); b.sweep(ctx) }()
	}
	if b.groups != nil {
		wg.Add(1)
		go func() { defer wg.Done(); b.groups.Run(ctx) }()
	}
	go func() { wg.Wait(); close(done) }()
	return done
}

// sweep calls the core's sweep every SweepEvery until ctx ends.
func (b *Bot) sweep(ctx context.Context) {
	t := time.NewTicker(b.cfg.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if expired, reminded := b.core.Sweep(ctx); expired+reminded > 0 {
				b.m.approvals.WithLabelValues("expired").Add(float64(expired))
				b.m.reminders.Add(float64(reminded))
			}
		}
	}
}

func classifySocketError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	if code := slackCode(err); fatalAuthCodes[code] {
		return &AuthError{Var: "SLACK_APP_TOKEN", Code: code}
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

func (b *Bot) setDraining() {
	b.mu.Lock()
	b.draining = true
	b.mu.Unlock()
}

// isDraining reports whether the bot has stopped taking work.
func (b *Bot) isDraining() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.draining
}
