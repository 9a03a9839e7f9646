package slackfake

import (
	"cmp"
	"slices"
	"time"
)

// Group is a Slack user group ("subteam", S…).
type Group struct {
	ID      string // S…
	Handle  string // what people type after @: "mail-admins"
	Name    string
	Members []string

	updated int64 // date_update, in Unix seconds
}

// SetGroup adds the user group g, or replaces the one with its ID.
func (s *Server) SetGroup(g Group) {
	g.Members = slices.Clone(g.Members)
	g.updated = time.Now().Unix()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dir.groups[g.ID] = &g
}

// SetGroupMembers replaces the members of the group id (created with no
// handle if unknown), without sending an event; see SubteamMembersChanged.
func (s *Server) SetGroupMembers(id string, members ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.dir.groups[id]
	if g == nil {
		g = &Group{ID: id}
		s.dir.groups[id] = g
	}
	g.Members = slices.Clone(members)
	g.updated = time.Now().Unix()
}

// SetGroupError makes usergroups.users.list of the group id answer code
// ("plan_upgrade_required" as on a Free workspace, "missing_scope",
// "no_such_subteam"); id "" makes every usergroups.* call answer it. Code
// "" clears it.
func (s *Server) SetGroupError(id, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == "" {
		delete(s.dir.groupErr, id)
		return
	}
	s.dir.groupErr[id] = code
}

func (d *directory) usergroupsUsersList(q *apiRequest) answer {
	id := q.get("usergroup")
	d.mu.Lock()
	defer d.mu.Unlock()
	if code := cmp.Or(d.groupErr[""], d.groupErr[id]); code != "" {
		return fail(code)
	}
	g := d.groups[id]
	if g == nil {
		return fail("no_such_subteam")
	}
	return answer{"ok": true, "users": nonNil(slices.Clone(g.Members))}
}

func (d *directory) usergroupsList(q *apiRequest) answer {
	users := q.get("include_users") == "true" || q.get("include_users") == "1"
	d.mu.Lock()
	defer d.mu.Unlock()
	if code := d.groupErr[""]; code != "" {
		return fail(code)
	}
	out := []any{}
	for _, g := range d.groups {
		w := map[string]any{
			"id": g.ID, "team_id": TeamID, "is_usergroup": true, "is_subteam": true,
			"name": g.Name, "description": "", "handle": g.Handle, "is_external": false,
			"date_create": g.updated, "date_update": g.updated, "date_delete": 0,
			"auto_type": nil, "created_by": "U0CREATOR", "updated_by": "U0CREATOR", "deleted_by": nil,
			"prefs": map[string]any{"channels": []string{}, "groups": []string{}}, "user_count": len(g.Members),
		}
		if users {
			w["users"] = nonNil(slices.Clone(g.Members))
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b any) int {
		return cmp.Compare(a.(map[string]any)["id"].(string), b.(map[string]any)["id"].(string))
	})
	return answer{"ok": true, "usergroups": out}
}
