package googlesim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// aliasJSON is the Alias resource as users.aliases answers it.
type aliasJSON struct {
	Kind         string `json:"kind"`
	ID           string `json:"id"`
	Etag         string `json:"etag"`
	PrimaryEmail string `json:"primaryEmail"`
	Alias        string `json:"alias"`
}

// aliasList is the answer of users.aliases.list.
type aliasList struct {
	Kind    string      `json:"kind"`
	Etag    string      `json:"etag"`
	Aliases []aliasJSON `json:"aliases,omitempty"`
}

func (u *user) aliasJSON(alias string) aliasJSON {
	return aliasJSON{Kind: "admin#directory#alias", ID: u.id, Etag: etag(),
		PrimaryEmail: u.email, Alias: alias}
}

// etag is an opaque, quoted entity tag.
func etag() string { return `"` + hex(12) + `"` }

// taken reports whether address is a user's primary e-mail or an alias;
// s.mu is held.
func (s *Server) taken(address string) bool {
	return s.users[address] != nil || s.aliasOwner[address] != nil
}

// insertAlias is POST users/{userKey}/aliases {"alias"}: the address must
// be free and in a verified domain of the customer.
func (s *Server) insertAlias(_ string, r *http.Request, body []byte) reply {
	var in struct {
		Alias *string `json:"alias"`
	}
	if json.Unmarshal(body, &in) != nil {
		return invalid("Invalid JSON payload received.")
	}
	u := s.findUser(r.PathValue("userKey"))
	switch {
	case u == nil:
		return notFound("Resource Not Found: userKey")
	case in.Alias == nil || !validEmail(*in.Alias):
		return invalid("Invalid Input: alias")
	}
	alias := strings.ToLower(*in.Alias)
	if rep, free := s.free(alias, "the alias"); !free {
		return rep
	}
	u.aliases = append(u.aliases, alias)
	s.aliasOwner[alias] = u
	if s.lagReads > 0 {
		s.aliasHidden[alias] = s.lagReads
	}
	return ok(u.aliasJSON(alias))
}

// listAliases is GET users/{userKey}/aliases: the user's aliases in the
// order they were added.
func (s *Server) listAliases(_ string, r *http.Request, _ []byte) reply {
	if rep, lag := s.lagging(r.PathValue("userKey")); lag {
		return rep
	}
	u := s.findUser(r.PathValue("userKey"))
	if u == nil {
		return notFound("Resource Not Found: userKey")
	}
	l := aliasList{Kind: "admin#directory#aliases", Etag: etag()}
	for _, a := range u.aliases {
		l.Aliases = append(l.Aliases, u.aliasJSON(a))
	}
	return ok(l)
}

// deleteAlias is DELETE users/{userKey}/aliases/{alias}: 204 and no body.
func (s *Server) deleteAlias(_ string, r *http.Request, _ []byte) reply {
	u := s.findUser(r.PathValue("userKey"))
	if u == nil {
		return notFound("Resource Not Found: userKey")
	}
	alias := strings.ToLower(r.PathValue("alias"))
	i := slices.Index(u.aliases, alias)
	if i < 0 {
		return notFound("Resource Not Found: alias")
	}
	u.aliases = slices.Delete(u.aliases, i, i+1)
	delete(s.aliasOwner, alias)
	delete(s.aliasHidden, alias)
	return reply{status: http.StatusNoContent}
}

// Aliases are the aliases of the user whose primary e-mail is mailbox,
// sorted; none for an unknown user.
func (s *Server) Aliases(mailbox string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[strings.ToLower(mailbox)]
	if u == nil {
		return nil
	}
	out := slices.Clone(u.aliases)
	slices.Sort(out)
	return out
}
