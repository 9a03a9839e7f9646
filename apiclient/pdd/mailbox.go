package pdd

import (
	"github.com/mailbot/mailbot/apiclient"

	"context"
	"fmt"
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
	return mailboxOf(r, domain, password, c.token)
}

// mailboxOf reads the mailbox of a successful add answer for the domain
// asked for.
func mailboxOf(r *response, domain string, secrets ...string) (*Mailbox, error) {
	uid, err := strconv.ParseInt(r.UID.String(), 10, 64)
	if err != nil || uid <= 0 {
		uidText := apiclient.Excerpt([]byte(r.UID.String()), apiclient.ExcerptLen, secrets...)
		return nil, &ResponseError{Op: OpAddMailbox, StatusCode: 200, Reason: fmt.Sprintf("answer has no valid uid %q", uidText)}
	}
	m := &Mailbox{Domain: r.Domain, Login: r.Login, UID: uid}
	if m.Domain == "" {
		m.Domain = domain
	}
	return m, nil
}
