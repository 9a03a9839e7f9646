package slackfake

import "strings"

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
}

// SetUser adds u to the directory of users.info, or replaces the one with
// its ID.
func (s *Server) SetUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == nil {
		s.users = map[string]User{}
	}
	s.users[u.ID] = u
}

func init() { handlers["users.info"] = (*Server).usersInfo }

// usersInfo answers users.info as Slack does: user_not_found for an ID
// that is not a user's.
func (s *Server) usersInfo(q *apiRequest) answer {
	id := q.get("user")
	if !strings.HasPrefix(id, "U") && !strings.HasPrefix(id, "W") {
		return fail("user_not_found")
	}
	s.mu.Lock()
	u, ok := s.users[id]
	s.mu.Unlock()
	if !ok {
		u = User{ID: id}
	}
	if u.Name == "" {
		u.Name = strings.ToLower(id)
	}
	if u.TeamID == "" {
		u.TeamID = TeamID
	}
	return answer{"ok": true, "user": map[string]any{
		"id": u.ID, "team_id": u.TeamID, "name": u.Name, "deleted": u.Deleted, "is_bot": u.IsBot,
		"is_restricted": u.Restricted, "is_ultra_restricted": u.UltraRestrict, "is_email_confirmed": u.EmailConfirmed,
		"is_admin": false, "is_owner": false, "tz": "Europe/London",
		"profile": map[string]any{"email": u.Email, "real_name": u.Name, "display_name": u.Name},
	}}
}
