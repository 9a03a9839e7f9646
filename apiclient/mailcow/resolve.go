package mailcow

import (
	"context"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// ResolveMailbox finds the mailbox login@domain names: the mailbox of that
// address (GET get/mailbox/{address}), else the alias of that address
// (one read of its domain's aliases, GET get/alias/all/{domain}), which
// names the mailboxes its goto lists. mailcow's mailboxes carry no
// administrator flag (its administrators are accounts of their own), so
// Admin is never set.
func (c *Client) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	op := apiclient.OpResolve
	addr := address(domain, login)
	seg, err := c.segment(op, addr)
	if err != nil {
		return nil, err
	}
	var v mailboxJSON
	found, err := c.read(ctx, op, "get/mailbox/"+seg, &v)
	if err != nil {
		return nil, err
	}
	if found {
		return &apiclient.Resolved{Mailbox: v.mailbox()}, nil
	}
	a, err := c.findAlias(ctx, op, addr)
	if apiclient.ReasonOf(err) == apiclient.ReasonNotFound {
		return nil, c.notFound(op, "no mailbox or alias "+addr+" on the mailcow server")
	}
	if err != nil {
		return nil, err
	}
	return &apiclient.Resolved{Mailbox: apiclient.Mailbox{Address: strings.Join(a.targets(), ", ")}, Alias: true}, nil
}
