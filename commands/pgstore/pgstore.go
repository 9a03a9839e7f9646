// Package pgstore keeps mailbot's requests and audit trail in PostgreSQL
// (docs/state.md): a [commands.Store] that any number of replicas share.
//
// Every change of a request is a compare-and-set in one transaction: the
// request's row is inserted if missing (INSERT ... ON CONFLICT DO
// NOTHING), locked (SELECT ... FOR UPDATE), the change decided in Go, and
// the row updated, so that of concurrent calls on any replicas exactly one
// wins. Expiries and reminders are claimed with FOR UPDATE SKIP LOCKED:
// replicas sweeping at once each get different rows, and no leader is
// needed.
//
// The driver is pgx with its own pool, pgxpool: idle connections are
// closed after a minute, the pool checks its connections every 15
// seconds and pings one idle for more than a second before use, and it
// holds at most DefaultMaxConns connections unless the DSN says otherwise
// (pool_max_conns and the other pool_ parameters, as pgxpool reads them).
// Values travel in pgx's binary formats and are scanned into Go types.
// (An earlier pool and text-format layer of its own saved about 3 MB of
// binary and never closed an idle connection.)
//
// The schema is migrated at [Open] (not with [ReadOnly], as `mailbot
// audit` opens it) by a runner of ~50 lines (migrate.go):
// the SQL files of migrations/, embedded with embed.FS, are applied in
// order in one transaction that first takes a transaction-level advisory
// lock, and recorded in schema_migrations. Replicas starting together
// queue on the lock; the first applies, the others find nothing to do. A
// migration library was weighed and not taken: tern/v2's migrate package
// brings text/template with sprig, golang-migrate more still, and neither
// gives more than this runner needs: forward-only, ordered, locked,
// transactional DDL.
//
// History does not grow without end: [Store.Prune], called by the sweep,
// deletes decided requests a week after their decision and expiry, and
// audit entries past their retention (retention.go); and every periodic,
// Home-tab and decision query reads an index (plans_test.go checks the
// plans on a year of history). docs/database.md is the operator's view.
//
// Nothing secret is stored: the Store interface carries no password, no
// verification secret and no token, so there is no column for one, and
// errors never repeat the database URL's password.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// Defaults of the options and of the pool.
const (
	DefaultRetry       = 30 * time.Second // how long Open waits for the database
	DefaultCallTimeout = 10 * time.Second // the longest one call may take
	DefaultMaxConns    = 4                // the pool's size unless the DSN sets pool_max_conns
)

// The pool's upkeep unless the DSN sets it: an idle connection is closed
// after maxConnIdleTime, looked for every healthCheckPeriod.
const (
	maxConnIdleTime   = time.Minute
	healthCheckPeriod = 15 * time.Second
)

// connectTimeout bounds one connection attempt unless the URL sets
// connect_timeout.
const connectTimeout = 5 * time.Second

// Store is a [commands.Store] in PostgreSQL. It is safe for concurrent
// use; Close it when done.
type Store struct {
	pool           *pgxpool.Pool
	logger         *zap.Logger
	callTimeout    time.Duration
	auditRetention time.Duration

	pruneMu   sync.Mutex
	lastPrune time.Time // when Prune last ran
}

var _ commands.Store = (*Store)(nil)

// Option changes how [Open] connects.
type Option func(*options)

type options struct {
	retry       time.Duration
	callTimeout time.Duration
	readOnly    bool

	auditRetention time.Duration
	tracer         pgx.QueryTracer // the tests' view of the statements sent
}

// WithRetry sets how long Open keeps trying while the database cannot be
// reached (DefaultRetry by default); 0 tries once.
func WithRetry(d time.Duration) Option { return func(o *options) { o.retry = d } }

// WithCallTimeout bounds every call of the Store (DefaultCallTimeout by
// default): a call that takes longer, such as one waiting on a database
// that stopped answering, fails with [commands.ErrStoreUnavailable].
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.callTimeout = d } }

// ReadOnly opens the store to read the audit trail only, as `mailbot
// audit` does: no migration (the schema is whatever mailbot serve made
// of it), so that a role with SELECT on the tables alone suffices.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// Open connects to the database of dsn (a postgres:// URL or key=value
// string, as libpq reads them; pool_max_conns sets the pool's size),
// waiting up to the retry time while it cannot be reached, and migrates
// the schema. Its errors never hold the password.
// An unreachable database is an error that wraps
// [commands.ErrStoreUnavailable].
func Open(ctx context.Context, dsn string, logger *zap.Logger, opts ...Option) (*Store, error) {
	o := options{retry: DefaultRetry, callTimeout: DefaultCallTimeout, auditRetention: DefaultAuditRetention}
	for _, opt := range opts {
		opt(&o)
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	cfg, err := poolConfig(dsn, o)
	if err != nil {
		return nil, err
	}
	password := cfg.ConnConfig.Password
	c := cfg.ConnConfig
	logger = logger.With(zap.String("database", fmt.Sprintf("%s:%d/%s", c.Host, c.Port, c.Database)))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, redact(err, password)
	}
	s := &Store{pool: pool, logger: logger, callTimeout: o.callTimeout, auditRetention: o.auditRetention}
	if err := s.waitReachable(ctx, o.retry, password); err != nil {
		pool.Close()
		return nil, redact(err, password)
	}
	if o.readOnly {
		return s, nil
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, redact(s.wrap("migrate", err), password)
	}
	return s, nil
}

// poolConfig reads dsn as pgxpool does, with mailbot's defaults where
// the DSN sets nothing: the pool's size and upkeep, the connect timeout
// and the application name.
func poolConfig(dsn string, o options) (*pgxpool.Config, error) {
	// The parsers' messages may quote the URL, password and all.
	errParse := errors.New("pgstore: the database URL does not parse (it is not repeated here, as it may hold a password)")
	given, err := pgconn.ParseConfig(dsn) // keeps the pool_ parameters that pgxpool removes
	if err != nil {
		return nil, errParse
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("pgstore: a pool_ parameter of the database URL is wrong (pool_max_conns is a positive number, pool_max_conn_idle_time and pool_health_check_period durations such as 1m)")
	}
	set := func(key string) bool { _, ok := given.RuntimeParams[key]; return ok }
	if !set("pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	if !set("pool_max_conn_idle_time") {
		cfg.MaxConnIdleTime = maxConnIdleTime
	}
	if !set("pool_health_check_period") {
		cfg.HealthCheckPeriod = healthCheckPeriod
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if o.tracer != nil {
		cfg.ConnConfig.Tracer = o.tracer
	}
	if !set("application_name") {
		cfg.ConnConfig.RuntimeParams["application_name"] = "mailbot"
	}
	return cfg, nil
}

// waitReachable pings the database until it answers, retrying for up to
// retry while it cannot be reached. Other failures (a wrong password, no
// such database) end it at once.
func (s *Store) waitReachable(ctx context.Context, retry time.Duration, password string) error {
	deadline := time.Now().Add(retry)
	wait := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := s.Ping(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, commands.ErrStoreUnavailable) || ctx.Err() != nil || retry <= 0 {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("pgstore: the database could not be reached for %v: %w", retry, err)
		}
		s.logger.Warn("database unreachable, retrying", zap.Int("attempt", attempt),
			zap.Duration("retry_in", wait), zap.String("error", redact(err, password).Error()))
		select {
		case <-ctx.Done():
			return s.wrap("connect", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// Close waits for the calls under way and closes the connections. Calls
// after it fail.
func (s *Store) Close() { s.pool.Close() }

// Durable reports true: the store outlives the process.
func (s *Store) Durable() bool { return true }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.call(ctx, "ping", func(ctx context.Context) error {
		return s.pool.Ping(ctx)
	})
}

// call runs fn under the call timeout, once more when it failed before
// anything reached the database (pgconn.SafeToRetry: a stale pooled
// connection), and wraps its error.
func (s *Store) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.callTimeout)
	defer cancel()
	err := fn(ctx)
	if err != nil && pgconn.SafeToRetry(err) && ctx.Err() == nil {
		err = fn(ctx)
	}
	return s.wrap(op, err)
}

// wrap names op in err and marks a failure to reach the database with
// commands.ErrStoreUnavailable.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if unreachable(err) {
		return fmt.Errorf("pgstore: %s: %w: %w", op, commands.ErrStoreUnavailable, err)
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}

// unreachable reports whether err means that the database could not be
// reached or stopped answering, rather than that it refused the statement.
func unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300": // shutting down, cannot connect now, too many connections
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") // connection exception
	}
	if errors.Is(err, context.Canceled) {
		return false // the caller gave up
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// redacted is an error whose text was cleaned: the password taken out,
// on one line.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// redact returns err with every form of password in its text replaced,
// and its text on one line (pgx puts one line per host tried).
func redact(err error, password string) error {
	if err == nil {
		return nil
	}
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	if password != "" {
		for _, form := range []string{password, url.QueryEscape(password), url.PathEscape(password),
			url.UserPassword("u", password).String()[2:]} {
			msg = strings.ReplaceAll(msg, form, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}
