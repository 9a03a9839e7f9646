package m365

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// pageMax is the most users one page of GET /users holds.
const pageMax = 999

// userPage is a page of GET /users.
type userPage struct {
	Count    *int       `json:"@odata.count"`
	NextLink string     `json:"@odata.nextLink"`
	Value    []userJSON `json:"value"`
}

// eventual is the header of Graph's advanced queries.
func eventual() http.Header { return http.Header{"ConsistencyLevel": {"eventual"}} }

// ListMailboxes reads one page of the users whose userPrincipalName ends
// in @domain (an advanced query: $count=true and ConsistencyLevel:
// eventual), at most limit of them (1 to 999). The cursor is the
// $skiptoken of the page's @odata.nextLink: the next page is the same
// query with it. The total is @odata.count.
func (c *Client) ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error) {
	op := apiclient.OpList
	d, err := domainName(op, domain)
	if err != nil {
		return nil, err
	}
	q := url.Values{"$filter": {"endswith(userPrincipalName,'@" + d + "')"}, "$count": {"true"},
		"$select": {"id,userPrincipalName,accountEnabled"}, "$top": {strconv.Itoa(min(max(limit, 1), pageMax))}}
	if cursor != "" {
		q.Set("$skiptoken", cursor)
	}
	var l userPage
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodGet, Path: "v1.0/users", Query: q, Out: &l},
		header: eventual()}); err != nil {
		return nil, err
	}
	p := &apiclient.Page{Total: -1, Mailboxes: make([]apiclient.Mailbox, 0, len(l.Value))}
	if l.Count != nil {
		p.Total = *l.Count
	}
	if l.NextLink != "" {
		if p.Next = SkipToken(l.NextLink); p.Next == "" {
			return nil, c.caller.Fail(op, apiclient.ClassTemporary, http.StatusOK, "", "a next page's link without a $skiptoken")
		}
	}
	for i := range l.Value {
		p.Mailboxes = append(p.Mailboxes, *l.Value[i].mailbox())
	}
	return p, nil
}

// SkipToken is the $skiptoken of an @odata.nextLink, "" when it has none.
func SkipToken(nextLink string) string {
	u, err := url.Parse(nextLink)
	if err != nil {
		return ""
	}
	return u.Query().Get("$skiptoken")
}

// subscribedSKU is an entry of GET /subscribedSkus.
type subscribedSKU struct {
	SkuID         string `json:"skuId"`
	SkuPartNumber string `json:"skuPartNumber"`
	ConsumedUnits int    `json:"consumedUnits"`
	PrepaidUnits  struct {
		Enabled int `json:"enabled"`
	} `json:"prepaidUnits"`
}

// skus is GET /subscribedSkus.
func (c *Client) skus(ctx context.Context, op apiclient.Op) ([]subscribedSKU, error) {
	var out struct {
		Value []subscribedSKU `json:"value"`
	}
	err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodGet, Path: "v1.0/subscribedSkus", Out: &out}})
	return out.Value, err
}

// findSKU is the SKU the licence names (part number or skuId, any letter
// case), nil when the tenant has none.
func (c *Client) findSKU(all []subscribedSKU) *subscribedSKU {
	for i := range all {
		if strings.EqualFold(all[i].SkuPartNumber, c.license) || strings.EqualFold(all[i].SkuID, c.license) {
			return &all[i]
		}
	}
	return nil
}

// skuID is the licence's skuId, read once from subscribedSkus.
func (c *Client) skuID(ctx context.Context, op apiclient.Op) (string, error) {
	c.mu.Lock()
	id := c.sku
	c.mu.Unlock()
	if id != "" {
		return id, nil
	}
	all, err := c.skus(ctx, op)
	if err != nil {
		return "", err
	}
	k := c.findSKU(all)
	if k == nil {
		return "", c.unknownLicense(op, all)
	}
	c.mu.Lock()
	c.sku = k.SkuID
	c.mu.Unlock()
	return k.SkuID, nil
}

// unknownLicense is the error of a licence the tenant does not have,
// naming those it has.
func (c *Client) unknownLicense(op apiclient.Op, all []subscribedSKU) *apiclient.Error {
	names := make([]string, 0, len(all))
	for _, k := range all {
		names = append(names, k.SkuPartNumber)
	}
	e := refuse(op, apiclient.ReasonInvalid, "the tenant has no licence "+strconv.Quote(c.license)+" ("+LicenseSetting+"); it has: "+
		strings.Join(names, ", "))
	return e
}

// Check is the read call at start: a token, then the tenant's licences
// (GET /subscribedSkus). A refused secret, an unknown client or tenant, a
// missing permission, or a licence the tenant does not have is an error
// naming the setting to fix.
func (c *Client) Check(ctx context.Context) error {
	all, err := c.skus(ctx, apiclient.OpCheck)
	if err != nil {
		return err
	}
	k := c.findSKU(all)
	if k == nil {
		e := c.unknownLicense(apiclient.OpCheck, all)
		e.Setting = LicenseSetting
		return e
	}
	c.mu.Lock()
	c.sku, c.seats = k.SkuID, k.PrepaidUnits.Enabled-k.ConsumedUnits
	c.mu.Unlock()
	return nil
}

// StartWarnings are the lines serve logs at start: no free seat of the
// licence left.
func (c *Client) StartWarnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sku == "" || c.seats > 0 {
		return nil
	}
	return []string{"the licence " + c.license + " (" + LicenseSetting + ") has no free seat: new users will be created without a mailbox until one is bought or freed"}
}
