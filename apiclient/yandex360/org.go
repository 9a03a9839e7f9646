package yandex360

import (
	"context"
	"fmt"
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
// an error of apiclient.ClassCredentials) and the organisation. Without an
// organisation chosen, it takes the one the token sees, and fails, listing
// their IDs, when the token sees several or none. With one chosen, it
// fails when the token does not see it.
func (c *Client) Check(ctx context.Context) error {
	orgs, err := c.Organizations(ctx)
	if err != nil {
		return err
	}
	ids := make([]int64, len(orgs))
	for i, o := range orgs {
		ids[i] = o.ID
	}
	want := c.org.Load()
	switch {
	case want != 0 && !slices.Contains(ids, want):
		return c.refuse(apiclient.OpCheck, apiclient.ReasonNotFound,
			fmt.Sprintf("the token does not see organisation %d; it sees %s", want, idList(ids)))
	case want != 0:
		return nil
	case len(ids) == 1:
		c.org.Store(ids[0])
		return nil
	case len(ids) == 0:
		return c.refuse(apiclient.OpCheck, apiclient.ReasonNotFound, "the token sees no organisation")
	}
	return c.refuse(apiclient.OpCheck, apiclient.ReasonNotAllowed,
		"the token sees several organisations, choose one: "+idList(ids))
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
