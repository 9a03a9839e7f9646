package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy is a loopback TCP proxy in front of a database, which a test can
// cut and restore to simulate an outage.
type Proxy struct {
	ln     net.Listener
	target string
	dsn    string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy starts a proxy on 127.0.0.1 in front of the server of dsn (a
// URL, as [NewDatabase] returns) and stops it when t ends.
func NewProxy(t testing.TB, dsn string) *Proxy {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatalf("pgtest: NewProxy needs a URL with a host, got %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	p := &Proxy{ln: ln, target: u.Host, conns: make(map[net.Conn]struct{})}
	u.Host = ln.Addr().String()
	p.dsn = u.String()
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.Close)
	return p
}

// DSN returns the database's DSN through the proxy.
func (p *Proxy) DSN() string { return p.dsn }

// Cut closes every connection through the proxy and refuses new ones
// (they are closed as soon as they are accepted) until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close() // cutting it is the point; it may be closing already
		delete(p.conns, c)
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops the proxy and closes every connection through it.
func (p *Proxy) Close() {
	_ = p.ln.Close() // serve's Accept fails, which is what stops it
	p.Cut()
	p.wg.Wait()
}

// serve accepts connections until the listener closes.
func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.pipe(c)
	}
}

// pipe connects c to the target, unless the proxy is cut, and copies both
// ways until either side closes.
func (p *Proxy) pipe(c net.Conn) {
	defer p.wg.Done()
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		_ = c.Close() // no upstream: hang up on the client
		return
	}
	if !p.track(c, up) {
		_ = c.Close() // cut: refuse the pair
		_ = up.Close()
		return
	}
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// One side ended (or was cut): end the other; the copy in the
		// other direction closes them again.
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// track registers the pair, unless the proxy is cut.
func (p *Proxy) track(c, up net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	return true
}
