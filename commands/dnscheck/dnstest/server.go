// Package dnstest runs a small authoritative DNS server on loopback for
// tests: it serves a zone held in memory over UDP and TCP on one port, can be
// told to fail in the ways real servers fail (NXDOMAIN, SERVFAIL, REFUSED, no
// answer at all, truncated UDP answers), and records every query it receives.
//
// Only tests import it. Point the code under test at [Server.Addr], for
// instance as MAILBOT_DNS_RESOLVER:
//
//	srv := dnstest.NewServer(t, `
//	example.com. MX 10 mx.yandex.net.
//	example.com. TXT "v=spf1 redirect=_spf.yandex.net"
//	`)
//	checker, err := dnscheck.New(srv.Addr())
package dnstest

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Query is one question the server received.
type Query struct {
	Name string // lower-case and fully qualified: "example.com."
	Type string // "MX", "TXT", "CNAME", "A", ...
	Net  string // "udp" or "tcp"
}

// Server is a DNS server on 127.0.0.1. It answers authoritatively from its
// zone: the records of the asked name and type (following CNAMEs inside the
// zone), NOERROR with no answer for a name that exists with other types only,
// and NXDOMAIN for a name that neither holds records nor has a descendant
// that does. The knob methods change that per name and may be called at any
// time; they are safe for concurrent use.
type Server struct {
	addr string

	mu          sync.Mutex
	records     map[string][]dns.RR // by lower-case FQDN
	exists      map[string]bool     // names that hold records, and their ancestors
	nxdomain    map[string]bool
	servfail    map[string]bool
	refused     map[string]bool
	drop        map[string]bool
	truncate    map[string]bool
	dropAll     bool
	truncateAll bool
	queries     []Query
}

// NewServer parses zone (zone-file text, one record a line, names fully
// qualified or relative to a $ORIGIN, the TTL and class optional), starts
// serving it on 127.0.0.1 over UDP and TCP on one port, and stops the server
// when the test ends. A zone that does not parse fails the test at once.
func NewServer(t testing.TB, zone string) *Server {
	t.Helper()
	s := &Server{
		records:  map[string][]dns.RR{},
		exists:   map[string]bool{},
		nxdomain: map[string]bool{},
		servfail: map[string]bool{},
		refused:  map[string]bool{},
		drop:     map[string]bool{},
		truncate: map[string]bool{},
	}
	s.Add(t, zone)
	pc, l, err := listen()
	if err != nil {
		t.Fatalf("dnstest: %v", err)
	}
	s.addr = pc.LocalAddr().String()
	udp := &dns.Server{PacketConn: pc, Handler: s.handler("udp")}
	tcp := &dns.Server{Listener: l, Handler: s.handler("tcp")}
	for _, srv := range []*dns.Server{udp, tcp} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return s
}

// listen opens a UDP socket and a TCP listener on the same loopback port.
func listen() (net.PacketConn, net.Listener, error) {
	var lastErr error
	for range 20 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		l, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, l, nil
		}
		_ = pc.Close()
		lastErr = err
	}
	return nil, nil, errors.Join(errors.New("no free port for both UDP and TCP"), lastErr)
}

// Add serves the records of zone (zone-file text, as for [NewServer]) too,
// from now on: for instance a verification CNAME whose name a test learns
// only after registering a domain. A zone that does not parse fails the
// test at once and adds nothing.
func (s *Server) Add(t testing.TB, zone string) {
	t.Helper()
	var rrs []dns.RR
	zp := dns.NewZoneParser(strings.NewReader("$TTL 3600\n"+zone), ".", "")
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		rrs = append(rrs, rr)
	}
	if err := zp.Err(); err != nil {
		t.Fatalf("dnstest: zone: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rr := range rrs {
		name := fqdn(rr.Header().Name)
		s.records[name] = append(s.records[name], rr)
		for n := name; n != "."; n = parent(n) {
			s.exists[n] = true
		}
	}
}

// Addr is the server's "host:port", the same for UDP and TCP.
func (s *Server) Addr() string { return s.addr }

// NXDomain makes the server answer NXDOMAIN (the name does not exist) for
// names, whatever records they hold.
func (s *Server) NXDomain(names ...string) { s.set(s.nxdomain, names) }

// ServFail makes the server answer SERVFAIL for names.
func (s *Server) ServFail(names ...string) { s.set(s.servfail, names) }

// Refuse makes the server answer REFUSED for names.
func (s *Server) Refuse(names ...string) { s.set(s.refused, names) }

// Drop makes the server read queries for names and never answer them, over
// UDP or TCP.
func (s *Server) Drop(names ...string) { s.set(s.drop, names) }

// DropAll makes the server answer no query at all.
func (s *Server) DropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAll = true
}

// Truncate makes the server answer queries for names over UDP with the TC
// bit set and no records, so that a client must ask again over TCP, where
// the full answer is given.
func (s *Server) Truncate(names ...string) { s.set(s.truncate, names) }

// TruncateAll truncates every answer over UDP, as [Server.Truncate] does.
func (s *Server) TruncateAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncateAll = true
}

// Queries returns the queries received so far, oldest first.
func (s *Server) Queries() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Query(nil), s.queries...)
}

func (s *Server) set(m map[string]bool, names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		m[fqdn(n)] = true
	}
}

// fqdn is name in lower case with a trailing dot.
func fqdn(name string) string { return dns.Fqdn(strings.ToLower(name)) }

// parent is the name one label up: "a.example.com." -> "example.com.".
func parent(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return "."
}
