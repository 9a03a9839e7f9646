package googlesim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// domainJSON is a domain as the Directory API answers it.
type domainJSON struct {
	Kind         string `json:"kind"`
	DomainName   string `json:"domainName"`
	Verified     bool   `json:"verified"`
	IsPrimary    bool   `json:"isPrimary"`
	CreationTime int64  `json:"creationTime,string"`
}

func (d *domain) json() domainJSON {
	return domainJSON{Kind: "admin#directory#domain", DomainName: d.name, Verified: d.verified,
		IsPrimary: d.primary, CreationTime: d.created.UnixMilli()}
}

// isCustomer reports whether c names the sandbox's customer.
func (s *Server) isCustomer(c string) bool { return c == "my_customer" || c == CustomerID }

// customerReply refuses a path whose customer is not the sandbox's.
func (s *Server) customerReply(r *http.Request) (reply, bool) {
	if !s.isCustomer(r.PathValue("customer")) {
		return notFound("Resource Not Found: customer"), false
	}
	return reply{}, true
}

// insertDomain is POST customer/{customer}/domains {domainName}.
func (s *Server) insertDomain(_ string, r *http.Request, body []byte) reply {
	if rep, ok := s.customerReply(r); !ok {
		return rep
	}
	var in struct {
		DomainName string `json:"domainName"`
	}
	if json.Unmarshal(body, &in) != nil {
		return invalid("Invalid JSON payload received.")
	}
	name, valid := canonicalDomain(in.DomainName)
	switch {
	case !valid:
		return invalid("Invalid Input: domainName")
	case s.domains[name] != nil:
		return duplicate()
	}
	d := &domain{name: name, created: s.now().UTC()}
	s.domains[name] = d
	return ok(d.json())
}

// getDomain is GET customer/{customer}/domains/{domainName}.
func (s *Server) getDomain(_ string, r *http.Request, _ []byte) reply {
	if rep, ok := s.customerReply(r); !ok {
		return rep
	}
	name, _ := canonicalDomain(r.PathValue("domainName"))
	d := s.domains[name]
	if d == nil {
		return notFound("Domain not found.")
	}
	return ok(d.json())
}

// listDomains is GET customer/{customer}/domains.
func (s *Server) listDomains(_ string, r *http.Request, _ []byte) reply {
	if rep, ok := s.customerReply(r); !ok {
		return rep
	}
	names := make([]string, 0, len(s.domains))
	for n := range s.domains {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]domainJSON, len(names))
	for i, n := range names {
		out[i] = s.domains[n].json()
	}
	return ok(map[string]any{"kind": "admin#directory#domains", "domains": out})
}

// site is a Site Verification resource's site.
type site struct {
	Type       string `json:"type"`
	Identifier string `json:"identifier"`
}

// getToken is POST siteVerification/v1/token {site, verificationMethod}:
// the asker's token for the domain, the same one each time.
func (s *Server) getToken(sub string, _ *http.Request, body []byte) reply {
	var in struct {
		Site   site   `json:"site"`
		Method string `json:"verificationMethod"`
	}
	if json.Unmarshal(body, &in) != nil {
		return invalid("Invalid JSON payload received.")
	}
	name, valid := canonicalDomain(in.Site.Identifier)
	switch {
	case in.Site.Type != "INET_DOMAIN" || !valid:
		return invalid("Invalid site identifier.")
	case in.Method != "DNS_TXT":
		return invalid("Invalid verification method for the site type.")
	}
	k := siteKey{name, sub}
	if s.siteToken[k] == "" {
		s.siteToken[k] = "google-site-verification=" + hex(21)
	}
	return ok(map[string]string{"method": "DNS_TXT", "token": s.siteToken[k]})
}

// verify is POST siteVerification/v1/webResource?verificationMethod=DNS_TXT
// {site}: verified when the domain's TXT record carries the asker's token.
func (s *Server) verify(sub string, r *http.Request, body []byte) reply {
	var in struct {
		Site site `json:"site"`
	}
	if json.Unmarshal(body, &in) != nil {
		return invalid("Invalid JSON payload received.")
	}
	name, valid := canonicalDomain(in.Site.Identifier)
	switch {
	case in.Site.Type != "INET_DOMAIN" || !valid:
		return invalid("Invalid site identifier.")
	case r.URL.Query().Get("verificationMethod") != "DNS_TXT":
		return invalid("Invalid verification method for the site type.")
	case s.siteToken[siteKey{name, sub}] == "" || !s.published[name]:
		return failure(http.StatusBadRequest, "badRequest", "The necessary verification token could not be found on your site.")
	}
	if d := s.domains[name]; d != nil {
		d.verified = true
	}
	return ok(map[string]any{"id": "dns://" + name, "site": site{"INET_DOMAIN", name}, "owners": []string{sub}})
}

// canonicalDomain is name in lower case without a trailing dot, and
// whether it is a plausible domain name.
func canonicalDomain(name string) (string, bool) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if len(n) < 3 || len(n) > 253 || !strings.Contains(n, ".") {
		return n, false
	}
	for _, l := range strings.Split(n, ".") {
		if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return n, false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return n, false
			}
		}
	}
	return n, true
}
