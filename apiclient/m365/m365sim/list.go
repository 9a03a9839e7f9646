package m365sim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// Paging of GET /users [doc; field].
const (
	defaultPage = 100
	maxPage     = 999
)

// The $filter forms the sandbox knows, compiled on first use: the
// sandbox's package is in every mailbot process, and serve never uses it.
var (
	endsWithFilter = simkit.Pattern{Expr: `^endswith\(userPrincipalName,\s*'([^']*)'\)$`}
	proxyFilter    = simkit.Pattern{Expr: `^proxyAddresses/any\((\w+):\s*(\w+) eq '([^']*)'\)$`}
	upnFilter      = simkit.Pattern{Expr: `^userPrincipalName eq '([^']*)'$`}
)

// query is a parsed GET /users.
type query struct {
	match    func(u *user) bool
	advanced bool
	top      int
	after    string // the last userPrincipalName of the page before
}

// listUsers is GET /users: one page, by userPrincipalName.
func (s *Server) listUsers(_ *app, r *http.Request, _ []byte) reply {
	q, rep, bad := s.parseQuery(r)
	if bad {
		return rep
	}
	sel := selected(r)
	if rep, valid := (selection{s, sel, userProps, "user"}).check(); !valid {
		return rep
	}
	eventual := r.Header.Get("ConsistencyLevel") == "eventual"
	count := r.URL.Query().Get("$count") == "true"
	if q.advanced && !(eventual && count) || count && !eventual {
		return unsupported("Unsupported Query.")
	}
	var all []*user
	for _, u := range s.users {
		if q.match(u) {
			all = append(all, u)
		}
	}
	slices.SortFunc(all, func(a, b *user) int { return strings.Compare(strings.ToLower(a.upn), strings.ToLower(b.upn)) })
	start := slices.IndexFunc(all, func(u *user) bool { return strings.ToLower(u.upn) > q.after })
	if start < 0 {
		start = len(all)
	}
	page := all[start:min(len(all), start+q.top)]
	out := map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#users"}
	if count {
		out["@odata.count"] = len(all)
	}
	vals := make([]map[string]any, 0, len(page))
	for _, u := range page {
		vals = append(vals, u.json(sel))
	}
	out["value"] = vals
	if start+q.top < len(all) {
		out["@odata.nextLink"] = nextLink(r, strings.ToLower(page[len(page)-1].upn))
	}
	return ok(out)
}

// parseQuery reads $filter, $top and $skiptoken; $skip and $orderby are
// refused.
func (s *Server) parseQuery(r *http.Request) (query, reply, bool) {
	v := r.URL.Query()
	q := query{top: defaultPage, match: func(*user) bool { return true }}
	if v.Has("$skip") || v.Has("$orderby") {
		return q, unsupported("Unsupported Query."), true
	}
	if t := v.Get("$top"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 || n > maxPage {
			return q, unsupported("Invalid page size specified: '" + t + "'. Must be between 1 and 999 inclusive."), true
		}
		q.top = n
	}
	if tok := v.Get("$skiptoken"); tok != "" {
		after, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, "RFNwdAIAAQAAA"))
		if err != nil || !strings.HasPrefix(tok, "RFNwdAIAAQAAA") {
			return q, badRequest("Invalid skip token."), true
		}
		q.after = string(after)
	}
	if f := v.Get("$filter"); f != "" {
		return s.parseFilter(q, f)
	}
	return q, reply{}, false
}

// parseFilter reads the $filter forms the sandbox knows.
func (s *Server) parseFilter(q query, f string) (query, reply, bool) {
	switch m := []*regexp.Regexp{endsWithFilter.Re(), proxyFilter.Re(), upnFilter.Re()}; {
	case m[0].MatchString(f):
		suffix := strings.ToLower(m[0].FindStringSubmatch(f)[1])
		q.advanced = true
		q.match = func(u *user) bool { return strings.HasSuffix(strings.ToLower(u.upn), suffix) }
	case m[1].MatchString(f):
		g := m[1].FindStringSubmatch(f)
		if g[1] != g[2] {
			return q, badRequest("Invalid filter clause: the lambda variable is not defined."), true
		}
		q.match = func(u *user) bool {
			return slices.ContainsFunc(u.proxy, func(p string) bool { return strings.EqualFold(p, g[3]) })
		}
	case m[2].MatchString(f):
		upn := strings.ToLower(m[2].FindStringSubmatch(f)[1])
		q.match = func(u *user) bool { return strings.ToLower(u.upn) == upn }
	default:
		return q, unsupported("Unsupported or invalid query filter clause specified."), true
	}
	return q, reply{}, false
}

// nextLink is r's URL as the client reached it, with a $skiptoken after
// last.
func nextLink(r *http.Request, last string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	v := r.URL.Query()
	v.Set("$skiptoken", "RFNwdAIAAQAAA"+base64.RawURLEncoding.EncodeToString([]byte(last)))
	u := url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path, RawQuery: v.Encode()}
	return u.String()
}

// listSKUs is GET /subscribedSkus.
func (s *Server) listSKUs(_ *app, r *http.Request, _ []byte) reply {
	if r.URL.Query().Has("$filter") {
		return unsupported("Unsupported Query.")
	}
	vals := []map[string]any{}
	for _, k := range s.skus {
		vals = append(vals, map[string]any{"accountId": s.tenantID, "skuId": k.id, "skuPartNumber": k.part, "appliesTo": "User",
			"capabilityStatus": "Enabled", "consumedUnits": k.consumed,
			"prepaidUnits": map[string]int{"enabled": k.enabled, "suspended": 0, "warning": 0, "lockedOut": 0},
			"servicePlans": []map[string]any{{"servicePlanName": "EXCHANGE_S_STANDARD", "provisioningStatus": "Success", "appliesTo": "User"}}})
	}
	return ok(map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#subscribedSkus", "value": vals})
}

// licenseChange is the body of assignLicense.
type licenseChange struct {
	AddLicenses []struct {
		SkuID         string   `json:"skuId"`
		DisabledPlans []string `json:"disabledPlans"`
	} `json:"addLicenses"`
	RemoveLicenses []string `json:"removeLicenses"`
}

// assignLicense is POST /users/{key}/assignLicense: 200 and the user.
func (s *Server) assignLicense(_ *app, r *http.Request, body []byte) reply {
	var in licenseChange
	var raw map[string]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(body, &raw) != nil || raw["addLicenses"] == nil || raw["removeLicenses"] == nil {
		return badRequest("Invalid request body: addLicenses and removeLicenses are required.")
	}
	u := s.lookup(r.PathValue("key"))
	if u == nil {
		return notFound(r.PathValue("key"))
	}
	if u.usageLocation == "" && len(in.AddLicenses) > 0 {
		return badRequest("License assignment cannot be done for user with invalid usage location.")
	}
	for _, l := range in.AddLicenses {
		k := s.skuByID(l.SkuID)
		switch {
		case k == nil:
			return badRequest("License " + l.SkuID + " does not correspond to a valid company License.")
		case slices.Contains(u.licenses, k.id):
			continue
		case k.enabled-k.consumed <= 0:
			return badRequest("Subscription with SKU " + k.id + " does not have any available licenses.")
		}
		k.consumed++
		u.licenses = append(u.licenses, k.id)
	}
	s.provision(u)
	return ok(u.json(nil))
}

// provision gives a licensed user its mailbox: mail and the primary SMTP
// proxy address; s.mu is held.
func (s *Server) provision(u *user) {
	if len(u.licenses) == 0 || u.mail != "" {
		return
	}
	u.mail = u.upn
	u.proxy = append([]string{"SMTP:" + u.upn}, u.proxy...)
}

// skuByID is the tenant's SKU of id; s.mu is held.
func (s *Server) skuByID(id string) *sku {
	i := slices.IndexFunc(s.skus, func(k *sku) bool { return strings.EqualFold(k.id, id) })
	if i < 0 {
		return nil
	}
	return s.skus[i]
}
