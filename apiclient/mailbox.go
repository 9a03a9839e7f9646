package apiclient

import (
	"context"
	"net/url"
	"strconv"
)

// Mailbox is a mailbox the add operation created.
type Mailbox struct {
	Domain string
	Login  string // the full address
	UID    int64  // real uids are above 2^40
}

// AddMailbox calls POST /api2/admin/email/add (seed §4.2) to create the
// mailbox login (a user name, or user@domain) in domain with password.
//
// Retries: the temporary failure "unknown" and a request that was never
// sent are retried under the retry policy. A request that was sent but got
// no answer (a timeout, a reset, a 5xx) is never retried: the mailbox may
// exist now, and the [*TransportError] or [*ResponseError] says so.
func (c *Client) AddMailbox(ctx context.Context, domain, login, password string) (*Mailbox, error) {
	form := url.Values{"domain": {domain}, "login": {login}, "password": {password}}
	r, err := c.call(ctx, OpAddMailbox, form, false, password)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseInt(r.UID.String(), 10, 64)
	if err != nil || uid <= 0 {
		return nil, &ResponseError{Op: OpAddMailbox, StatusCode: 200, Reason: "answer has no valid uid", Excerpt: excerpt([]byte(r.UID.String()), excerptLen, password, c.token)}
	}
	m := &Mailbox{Domain: r.Domain, Login: r.Login, UID: uid}
	if m.Domain == "" {
		m.Domain = domain
	}
	return m, nil
}
