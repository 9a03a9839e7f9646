package mailcowsim

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// alias is a mailcow alias: an address that delivers to the addresses of
// goto.
type alias struct {
	id              int64
	address, domain string
	gotos           []string
	active          int
	// senderAllowed: the goto mailboxes may send as the alias;
	// sogoVisible: SOGo offers it as a sender identity.
	senderAllowed, sogoVisible int
}

// aliasWrite reports whether path is an alias path served by POST.
func aliasWrite(path string) bool {
	return path == "add/alias" || path == "edit/alias" || path == "delete/alias"
}

// postAlias runs an alias write; ok is false for another path. s.mu is
// held.
func (s *Server) postAlias(path string, body []byte) (answer, bool) {
	if !aliasWrite(path) {
		return answer{}, false
	}
	if path == "delete/alias" {
		var ids []json.RawMessage
		if err := json.Unmarshal(bytes.TrimSpace(body), &ids); err != nil {
			return answer{http.StatusOK, apiError{Type: "error", Msg: "Cannot find attributes in post data"}}, true
		}
		return answer{http.StatusOK, s.deleteAliasOp(ids)}, true
	}
	a, err := parseAttrs(body)
	if err != nil {
		return answer{http.StatusOK, apiError{Type: "error", Msg: "Cannot find attributes in post data"}}, true
	}
	if path == "add/alias" {
		return answer{http.StatusOK, s.addAliasOp(a)}, true
	}
	return answer{http.StatusOK, s.editAliasOp(a)}, true
}

// addAliasOp is POST /api/v1/add/alias; s.mu is held.
func (s *Server) addAliasOp(a attrs) []entry {
	address := strings.ToLower(strings.TrimSpace(a.str("address")))
	local, name, _ := strings.Cut(address, "@")
	log := []any{"mailbox", "add", "alias", a.logged()}
	gotos, ok := parseGoto(a.str("goto"))
	d := s.domains[name]
	switch {
	case !validLocalPart(local) || !validDomain(name):
		return danger(log, []any{"alias_invalid", address})
	case d == nil:
		return danger(log, []any{"domain_not_found", name})
	case !ok:
		return danger(log, []any{"goto_invalid", a.str("goto")})
	case s.mailboxes[address] != nil || s.aliasByAddress(address) != nil:
		return danger(log, []any{"is_alias_or_mailbox", address})
	case s.spamAliases[address]:
		return danger(log, []any{"is_spam_alias", address})
	case s.aliasCount(name) >= d.maxAliases:
		return danger(log, []any{"max_alias_exceeded"})
	}
	s.lastAliasID++
	// mailcow reads each flag with intval: a missing one is 0.
	al := &alias{id: s.lastAliasID, address: address, domain: name, gotos: gotos, active: int(a.num("active", 0)),
		senderAllowed: int(a.num("sender_allowed", 0)), sogoVisible: int(a.num("sogo_visible", 0))}
	s.aliases[al.id] = al
	return []entry{{Type: "success", Log: log, Msg: []any{"alias_added", address, al.id}}}
}

// editAliasOp is POST /api/v1/edit/alias: one entry per item; s.mu is
// held.
func (s *Server) editAliasOp(a attrs) []entry {
	attr := a.sub("attr")
	log := []any{"mailbox", "edit", "alias", map[string]any{"items": a["items"], "attr": attr.logged()}}
	var entries []entry
	for _, item := range a.items() {
		id, _ := strconv.ParseInt(item, 10, 64)
		al := s.aliases[id]
		if al == nil {
			entries = append(entries, entry{Type: "danger", Log: log, Msg: []any{"alias_invalid", item}})
			continue
		}
		if g := attr.str("goto"); g != "" {
			gotos, ok := parseGoto(g)
			if !ok {
				entries = append(entries, entry{Type: "danger", Log: log, Msg: []any{"goto_invalid", g}})
				continue
			}
			al.gotos = gotos
		}
		entries = append(entries, entry{Type: "success", Log: log, Msg: []any{"alias_modified", al.address}})
	}
	if len(entries) == 0 {
		return danger(log, "access_denied")
	}
	return entries
}

// deleteAliasOp is POST /api/v1/delete/alias ["<id>", ...]: one entry per
// id, access_denied for an unknown one; s.mu is held.
func (s *Server) deleteAliasOp(ids []json.RawMessage) []entry {
	log := []any{"mailbox", "delete", "alias", map[string]any{"id": len(ids)}}
	var entries []entry
	for _, raw := range ids {
		id, err := strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
		al := s.aliases[id]
		if err != nil || al == nil {
			entries = append(entries, entry{Type: "danger", Log: log, Msg: "access_denied"})
			continue
		}
		delete(s.aliases, id)
		entries = append(entries, entry{Type: "success", Log: log, Msg: []any{"alias_removed", al.address}})
	}
	if len(entries) == 0 {
		return danger(log, "access_denied")
	}
	return entries
}

// parseGoto reads a goto list: addresses separated by commas.
func parseGoto(s string) ([]string, bool) {
	var out []string
	for _, g := range strings.Split(s, ",") {
		g = strings.ToLower(strings.TrimSpace(g))
		local, name, ok := strings.Cut(g, "@")
		if !ok || !validLocalPart(local) || !validDomain(name) {
			return nil, false
		}
		out = append(out, g)
	}
	return out, len(out) > 0
}

func (s *Server) aliasByAddress(address string) *alias {
	for _, al := range s.aliases {
		if al.address == address {
			return al
		}
	}
	return nil
}

func (s *Server) aliasCount(domain string) int {
	n := 0
	for _, al := range s.aliases {
		if al.domain == domain {
			n++
		}
	}
	return n
}

// aliasView is GET /api/v1/get/alias/{id|all|all/domain}; s.mu is held.
func (s *Server) aliasView(arg string) any {
	if arg != "all" && !strings.HasPrefix(arg, "all/") {
		id, _ := strconv.ParseInt(arg, 10, 64)
		if al := s.aliases[id]; al != nil {
			return aliasObject(al)
		}
		return struct{}{}
	}
	only := canonicalDomain(strings.TrimPrefix(strings.TrimPrefix(arg, "all"), "/"))
	var list []map[string]any
	for _, al := range s.aliases {
		if only == "" || al.domain == only {
			list = append(list, aliasObject(al))
		}
	}
	slices.SortFunc(list, func(a, b map[string]any) int { return cmp.Compare(a["address"].(string), b["address"].(string)) })
	return listOrEmpty(list)
}

func aliasObject(al *alias) map[string]any {
	return map[string]any{
		"id": al.id, "domain": al.domain, "address": al.address, "goto": strings.Join(al.gotos, ","),
		"active": al.active, "active_int": al.active, "is_catch_all": 0, "public_comment": "", "private_comment": "",
		"sender_allowed": al.senderAllowed, "sogo_visible": al.sogoVisible, "sogo_visible_int": al.sogoVisible,
	}
}

// AddAlias adds an active alias address delivering to the goto addresses
// (comma-separated), adding its domain unless it exists, and returns its
// id; an address that is a mailbox or an alias already is refused.
func (s *Server) AddAlias(address, gotos string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, name, _ := strings.Cut(strings.ToLower(address), "@")
	if s.domains[name] == nil {
		s.addDomain(canonicalDomain(name), attrs{})
	}
	es := s.addAliasOp(attrs{"address": address, "goto": gotos, "active": json.Number("1"),
		"sender_allowed": json.Number("1"), "sogo_visible": json.Number("1")})
	if es[0].Type != "success" {
		return 0, fmt.Errorf("add alias %s: %v", address, es[0].Msg)
	}
	return s.lastAliasID, nil
}

// AliasInfo is what a test may inspect of an alias.
type AliasInfo struct {
	Goto          string // comma-separated
	Active        int
	SenderAllowed int // 1: the goto mailboxes may send as the alias
	SOGoVisible   int // 1: SOGo offers it as a sender identity
}

// Alias returns the alias at address (any letter case), if it exists.
func (s *Server) Alias(address string) (AliasInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	al := s.aliasByAddress(strings.ToLower(address))
	if al == nil {
		return AliasInfo{}, false
	}
	return AliasInfo{Goto: strings.Join(al.gotos, ","), Active: al.active, SenderAllowed: al.senderAllowed, SOGoVisible: al.sogoVisible}, true
}

// AddSpamAlias adds a temporary (spam) alias at address, which add/mailbox
// and add/alias then refuse as is_spam_alias.
func (s *Server) AddSpamAlias(address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spamAliases[strings.ToLower(address)] = true
}

// Aliases returns the addresses of the aliases that deliver to mailbox,
// sorted.
func (s *Server) Aliases(mailbox string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	mailbox = strings.ToLower(mailbox)
	var out []string
	for _, al := range s.aliases {
		if slices.Contains(al.gotos, mailbox) {
			out = append(out, al.address)
		}
	}
	slices.Sort(out)
	return out
}
