// Package dnscheck looks up the DNS records that mail hosting at a provider
// needs for a domain and says, record by record, what is in place, what is
// missing or wrong, and what to publish instead. What the provider expects
// comes in an [Expect]: the records the provider's adapter lists
// (apiclient.Record), each with its purpose, DNS type, name and value, and
// how it is judged: MX sets of which exactly one is published whole, an
// SPF record that includes a domain or authorises a host, a TXT record
// among others (a verification record, a secret), a DKIM key record whose
// key must match or that need only be present, a CNAME's target, or a way
// of proof the provider checks itself, shown as it is. A record marked as
// advice (a DKIM record mail flows without) does not count against the
// verdict. It knows no provider by name.
//
// It asks one DNS server (or the system's resolver) through net.Resolver,
// over UDP and over TCP for truncated answers, runs the lookups of one check
// concurrently under one deadline, and reports a domain that does not
// exist, a failing server and a server that does not answer as such, never
// as missing records. It is given a verification secret's name at most,
// never its content.
package dnscheck

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient"
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

// Check looks up domain's records and returns the checklist of what want
// expects. domain is an ASCII (punycode) name, validated by the caller;
// anything that is not a plausible DNS name gives a checklist with Err
// [ErrInvalidDomain] and no query. Check returns within the checker's
// timeout, or earlier if ctx ends.
func (c *Checker) Check(ctx context.Context, domain string, want Expect) Checklist {
	d, ok := normaliseDomain(domain)
	if !ok {
		return Checklist{Err: ErrInvalidDomain}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, deadlineError{c.timeout})
	defer cancel()
	return Checklist{Domain: d, Items: want.items(d, c.lookUp(ctx, d, want.Records))}
}

// answers holds the lookups of one check: MX at the apex, and TXT and
// CNAME records by fully qualified name (the apex's TXT always).
type answers struct {
	mx    lookup[[]*net.MX]
	txt   map[string]*lookup[[]string]
	cname map[string]*lookup[string]
}

// domainNX reports whether the domain itself does not exist.
func (a answers) domainNX(domain string) bool {
	return a.mx.outcome == nxDomain || a.txt[domain+"."].outcome == nxDomain
}

// lookUp runs the lookups of one check concurrently: MX and TXT at the
// apex, and the TXT and CNAME records below it that records name (a name
// that is not valid is not looked up).
func (c *Checker) lookUp(ctx context.Context, domain string, records []apiclient.Record) answers {
	a := answers{txt: map[string]*lookup[[]string]{domain + ".": {}}, cname: map[string]*lookup[string]{}}
	for _, r := range records {
		name, ok := recordName(domain, r.Name)
		switch {
		case !ok || r.Match == apiclient.MatchShown:
		case r.Type == apiclient.TypeCNAME:
			a.cname[name] = &lookup[string]{}
		case r.Type == apiclient.TypeTXT:
			a.txt[name] = &lookup[[]string]{}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { a.mx = c.lookupMX(ctx, domain+".") })
	for name, l := range a.txt {
		wg.Go(func() { *l = c.lookupTXT(ctx, name) })
	}
	for name, l := range a.cname {
		wg.Go(func() { *l = c.lookupCNAME(ctx, name) })
	}
	wg.Wait()
	return a
}

// items judges the answers against e: the MX line, the SPF line, then a
// line per other record (the ways of proof shown as one line), then the
// lines that could not be read.
func (e Expect) items(domain string, a answers) []Item {
	mx := e.mxLine(domain, a)
	items := []Item{mx}
	if len(e.of(KindSPF)) == 0 {
		items = append(items, e.unreadItem(KindSPF, domain+"."))
	}
	shown := false
	for _, r := range e.Records {
		switch {
		case r.Purpose == apiclient.PurposeMX:
		case r.Match == apiclient.MatchShown && !shown:
			shown = true
			items = append(items, shownItem(e.Records))
		case r.Match != apiclient.MatchShown:
			items = append(items, recordItem(domain, r, a, mx))
		}
	}
	for _, k := range e.Unread {
		if k != KindMX && k != KindSPF && len(e.of(k)) == 0 {
			items = append(items, e.unreadItem(k, ""))
		}
	}
	return items
}

// mxLine checks the MX records against the one set the provider names,
// or against its alternative sets.
func (e Expect) mxLine(domain string, a answers) Item {
	sets := e.of(KindMX)
	switch {
	case len(sets) == 0 || len(sets[0].MX) == 0:
		return e.unreadItem(KindMX, domain+".")
	case len(sets) == 1 && len(sets[0].MX) == 1:
		return mxItem(domain, sets[0].MX[0], a.mx)
	}
	return mxSetsItem(domain, sets, a.mx)
}

// recordItem checks one record below the MX line by its match.
func recordItem(domain string, r apiclient.Record, a answers, mx Item) Item {
	name, valid := recordName(domain, r.Name)
	txt, cname := a.txt[name], a.cname[name]
	if txt == nil {
		txt = &lookup[[]string]{}
	}
	if cname == nil {
		cname = &lookup[string]{}
	}
	b := below{domain: domain, kind: Kind(r.Purpose), name: name, valid: valid, domainNX: a.domainNX(domain)}
	var it Item
	switch {
	case r.Match == apiclient.MatchSPFInclude:
		it = spfItem(domain, spfRule{target: hostName(r.Value), domain: domain}, *txt, mx)
	case r.Match == apiclient.MatchSPFHost:
		it = spfItem(domain, spfRule{target: hostName(r.Value), host: true, domain: domain}, *txt, mx)
	case r.Type == apiclient.TypeCNAME:
		it = cnameItem(b, hostName(r.Value), *cname)
	case r.Match == apiclient.MatchKey:
		it = dkimItem(b, r.Value, *txt)
	case r.Match == apiclient.MatchPresent:
		it = dkimPresenceItem(b, *txt)
	default:
		it = txtItem(b, r.Value, *txt)
	}
	it.Type = r.Type
	if r.Advice && (it.State == StateMissing || it.State == StateWrong) {
		it.State = StateAdvice
		if it.Reason == "" {
			it.Reason = "not published; mail flows without it"
		}
	}
	return it
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
