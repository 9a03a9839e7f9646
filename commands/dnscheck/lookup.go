package dnscheck

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"time"
)

// outcome is what one lookup established.
type outcome int

const (
	found    outcome = iota // records came back
	noData                  // the name exists but holds no such records
	nxDomain                // the name does not exist
	failed                  // no answer, or an error answer: see lookup.reason
)

// lookup is the result of one lookup: its records, what it established,
// and for failed, why, in words.
type lookup[T any] struct {
	records T
	outcome outcome
	reason  string
	// malformed is set when the resolver dropped records whose host name
	// is not a valid name (net.Resolver.LookupMX does that and returns an
	// error alongside the remaining records).
	malformed bool
}

func (c *Checker) lookupMX(ctx context.Context, name string) lookup[[]*net.MX] {
	p := new(probe)
	mxs, err := c.resolver(p).LookupMX(ctx, name)
	if err != nil && mxs != nil {
		return lookup[[]*net.MX]{records: mxs, outcome: found, malformed: true}
	}
	l := lookup[[]*net.MX]{records: mxs}
	l.outcome, l.reason = classify(ctx, err, p.codes())
	return l
}

func (c *Checker) lookupTXT(ctx context.Context, name string) lookup[[]string] {
	p := new(probe)
	txts, err := c.resolver(p).LookupTXT(ctx, name)
	l := lookup[[]string]{records: txts}
	l.outcome, l.reason = classify(ctx, err, p.codes())
	return l
}

// lookupCNAME finds the target of name's CNAME. net.Resolver.LookupCNAME
// asks for A, AAAA and CNAME records at once and returns the first CNAME's
// target; for a name with address records and no CNAME it returns the name
// itself, and for a name without any of them it fails as not found.
func (c *Checker) lookupCNAME(ctx context.Context, name string) lookup[string] {
	p := new(probe)
	target, err := c.resolver(p).LookupCNAME(ctx, name)
	l := lookup[string]{records: target}
	l.outcome, l.reason = classify(ctx, err, p.codes())
	return l
}

// classify tells what a lookup that returned err established, from the
// error and the response codes its probe saw. A not-found error is
// NXDOMAIN when the server said so, and NODATA otherwise. An error response
// is named by its code, even when a later attempt timed out; a lookup cut
// short by the check's deadline says how long the server had.
func classify(ctx context.Context, err error, rcodes []int) (outcome, string) {
	if err == nil {
		return found, ""
	}
	var dnsErr *net.DNSError
	isDNS := errors.As(err, &dnsErr)
	if isDNS && dnsErr.IsNotFound {
		if slices.Contains(rcodes, rcodeNXDomain) {
			return nxDomain, ""
		}
		return noData, ""
	}
	for _, rc := range rcodes {
		if rc != rcodeSuccess && rc != rcodeNXDomain {
			return failed, rcodeReason(rc)
		}
	}
	if isDNS && dnsErr.IsTimeout {
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			<-ctx.Done() // the deadline has passed, so this is at once
		}
	}
	if ctx.Err() != nil {
		return failed, deadlineReason(ctx)
	}
	if isDNS && dnsErr.IsTimeout {
		return failed, "the DNS server did not answer (timed out)"
	}
	if isDNS {
		return failed, "the DNS lookup failed: " + dnsErr.Err
	}
	return failed, "the DNS lookup failed: " + err.Error()
}

// rcodeReason says in words what an error response code means.
func rcodeReason(rc int) string {
	switch rc {
	case rcodeServFail:
		return "the DNS server failed to answer (SERVFAIL)"
	case rcodeRefused:
		return "the DNS server refused to answer (REFUSED)"
	case rcodeNotImpl:
		return "the DNS server does not support the query (NOTIMP)"
	case rcodeFormError:
		return "the DNS server could not read the query (FORMERR)"
	}
	return "the DNS server answered with error code " + strconv.Itoa(rc)
}

// deadlineReason says why a check's context ended before an answer came.
func deadlineReason(ctx context.Context) string {
	var d deadlineError
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &d):
		return "the DNS server did not answer within " + d.d.String()
	case errors.Is(cause, context.Canceled):
		return "the check was cancelled before the DNS server answered"
	}
	return "the DNS server did not answer in time"
}
