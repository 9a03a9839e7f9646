package m365

import (
	"context"
	"net/http"
	"net/url"

	"github.com/mailbot/mailbot/apiclient"
)

// ResolveMailbox finds the user that login@domain names: the user whose
// userPrincipalName it is, or else (a proxy address is no key in Graph)
// the user one of whose proxyAddresses it is, which makes it an alias. A
// user who holds any directory role
// (memberOf/microsoft.graph.directoryRole) is an administrator.
func (c *Client) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	op := apiclient.OpResolve
	upn, err := address(op, domain, login)
	if err != nil {
		return nil, err
	}
	u, err := c.getUser(ctx, op, upn)
	if apiclient.ReasonOf(err) == apiclient.ReasonNotFound {
		return c.proxyOwner(ctx, upn, err)
	}
	if err != nil {
		return nil, err
	}
	admin, err := c.holdsRole(ctx, op, u.ID)
	if err != nil {
		return nil, err
	}
	return &apiclient.Resolved{Mailbox: *u.mailbox(), Admin: admin}, nil
}

// proxyOwner is the user one of whose proxy addresses is addr, an alias;
// none is notFound.
func (c *Client) proxyOwner(ctx context.Context, addr string, notFound error) (*apiclient.Resolved, error) {
	var l userPage
	q := url.Values{"$filter": {"proxyAddresses/any(x:x eq 'smtp:" + addr + "')"}, "$select": {userFields}, "$count": {"true"}}
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: apiclient.OpResolve, Method: http.MethodGet, Path: "v1.0/users",
		Query: q, Out: &l}, header: eventual()}); err != nil { // advanced where a tenant counts it so: harmless where not
		return nil, err
	}
	if len(l.Value) == 0 {
		return nil, notFound
	}
	return &apiclient.Resolved{Mailbox: *l.Value[0].mailbox(), Alias: true}, nil
}

// holdsRole reports whether the user id holds any directory role.
func (c *Client) holdsRole(ctx context.Context, op apiclient.Op, id string) (bool, error) {
	var out struct {
		Value []struct {
			ID string `json:"id"`
		} `json:"value"`
	}
	err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodGet,
		Path: "v1.0/users/" + url.PathEscape(id) + "/memberOf/microsoft.graph.directoryRole", Out: &out}})
	return len(out.Value) > 0, err
}
