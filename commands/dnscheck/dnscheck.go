// Package dnscheck looks up the DNS records that mail hosting at the service
// needs for a domain and says, record by record, what is in place, what is
// missing or wrong, and what to publish instead: the MX (exactly
// mx.yandex.net), the SPF policy (one v=spf1 TXT record that includes or
// redirects to _spf.yandex.net) and, when the verification secret's name is
// known, the ownership CNAME yamail-<name>.<domain> -> mail.yandex.ru.
//
// It asks one DNS server (or the system's resolver) through net.Resolver,
// over UDP and over TCP for truncated answers, runs the lookups of one check
// concurrently under one deadline, and reports a domain that does not
// exist, a failing server and a server that does not answer as such, never
// as missing records. It is given the verification secret's name only,
// never its content. It imports the standard library only.
package dnscheck

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
)

// DefaultTimeout is how long one check waits for the DNS server, in all.
const DefaultTimeout = 5 * time.Second

// Checker checks the records of domains. Its methods are safe for
// concurrent use.
type Checker struct {
	addr    string // "host:port" of the DNS server; "" for the system's resolver
	timeout time.Duration
	dialer  net.Dialer
}

// Option configures a [Checker].
type Option func(*Checker) error

// WithTimeout sets how long one check waits for the DNS server, in all
// (default [DefaultTimeout]). Tests use a short one.
func WithTimeout(d time.Duration) Option {
	return func(c *Checker) error {
		if d <= 0 {
			return fmt.Errorf("timeout %v: must be positive", d)
		}
		c.timeout = d
		return nil
	}
}

// New returns a Checker that asks the DNS server at resolverAddr
// ("host:port", as MAILBOT_DNS_RESOLVER holds it), or the system's resolver
// (/etc/resolv.conf) when resolverAddr is empty.
func New(resolverAddr string, opts ...Option) (*Checker, error) {
	c := &Checker{addr: resolverAddr, timeout: DefaultTimeout}
	if resolverAddr != "" {
		host, port, err := net.SplitHostPort(resolverAddr)
		if err != nil {
			return nil, fmt.Errorf("DNS resolver %q: want host:port: %w", resolverAddr, err)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
			return nil, fmt.Errorf("DNS resolver %q: want host:port with a port from 1 to 65535", resolverAddr)
		}
	}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Timeout is how long one check waits for the DNS server, in all.
func (c *Checker) Timeout() time.Duration { return c.timeout }

// deadlineError is the cause of a check's context ending at its own
// deadline, so that the checklist can say how long the server had.
type deadlineError struct{ d time.Duration }

func (e deadlineError) Error() string { return "no answer within " + e.d.String() }

// Check looks up domain's records and returns the checklist. domain is an
// ASCII (punycode) name, validated by the caller; anything that is not a
// plausible DNS name gives a checklist with Err [ErrInvalidDomain] and no
// query. secretName is the name (never the content) of the domain's
// verification secret; empty leaves the verification record out. Check
// returns within the checker's timeout, or earlier if ctx ends.
func (c *Checker) Check(ctx context.Context, domain, secretName string) Checklist {
	d, ok := normaliseDomain(domain)
	if !ok {
		return Checklist{Err: ErrInvalidDomain}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, deadlineError{c.timeout})
	defer cancel()

	var (
		wg    sync.WaitGroup
		mx    lookup[[]*net.MX]
		txt   lookup[[]string]
		cname lookup[string]
		apex  = d + "."
	)
	verifyName, canVerify := verificationName(d, secretName)
	wg.Go(func() { mx = c.lookupMX(ctx, apex) })
	wg.Go(func() { txt = c.lookupTXT(ctx, apex) })
	if canVerify {
		wg.Go(func() { cname = c.lookupCNAME(ctx, verifyName) })
	}
	wg.Wait()

	list := Checklist{Domain: d, Items: []Item{mxItem(d, mx), spfItem(d, txt)}}
	if secretName != "" {
		domainNX := mx.outcome == nxDomain || txt.outcome == nxDomain
		list.Items = append(list.Items, verificationItem(d, verifyName, canVerify, cname, domainNX))
	}
	return list
}

// resolver returns a resolver that asks c's server (or the system's) and
// reports the response codes it reads to p.
func (c *Checker) resolver(p *probe) *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, server string) (net.Conn, error) {
			if c.addr != "" {
				server = c.addr
			}
			conn, err := c.dialer.DialContext(ctx, network, server)
			if err != nil {
				return nil, err
			}
			return p.wrap(ctx, conn), nil
		},
	}
}
