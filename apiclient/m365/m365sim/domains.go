package m365sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// graphContext is the base of the @odata.context Graph gives an answer.
const graphContext = "https://graph.microsoft.com/v1.0/$metadata#"

// json is the domain as Graph writes it: every property of the domain
// resource [doc], as a create, a get and a verify return them.
func (d *domain) json() map[string]any {
	services := []string{}
	if d.verified {
		services = []string{"Email", "OfficeCommunicationsOnline"}
	}
	return map[string]any{"id": d.name, "authenticationType": "Managed", "availabilityStatus": nil, "isAdminManaged": true,
		"isDefault": d.isDefault, "isInitial": d.initial, "isRoot": !strings.Contains(strings.TrimSuffix(d.name, "."+rootOf(d.name)), "."),
		"isVerified": d.verified, "passwordNotificationWindowInDays": 14, "passwordValidityPeriodInDays": 2147483647,
		"state": nil, "supportedServices": services}
}

// entity is the domain as one answer carries it, with its @odata.context.
func (d *domain) entity() map[string]any {
	m := d.json()
	m["@odata.context"] = graphContext + "domains/$entity"
	return m
}

// rootOf is the last two labels of name.
func rootOf(name string) string {
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return name
	}
	return strings.Join(labels[len(labels)-2:], ".")
}

// canonicalDomain is name in lower case, without a trailing dot; ok is
// false for a name that is not a domain name.
func canonicalDomain(name string) (string, bool) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	return n, domainForm.Re().MatchString(n)
}

// createDomain is POST /domains {"id"}: 201, unverified, or verified at
// once when it is a subdomain of a verified domain [doc].
func (s *Server) createDomain(_ *app, _ *http.Request, body []byte) reply {
	var in struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.ID == "" {
		return badRequest("A value is required for property 'id' of resource 'Domain'.")
	}
	n, valid := canonicalDomain(in.ID)
	switch {
	case !valid:
		return badRequest("One or more properties contains invalid values.")
	case s.domains[n] != nil:
		return conflict("id")
	}
	d := &domain{name: n, txt: fmt.Sprintf("MS=ms%08d", randInt(100000000))}
	for parent, p := range s.domains {
		if p.verified && strings.HasSuffix(n, "."+parent) {
			d.verified = true
		}
	}
	s.domains[n] = d
	return reply{status: http.StatusCreated, body: d.entity()}
}

// domainOf is the tenant's domain named in the path, or the answer for an
// unknown one; s.mu is held.
func (s *Server) domainOf(r *http.Request) (*domain, reply, bool) {
	n, _ := canonicalDomain(r.PathValue("id"))
	d := s.domains[n]
	if d == nil {
		return nil, notFound(r.PathValue("id")), false
	}
	return d, reply{}, true
}

// listDomains is GET /domains: the tenant's domains, by name.
func (s *Server) listDomains(_ *app, _ *http.Request, _ []byte) reply {
	names := make([]string, 0, len(s.domains))
	for n := range s.domains {
		names = append(names, n)
	}
	slices.Sort(names)
	vals := make([]map[string]any, 0, len(names))
	for _, n := range names {
		vals = append(vals, s.domains[n].json())
	}
	return ok(map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#domains", "value": vals})
}

// getDomain is GET /domains/{id}: every property, or those $select
// names.
func (s *Server) getDomain(_ *app, r *http.Request, _ []byte) reply {
	d, rep, found := s.domainOf(r)
	if !found {
		return rep
	}
	sel := selected(r)
	m, rep, valid := selection{s, sel, domainProps, "domain"}.apply(d.entity(), "@odata.context")
	if !valid {
		return rep
	}
	if len(sel) > 0 {
		m["@odata.context"] = graphContext + "domains(" + strings.Join(sel, ",") + ")/$entity"
	}
	return ok(m)
}

// verificationRecords is GET /domains/{id}/verificationDnsRecords: the
// TXT record, and the MX alternative.
func (s *Server) verificationRecords(_ *app, r *http.Request, _ []byte) reply {
	d, rep, found := s.domainOf(r)
	if !found {
		return rep
	}
	code := strings.TrimPrefix(d.txt, "MS=")
	vals := []map[string]any{
		{"@odata.type": "#microsoft.graph.domainDnsTxtRecord", "id": guid(), "isOptional": false, "label": d.name,
			"recordType": "Txt", "supportedService": "Email", "ttl": 3600, "text": d.txt},
		{"@odata.type": "#microsoft.graph.domainDnsMxRecord", "id": guid(), "isOptional": false, "label": d.name,
			"recordType": "Mx", "supportedService": "Email", "ttl": 3600, "mailExchange": code + ".msv1.invalid", "preference": 32767},
	}
	return selection{s, selected(r), recordProps, "domainDnsRecord"}.records(d.name, "verificationDnsRecords", vals)
}

// verify is POST /domains/{id}/verify: the domain, verified once its TXT
// record is in DNS.
func (s *Server) verify(_ *app, r *http.Request, _ []byte) reply {
	d, rep, found := s.domainOf(r)
	switch {
	case !found:
		return rep
	case d.verified:
		return badRequest("Domain is already verified.")
	case !s.published[d.name]:
		return badRequest("Domain verification failed: the TXT record " + d.txt + " was not found in the DNS of " + d.name + ".")
	}
	d.verified = true
	return ok(d.entity())
}

// MXHost is the MX host Microsoft gives a domain (the sandbox's form).
func MXHost(name string) string {
	return strings.ReplaceAll(name, ".", "-") + ".mail.protection.outlook.com"
}

// serviceRecords is GET /domains/{id}/serviceConfigurationRecords.
func (s *Server) serviceRecords(_ *app, r *http.Request, _ []byte) reply {
	d, rep, found := s.domainOf(r)
	if !found {
		return rep
	}
	return selection{s, selected(r), recordProps, "domainDnsRecord"}.records(d.name, "serviceConfigurationRecords", serviceTable(d.name))
}

// serviceTable is what serviceConfigurationRecords lists for the domain
// name: the Email service's MX, SPF and autodiscover records, and beside
// them those of Teams and Skype for Business (OfficeCommunicationsOnline)
// and of Intune, which mail does not need [field: the records Microsoft
// publishes for a Microsoft 365 domain; their shapes assumed].
func serviceTable(name string) []map[string]any {
	rec := func(kind, service, label string, optional bool, fields map[string]any) map[string]any {
		m := map[string]any{"@odata.type": "#microsoft.graph.domainDns" + kind + "Record", "id": guid(), "isOptional": optional,
			"label": label, "recordType": kind, "supportedService": service, "ttl": 3600}
		maps.Copy(m, fields)
		return m
	}
	const email, teams, intune = "Email", "OfficeCommunicationsOnline", "Intune"
	srv := func(service, protocol, target string, port int) map[string]any {
		return rec("Srv", teams, name, false, map[string]any{"service": service, "protocol": protocol, "nameTarget": target,
			"port": port, "priority": 100, "weight": 1})
	}
	return []map[string]any{
		rec("Mx", email, name, false, map[string]any{"mailExchange": MXHost(name), "preference": 0}),
		rec("Txt", email, name, false, map[string]any{"text": "v=spf1 include:spf.protection.outlook.com -all"}),
		rec("CName", email, "autodiscover."+name, true, map[string]any{"canonicalName": "autodiscover.outlook.com"}),
		rec("CName", teams, "sip."+name, false, map[string]any{"canonicalName": "sipdir.online.lync.com"}),
		rec("CName", teams, "lyncdiscover."+name, false, map[string]any{"canonicalName": "webdir.online.lync.com"}),
		srv("_sip", "_tls", "sipdir.online.lync.com", 443),
		srv("_sipfederationtls", "_tcp", "sipfed.online.lync.com", 5061),
		rec("CName", intune, "enterpriseregistration."+name, false, map[string]any{"canonicalName": "enterpriseregistration.windows.net"}),
		rec("CName", intune, "enterpriseenrollment."+name, false, map[string]any{"canonicalName": "enterpriseenrollment-s.manage.microsoft.com"}),
	}
}
