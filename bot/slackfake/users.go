package slackfake

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
)

// User is a person as users.info describes them. A user ID the fake was
// not told of is a full member of the fake's workspace with no confirmed
// e-mail; SetUser describes anyone else.
type User struct {
	ID             string
	Name           string
	Email          string // profile.email, given only with the users:read.email scope (the fake always has it)
	EmailConfirmed bool   // is_email_confirmed
	Deleted        bool
	IsBot          bool
	Restricted     bool   // a multi-channel guest
	UltraRestrict  bool   // a single-channel guest
	TeamID         string // empty: the fake's workspace (TeamID)
	// NotVisible: Slack hides the person from the app (users.info answers
	// user_not_visible; users.list leaves them out; users.lookupByEmail
	// does not find them).
	NotVisible bool
}

// directory serves users.* and usergroups.*: the people and user groups
// a test set; hub.mu guards it.
type directory struct {
	*hub
	users    map[string]User // users.info's directory; see SetUser
	groups   map[string]*Group
	groupErr map[string]string // group id ("" for all) -> error code
}

func newDirectory(h *hub) *directory {
	return &directory{hub: h, users: map[string]User{}, groups: map[string]*Group{}, groupErr: map[string]string{}}
}

// SetUser adds u to the directory of users.info, or replaces the one with
// its ID.
func (s *Server) SetUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir.users == nil {
		s.dir.users = map[string]User{}
	}
	s.dir.users[u.ID] = u
}

// usersInfo answers users.info as Slack does: user_not_found for an ID
// that is not a user's, user_not_visible for one hidden from the app.
func (d *directory) usersInfo(q *apiRequest) answer {
	id := q.get("user")
	if !strings.HasPrefix(id, "U") && !strings.HasPrefix(id, "W") {
		return fail("user_not_found")
	}
	d.mu.Lock()
	u, ok := d.users[id]
	d.mu.Unlock()
	if !ok {
		u = User{ID: id}
	}
	if u.NotVisible {
		return fail("user_not_visible")
	}
	return answer{"ok": true, "user": userJSON(u)}
}

// userJSON is u as Slack's user object.
func userJSON(u User) map[string]any {
	if u.Name == "" {
		u.Name = strings.ToLower(u.ID)
	}
	if u.TeamID == "" {
		u.TeamID = TeamID
	}
	return map[string]any{
		"id": u.ID, "team_id": u.TeamID, "name": u.Name, "deleted": u.Deleted, "is_bot": u.IsBot,
		"is_restricted": u.Restricted, "is_ultra_restricted": u.UltraRestrict, "is_email_confirmed": u.EmailConfirmed,
		"is_admin": false, "is_owner": false, "tz": "Europe/London",
		"profile": map[string]any{"email": u.Email, "real_name": u.Name, "display_name": u.Name},
	}
}

// maxUsersPage is the most users.list gives a page.
const maxUsersPage = 1000

// usersList answers users.list: the people SetUser described (not those
// hidden from the app), ordered by ID, a page of at most limit (1,000 at
// most) with an opaque cursor to the next. Without a limit a directory of
// more than a page answers limit_required, as Slack does for a large
// workspace.
func (d *directory) usersList(q *apiRequest) answer {
	limit, err := strconv.Atoi(q.get("limit"))
	d.mu.Lock()
	var all []User
	for _, u := range d.users {
		if !u.NotVisible {
			all = append(all, u)
		}
	}
	d.mu.Unlock()
	slices.SortFunc(all, func(a, b User) int { return strings.Compare(a.ID, b.ID) })
	switch {
	case q.get("limit") == "" && len(all) > maxUsersPage:
		return fail("limit_required")
	case q.get("limit") == "":
		limit = maxUsersPage
	case err != nil || limit < 1:
		return fail("invalid_limit")
	}
	limit = min(limit, maxUsersPage)
	from := 0
	if c := q.get("cursor"); c != "" {
		after, err := base64.StdEncoding.DecodeString(c)
		if err != nil || !strings.HasPrefix(string(after), "user:") {
			return fail("invalid_cursor")
		}
		from, _ = slices.BinarySearchFunc(all, strings.TrimPrefix(string(after), "user:"), func(u User, id string) int { return strings.Compare(u.ID, id) })
	}
	page := all[from:min(from+limit, len(all))]
	members := make([]map[string]any, len(page))
	for i, u := range page {
		members[i] = userJSON(u)
	}
	next := ""
	if from+limit < len(all) {
		next = base64.StdEncoding.EncodeToString([]byte("user:" + all[from+limit].ID))
	}
	return answer{"ok": true, "members": members, "response_metadata": map[string]any{"next_cursor": next}}
}
