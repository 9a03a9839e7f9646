package google

import (
	"context"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// ResolveMailbox reads the user that login@domain names (users.get, which
// takes an alias in place of the user, as Google does): its primaryEmail
// is the mailbox's own address, and an address that differs from it is
// an alias. isAdmin or isDelegatedAdmin make it an administrator; the
// admin the client acts as is the account mailbot acts as.
func (c *Client) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	op := apiclient.OpResolve
	email, err := c.email(op, domain, login)
	if err != nil {
		return nil, err
	}
	u, err := c.getUser(ctx, op, email)
	if err != nil {
		return nil, err
	}
	own := strings.ToLower(u.PrimaryEmail)
	return &apiclient.Resolved{Mailbox: *u.mailbox(), Alias: own != email,
		Admin: u.IsAdmin || u.IsDelegatedAdmin, ActsAs: strings.EqualFold(own, c.admin)}, nil
}
