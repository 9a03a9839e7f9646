package pdd

import (
	"context"
	"strconv"
	"strings"
)

// Mailbox is a mailbox the add operation created.
type Mailbox struct {
	Domain string
	Login  string // the full address
	UID    int64  // real uids are above 2^40
}

// AddMailbox adds the mailbox as [Adapter.AddMailbox] does, with the old
// client's result and errors (see [Client]).
func (c *Client) AddMailbox(ctx context.Context, domain, login, password string) (*Mailbox, error) {
	m, err := c.a.AddMailbox(ctx, domain, login, password, false)
	if err != nil {
		return nil, legacyError(OpAddMailbox, err)
	}
	uid, _ := strconv.ParseInt(m.UID, 10, 64) // checked by the adapter
	_, answered, _ := strings.Cut(m.Address, "@")
	return &Mailbox{Domain: answered, Login: m.Address, UID: uid}, nil
}
