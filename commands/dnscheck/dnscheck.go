// Package dnscheck looks up the DNS records that mail hosting at a provider
// needs for a domain and says, record by record, what is in place, what is
// missing or wrong, and what to publish instead. What the provider expects
// comes in an [Expect]: the MX host (mx.yandex.net, or a mailcow server),
// the SPF policy (one v=spf1 TXT record that includes or redirects to
// _spf.yandex.net, or that authorises the mailcow host), the DKIM key
// record <selector>._domainkey.<domain> when the provider has a key, and
// the ownership proof: PDD's CNAME yamail-<name>.<domain> -> mail.yandex.ru
// when the verification secret's name is known, or the verification
// methods of Yandex 360, shown as they are. Google Workspace's expectation
// uses the other shapes an Expect can hold: MX sets of which exactly one
// must be published whole, a verification TXT record at the apex, and a
// DKIM record whose presence alone is checked, as advice that does not
// count against the verdict.
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
	n := namesOf(d, want)
	return Checklist{Domain: d, Items: want.items(d, n, c.lookUp(ctx, d, n))}
}

// names are the names one check looks up below the domain; "" for none.
type names struct {
	verify, dkim           string
	verifyValid, dkimValid bool
}

// namesOf is the names the check of domain against want looks up.
func namesOf(domain string, want Expect) names {
	var n names
	if want.SecretName != "" && want.VerifyCNAME != "" {
		n.verify, n.verifyValid = verificationName(domain, want.SecretName)
	}
	switch {
	case want.DKIM != nil:
		n.dkim, n.dkimValid = dkimName(domain, want.DKIM)
	case want.DKIMSelector != "":
		n.dkim, n.dkimValid = dkimName(domain, &DKIM{Selector: want.DKIMSelector})
	}
	return n
}

// answers holds the lookups of one check.
type answers struct {
	mx    lookup[[]*net.MX]
	txt   lookup[[]string]
	cname lookup[string]
	dkim  lookup[[]string]
}

// domainNX reports whether the domain itself does not exist.
func (a answers) domainNX() bool { return a.mx.outcome == nxDomain || a.txt.outcome == nxDomain }

// lookUp runs the lookups of one check concurrently: MX and TXT at the
// apex, and the names n holds.
func (c *Checker) lookUp(ctx context.Context, domain string, n names) answers {
	var (
		wg   sync.WaitGroup
		a    answers
		apex = domain + "."
	)
	wg.Go(func() { a.mx = c.lookupMX(ctx, apex) })
	wg.Go(func() { a.txt = c.lookupTXT(ctx, apex) })
	if n.verifyValid {
		wg.Go(func() { a.cname = c.lookupCNAME(ctx, n.verify) })
	}
	if n.dkimValid {
		wg.Go(func() { a.dkim = c.lookupTXT(ctx, n.dkim) })
	}
	wg.Wait()
	return a
}

// items judges the answers against e: MX, SPF, then DKIM and verification
// where e asks for them.
func (e Expect) items(domain string, n names, a answers) []Item {
	mx := e.unreadItem(KindMX, domain+".")
	switch {
	case len(e.MXSets) > 0:
		mx = mxSetsItem(domain, e.MXSets, a.mx)
	case e.MX != "":
		mx = mxItem(domain, hostName(e.MX), a.mx)
	}
	items := []Item{mx, e.spfItem(domain, a, mx)}
	switch {
	case e.DKIM != nil:
		items = append(items, dkimItem(domain, n.dkim, n.dkimValid, e.DKIM.PublicKey, a.dkim, a.domainNX()))
	case e.DKIMSelector != "":
		items = append(items, dkimPresenceItem(domain, n.dkim, n.dkimValid, a.dkim, a.domainNX()))
	case e.unread(KindDKIM):
		items = append(items, e.unreadItem(KindDKIM, ""))
	}
	switch {
	case e.VerifyTXT != "":
		items = append(items, txtVerificationItem(domain, e.VerifyTXT, a.txt))
	case e.SecretName != "" && e.VerifyCNAME != "":
		items = append(items, verificationItem(domain, n.verify, n.verifyValid, hostName(e.VerifyCNAME), a.cname, a.domainNX()))
	case len(e.Methods) > 0:
		items = append(items, methodsItem(e.Methods))
	case e.SecretName != "" || e.unread(KindVerification):
		items = append(items, e.unreadItem(KindVerification, ""))
	}
	return items
}

// spfItem checks the SPF record against the rule e sets.
func (e Expect) spfItem(domain string, a answers, mx Item) Item {
	rule := spfRule{target: hostName(e.SPFInclude), domain: domain}
	if e.SPFInclude == "" {
		rule = spfRule{target: hostName(e.SPFHost), host: true, domain: domain}
	}
	if rule.target == "" {
		return e.unreadItem(KindSPF, domain+".")
	}
	return spfItem(domain, rule, a.txt, mx)
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
