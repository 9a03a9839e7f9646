package y360sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// addAlias is POST /directory/v1/org/{orgId}/users/{userId}/aliases
// {"alias": local part}; s.mu is held.
func (s *Server) addAlias(o *org, r *http.Request, body []byte) reply {
	var in struct {
		Alias string `json:"alias"`
	}
	if json.Unmarshal(body, &in) != nil {
		return invalidBody()
	}
	u := o.userByID(r.PathValue("userId"))
	alias := strings.ToLower(in.Alias)
	switch {
	case u == nil:
		return notFound("user not found")
	case !nicknameRule.Re().MatchString(alias):
		return invalid("alias must be a local part: 1 to 30 Latin letters, digits, '-', '.' and '_'")
	case o.nameTaken(alias):
		return failure(http.StatusConflict, codeAlreadyExists, "alias is already used in the organization")
	}
	u.aliases = append(u.aliases, alias)
	u.updated = time.Now().UTC()
	return reply{http.StatusOK, o.userJSON(u)}
}

// deleteAlias is DELETE
// /directory/v1/org/{orgId}/users/{userId}/aliases/{alias}; s.mu is held.
func (s *Server) deleteAlias(o *org, r *http.Request, _ []byte) reply {
	u := o.userByID(r.PathValue("userId"))
	alias := strings.ToLower(r.PathValue("alias"))
	if u == nil {
		return notFound("user not found")
	}
	i := slices.Index(u.aliases, alias)
	if i < 0 {
		return notFound("alias not found")
	}
	u.aliases = slices.Delete(u.aliases, i, i+1)
	u.updated = time.Now().UTC()
	return reply{http.StatusOK, map[string]any{"alias": alias, "removed": true}}
}

// nameTaken reports whether name is a nickname or an alias in the
// organisation.
func (o *org) nameTaken(name string) bool {
	if o.user(name) != nil {
		return true
	}
	for _, u := range o.users {
		if slices.Contains(u.aliases, name) {
			return true
		}
	}
	return false
}

// AddAlias gives the user of the mailbox to (nickname@domain) the alias
// (its local part; the domain must be the same organisation's).
func (s *Server) AddAlias(address, to string) error {
	local, dom, _ := strings.Cut(strings.ToLower(address), "@")
	nick, toDom, _ := strings.Cut(strings.ToLower(to), "@")
	a, _ := canonicalDomain(dom)
	b, _ := canonicalDomain(toDom)
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.domainOwner(b)
	switch {
	case o == nil || o.user(nick) == nil:
		return fmt.Errorf("y360sim: no mailbox %q", to)
	case s.domainOwner(a) != o:
		return fmt.Errorf("y360sim: %q is not a domain of the organisation of %q", dom, to)
	case !nicknameRule.Re().MatchString(local) || o.nameTaken(local):
		return fmt.Errorf("y360sim: %q is not a free alias", local)
	}
	u := o.user(nick)
	u.aliases = append(u.aliases, local)
	return nil
}

// Aliases returns the aliases (local parts) of the mailbox
// nickname@domain, in the order they were added.
func (s *Server) Aliases(mailbox string) []string {
	nick, dom, _ := strings.Cut(strings.ToLower(mailbox), "@")
	d, _ := canonicalDomain(dom)
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.domainOwner(d)
	if o == nil || o.user(nick) == nil {
		return nil
	}
	return slices.Clone(o.user(nick).aliases)
}
