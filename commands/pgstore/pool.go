package pgstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The pool's connection upkeep.
const (
	pingIdle    = time.Second     // a connection idle longer is pinged before use
	maxIdleTime = 5 * time.Minute // a connection idle longer is closed
	closeWait   = time.Second     // how long closing one connection may take
)

// pool is a small pool of pgconn connections: at most cap(slots) in use
// or idle, the most recently used first, a stale one pinged before use
// and replaced when the database dropped it. It stands in for pgxpool,
// which would bring pgx's type system (about 3 MB) into the binary.
type pool struct {
	cfg   *pgconn.Config
	slots chan struct{} // one per connection in use

	mu     sync.Mutex
	idle   []idleConn
	closed bool
}

// errClosed is the error of a call after Close.
var errClosed = errors.New("the store is closed")

// idleConn is a connection waiting in the pool since a time.
type idleConn struct {
	conn  *pgconn.PgConn
	since time.Time
}

func newPool(cfg *pgconn.Config, size int) *pool {
	return &pool{cfg: cfg, slots: make(chan struct{}, size)}
}

// acquire returns a connection for the caller's sole use; give it back
// with release.
func (p *pool) acquire(ctx context.Context) (*pgconn.PgConn, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		c, since, ok := p.pop()
		if !ok {
			conn, err := pgconn.ConnectConfig(ctx, p.cfg)
			if err != nil {
				<-p.slots
				return nil, err
			}
			return conn, nil
		}
		idle := time.Since(since)
		if idle > maxIdleTime || (idle > pingIdle && c.Ping(ctx) != nil) {
			closeConn(c)
			continue
		}
		return c, nil
	}
}

// pop takes the most recently used idle connection.
func (p *pool) pop() (*pgconn.PgConn, time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) == 0 {
		return nil, time.Time{}, false
	}
	last := p.idle[len(p.idle)-1]
	p.idle = p.idle[:len(p.idle)-1]
	return last.conn, last.since, true
}

// release gives c back: to the idle connections when it is healthy and
// outside a transaction, else it is closed (the server rolls back).
func (p *pool) release(c *pgconn.PgConn) {
	defer func() { <-p.slots }()
	if c.IsClosed() || c.IsBusy() || c.TxStatus() != 'I' {
		closeConn(c)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		closeConn(c)
		return
	}
	p.idle = append(p.idle, idleConn{conn: c, since: time.Now()})
}

// close waits for the connections in use and closes every connection.
func (p *pool) close() {
	p.mu.Lock()
	was := p.closed
	p.closed = true
	p.mu.Unlock()
	if was {
		return
	}
	for range cap(p.slots) {
		p.slots <- struct{}{}
	}
	for {
		c, _, ok := p.pop()
		if !ok {
			return
		}
		closeConn(c)
	}
}

// closeConn closes c, waiting closeWait at most.
func closeConn(c *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = c.Close(ctx)
}
