package google

import (
	"context"
	"net/http"
	"net/url"
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
	var u userJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: "admin/directory/v1/users/" + url.PathEscape(email), Out: &u}); err != nil {
		return nil, err
	}
	own := strings.ToLower(u.PrimaryEmail)
	return &apiclient.Resolved{Mailbox: *u.mailbox(), Alias: own != email,
		Admin: u.IsAdmin || u.IsDelegatedAdmin, ActsAs: strings.EqualFold(own, c.admin)}, nil
}
