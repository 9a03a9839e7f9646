package dnscheck

import (
	"context"
	"net"
	"sync"
	"time"
)

// DNS response codes (RFC 1035 §4.1.1) that the checklist tells apart.
const (
	rcodeSuccess   = 0
	rcodeServFail  = 2
	rcodeNXDomain  = 3
	rcodeNotImpl   = 4
	rcodeRefused   = 5
	rcodeFormError = 1
)

// A probe records the response code of every DNS response read on the
// connections of one lookup.
//
// net.Resolver reports NXDOMAIN (the name does not exist) and NODATA (the
// name exists without records of the asked type) with the same error, and
// SERVFAIL and REFUSED with one text. The checklist must tell them apart:
// a domain that does not exist is not a missing record. The resolver's Dial
// hook sees every response, so the probe reads the 4-bit RCODE from the
// header of each response that answers the query sent on that connection.
// It parses nothing else; the resolver does the rest.
type probe struct {
	mu     sync.Mutex
	rcodes []int
}

func (p *probe) add(rcode int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rcodes = append(p.rcodes, rcode)
}

// codes returns the response codes seen, oldest first.
func (p *probe) codes() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.rcodes...)
}

// wrap returns c reporting to p. A UDP connection stays a net.PacketConn,
// because the resolver sends datagrams only on those.
//
// The resolver bounds a read by ctx's deadline, not by its cancellation; so
// that a cancelled check returns at once, the wrapped connection's deadline
// moves to now when ctx ends before the connection is closed.
func (p *probe) wrap(ctx context.Context, c net.Conn) net.Conn {
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	if uc, ok := c.(*net.UDPConn); ok {
		return &packetConn{UDPConn: uc, p: p, stop: stop}
	}
	return &streamConn{Conn: c, p: p, stop: stop}
}

// packetConn reads one DNS message per datagram.
type packetConn struct {
	*net.UDPConn
	p     *probe
	stop  func() bool
	id    uint16
	asked bool
}

// Close closes the connection; ctx no longer concerns it.
func (c *packetConn) Close() error {
	c.stop()
	return c.UDPConn.Close()
}

// Write sends a query and remembers its ID.
func (c *packetConn) Write(b []byte) (int, error) {
	if len(b) >= 2 {
		c.id, c.asked = uint16(b[0])<<8|uint16(b[1]), true
	}
	return c.UDPConn.Write(b)
}

// Read receives a datagram and records its RCODE when it answers the query.
func (c *packetConn) Read(b []byte) (int, error) {
	n, err := c.UDPConn.Read(b)
	if c.asked && n >= 4 && uint16(b[0])<<8|uint16(b[1]) == c.id && b[2]&0x80 != 0 {
		c.p.add(int(b[3] & 0x0f))
	}
	return n, err
}

// streamConn reads DNS messages prefixed by their 2-byte length (TCP).
type streamConn struct {
	net.Conn
	p     *probe
	stop  func() bool
	id    uint16
	asked bool
	head  [6]byte // length, ID and flags of the first response
	got   int
}

// Close closes the connection; ctx no longer concerns it.
func (c *streamConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// Write sends a length-prefixed query and remembers its ID.
func (c *streamConn) Write(b []byte) (int, error) {
	if !c.asked && len(b) >= 4 {
		c.id, c.asked = uint16(b[2])<<8|uint16(b[3]), true
	}
	return c.Conn.Write(b)
}

// Read receives bytes of the stream and records the first response's RCODE
// once its header has arrived.
func (c *streamConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.asked && c.got < len(c.head) {
		c.got += copy(c.head[c.got:], b[:n])
		h := c.head
		if c.got == len(h) && uint16(h[2])<<8|uint16(h[3]) == c.id && h[4]&0x80 != 0 {
			c.p.add(int(h[5] & 0x0f))
		}
	}
	return n, err
}
