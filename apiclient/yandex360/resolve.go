package yandex360

import (
	"context"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// ResolveMailbox finds the user that login@domain names, once the domain
// is one of the organisation's: the user whose nickname is login, else the
// one that has login among its aliases (an alias is a name at every
// domain of the organisation). The user's email is its own address; any
// other address (its nickname at another domain, an alias) is another
// name of it. isAdmin makes it an administrator.
func (c *Client) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	op := apiclient.OpResolve
	u, err := c.findUserBy(ctx, op, domain, login, func(u *userJSON) bool {
		return strings.EqualFold(u.Nickname, login) || slices.ContainsFunc(u.Aliases, func(a string) bool { return strings.EqualFold(a, login) })
	})
	if err != nil {
		return nil, err
	}
	typed := strings.ToLower(login + "@" + strings.TrimSuffix(domain, "."))
	return &apiclient.Resolved{Mailbox: *u.mailbox(), Alias: !strings.EqualFold(u.Email, typed), Admin: u.IsAdmin}, nil
}
