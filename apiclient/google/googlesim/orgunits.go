package googlesim

import (
	"net/http"
	"path"
)

// ScopeOrgUnit is the read-only scope of organisational units, which
// orgunits.get needs.
const ScopeOrgUnit = "https://www.googleapis.com/auth/admin.directory.orgunit.readonly"

// AddOrgUnit adds the organisational unit at p ("/Staff/New") and its
// parents; the root, "/", always exists. Paths are matched exactly.
func (s *Server) AddOrgUnit(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.orgUnits == nil {
		s.orgUnits = map[string]bool{}
	}
	for p = path.Clean("/" + p); p != "/"; p = path.Dir(p) {
		s.orgUnits[p] = true
	}
}

// OrgUnitOf is the organisational unit of the user with this primary
// address, and whether there is one.
func (s *Server) OrgUnitOf(email string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[email]
	if u == nil {
		return "", false
	}
	return orgUnitOr(u.orgUnit), true
}

// orgUnitExists reports whether the unit at p exists; s.mu is held.
func (s *Server) orgUnitExists(p string) bool { return p == "/" || s.orgUnits[p] }

// orgUnitOr is p, or the root when p is empty.
func orgUnitOr(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// getOrgUnit is GET customer/{customer}/orgunits/{orgUnitPath}: the unit
// at that path (without its leading /), or 404 "Org unit not found".
func (s *Server) getOrgUnit(_ string, r *http.Request, _ []byte) reply {
	if rep, ok := s.customerReply(r); !ok {
		return rep
	}
	p := "/" + r.PathValue("orgUnitPath")
	if !s.orgUnitExists(p) {
		return notFound("Org unit not found")
	}
	return ok(map[string]any{"kind": "admin#directory#orgUnit", "orgUnitPath": p, "name": path.Base(p)})
}
