package yandex360

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Organization is one organisation the token sees.
type Organization struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// orgList is the answer of GET /directory/v1/org.
type orgList struct {
	Organizations []Organization `json:"organizations"`
	NextPageToken string         `json:"nextPageToken"`
}

// maxOrgPages bounds the pages of organisations read.
const maxOrgPages = 20

// Organizations returns the organisations the token sees: GET
// /directory/v1/org, following nextPageToken (sent back as pageToken).
func (c *Client) Organizations(ctx context.Context) ([]Organization, error) {
	var all []Organization
	var query url.Values
	for range maxOrgPages {
		var l orgList
		if err := c.call(ctx, request{Op: apiclient.OpCheck, Method: "GET", Path: "directory/v1/org", Query: query, Out: &l}); err != nil {
			return nil, err
		}
		all = append(all, l.Organizations...)
		if l.NextPageToken == "" {
			break
		}
		query = url.Values{"pageToken": {l.NextPageToken}}
	}
	return all, nil
}

// Check is the read call at start: it proves the token (a refused one is
// an error of apiclient.ClassCredentials that names the permission
// missing) and the organisation. With an organisation chosen, it reads
// one domain and one user of it, which the permissions the commands need
// allow (directory:read_organization is not among them). Without one, it
// lists the token's organisations (which needs
// directory:read_organization) and takes the one the token sees, failing,
// with their IDs, when it sees several or none.
func (c *Client) Check(ctx context.Context) error {
	if c.org.Load() != 0 {
		return c.checkOrg(ctx)
	}
	ids, err := c.orgIDs(ctx)
	if err != nil {
		return err
	}
	switch len(ids) {
	case 1:
		c.org.Store(ids[0])
		return nil
	case 0:
		return c.refuse(apiclient.OpCheck, apiclient.ReasonNotFound, "the token sees no organisation")
	}
	return c.refuse(apiclient.OpCheck, apiclient.ReasonNotAllowed,
		"the token sees several organisations, choose one: "+idList(ids))
}

// checkOrg reads the first page of one domain and of one user of the
// organisation chosen: an unknown organisation is refused as not found,
// a permission missing (or an organisation the token does not see) is
// refused credentials.
func (c *Client) checkOrg(ctx context.Context) error {
	one := url.Values{"page": {"1"}, "perPage": {"1"}}
	for _, rest := range []string{"domains", "users"} {
		path, err := c.orgPath(apiclient.OpCheck, rest)
		if err != nil {
			return err
		}
		err = c.call(ctx, request{Op: apiclient.OpCheck, Method: http.MethodGet, Path: path, Query: one})
		var e *apiclient.Error
		switch {
		case errors.As(err, &e) && e.Reason == apiclient.ReasonNotFound:
			e.Message = fmt.Sprintf("organisation %d not found (%s)", c.org.Load(), e.Message)
		case errors.As(err, &e) && e.HTTPStatus == http.StatusForbidden:
			return c.unseenOrg(ctx, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// unseenOrg tells apart, after a 403 at start, an organisation the token
// does not see (refused as not found, the IDs it sees named) from a
// permission missing (forbidden, returned as it is): by the organisation
// list, when the token may read it.
func (c *Client) unseenOrg(ctx context.Context, forbidden error) error {
	ids, err := c.orgIDs(ctx)
	want := c.org.Load()
	if err != nil || slices.Contains(ids, want) {
		return forbidden
	}
	return c.refuse(apiclient.OpCheck, apiclient.ReasonNotFound,
		fmt.Sprintf("the token does not see organisation %d; it sees %s", want, idList(ids)))
}

// orgIDs are the IDs of the organisations the token sees.
func (c *Client) orgIDs(ctx context.Context) ([]int64, error) {
	orgs, err := c.Organizations(ctx)
	ids := make([]int64, len(orgs))
	for i, o := range orgs {
		ids[i] = o.ID
	}
	return ids, err
}

// idList is the IDs as text, "none" for no ID.
func idList(ids []int64) string {
	if len(ids) == 0 {
		return "none"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
