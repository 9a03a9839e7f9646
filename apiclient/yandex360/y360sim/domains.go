package y360sim

import (
	"encoding/json"
	"net/http"
)

// Domain statuses as the sandbox gives them (the record enumerates none).
const (
	StatusNeedValidation = "need-validation"
	StatusOK             = "ok"
)

// methodNames are the verification methods of an unverified domain.
var methodNames = []string{"webmaster.dns", "webmaster.meta", "webmaster.file"}

// domainJSON is a domain as DomainService_Create answers it.
type domainJSON struct {
	Name      string            `json:"name"`
	Verified  bool              `json:"verified"`
	MX        bool              `json:"mx"`
	Delegated bool              `json:"delegated"`
	Master    bool              `json:"master"`
	Status    map[string]string `json:"status"`
}

func (o *org) domainJSON(d *domain) domainJSON {
	return domainJSON{Name: d.name, Verified: d.verified, MX: d.verified, Master: d == o.domains[0],
		Status: map[string]string{"status": d.status()}}
}

func (d *domain) status() string {
	if d.verified {
		return StatusOK
	}
	return StatusNeedValidation
}

// methodJSON is one verification method of DomainService_Status.
type methodJSON struct {
	Method string `json:"method"`
	Code   string `json:"code"`
}

// addDomain is POST /directory/v1/org/{orgId}/domains; s.mu is held.
func (s *Server) addDomain(o *org, _ *http.Request, body []byte) reply {
	var in struct {
		Domain string `json:"domain"`
	}
	if json.Unmarshal(body, &in) != nil {
		return invalidBody()
	}
	name, ok := canonicalDomain(in.Domain)
	switch {
	case !ok:
		return invalid("domain must be an ASCII host name (punycode for IDNs)")
	case s.domainOwner(name) != nil:
		return failure(http.StatusConflict, codeAlreadyExists, "domain already exists")
	}
	d := &domain{name: name, code: hex16()}
	o.domains = append(o.domains, d)
	return reply{http.StatusOK, o.domainJSON(d)}
}

// listDomains is GET /directory/v1/org/{orgId}/domains; s.mu is held.
func (s *Server) listDomains(o *org, r *http.Request, _ []byte) reply {
	return listPage(r, "domains", maxDomainsPerPage, o.domains, o.domainJSON)
}

// domainStatus is GET /directory/v1/org/{orgId}/domains/{domain}/status;
// s.mu is held.
func (s *Server) domainStatus(o *org, r *http.Request, _ []byte) reply {
	name, _ := canonicalDomain(r.PathValue("domain"))
	d := o.domain(name)
	if d == nil {
		return notFound("domain not found")
	}
	methods := []methodJSON{}
	if !d.verified {
		for _, m := range methodNames {
			methods = append(methods, methodJSON{Method: m, Code: d.code})
		}
	}
	return reply{http.StatusOK, map[string]any{"status": d.status(), "methods": methods}}
}
