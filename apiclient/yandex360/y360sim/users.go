package y360sim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// nameJSON is a user's name.
type nameJSON struct {
	First  string `json:"first"`
	Last   string `json:"last"`
	Middle string `json:"middle"`
}

// userJSON is the user object of UserService_Get.
type userJSON struct {
	ID           string   `json:"id"`
	Nickname     string   `json:"nickname"`
	DepartmentID int64    `json:"departmentId"`
	Email        string   `json:"email"`
	Name         nameJSON `json:"name"`
	Aliases      []string `json:"aliases"`
	IsEnabled    bool     `json:"isEnabled"`
	IsAdmin      bool     `json:"isAdmin"`
	IsRobot      bool     `json:"isRobot"`
	IsDismissed  bool     `json:"isDismissed"`
	CreatedAt    string   `json:"createdAt"`
	UpdatedAt    string   `json:"updatedAt"`
}

func (o *org) userJSON(u *user) userJSON {
	return userJSON{
		ID: u.id, Nickname: u.nickname, DepartmentID: u.department, Email: o.email(u),
		Name:    nameJSON{First: u.first, Last: u.last, Middle: u.middle},
		Aliases: append([]string{}, u.aliases...), IsEnabled: u.enabled, IsAdmin: u.admin,
		CreatedAt: u.created.Format(time.RFC3339), UpdatedAt: u.updated.Format(time.RFC3339),
	}
}

// createUserJSON is the body of UserService_Create (the fields the sandbox
// reads).
type createUserJSON struct {
	Nickname               string   `json:"nickname"`
	DepartmentID           *int64   `json:"departmentId"`
	Name                   nameJSON `json:"name"`
	Password               string   `json:"password"`
	PasswordChangeRequired bool     `json:"passwordChangeRequired"`
}

// createUser is POST /directory/v1/org/{orgId}/users; s.mu is held.
func (s *Server) createUser(o *org, _ *http.Request, body []byte) reply {
	var in createUserJSON
	if json.Unmarshal(body, &in) != nil {
		return invalidBody()
	}
	nick := strings.ToLower(in.Nickname)
	dept := rootDepartment
	if in.DepartmentID != nil {
		dept = *in.DepartmentID
	}
	switch {
	case !nicknameRule.Re().MatchString(nick):
		return invalid("nickname must be 1 to 30 Latin letters, digits, '-', '.' and '_', from a letter to a letter or digit")
	case in.Name.First == "" || in.Name.Last == "":
		return invalid("name.first and name.last are required")
	case dept != rootDepartment:
		return notFound("department not found")
	case !passwordOK(nick, in.Password):
		return invalid(passwordRuleText)
	case o.user(nick) != nil:
		return failure(http.StatusConflict, codeAlreadyExists, "user with this nickname already exists")
	}
	now := time.Now().UTC()
	u := &user{id: strconv.FormatUint(s.nextUserID, 10), nickname: nick, department: dept,
		first: in.Name.First, last: in.Name.Last, middle: in.Name.Middle,
		password: in.Password, passwordChangeRequired: in.PasswordChangeRequired,
		enabled: true, created: now, updated: now}
	s.nextUserID++
	o.users = append(o.users, u)
	return reply{http.StatusOK, o.userJSON(u)}
}

// user returns the user of the nickname (any letter case), or nil.
func (o *org) user(nickname string) *user {
	for _, u := range o.users {
		if strings.EqualFold(u.nickname, nickname) {
			return u
		}
	}
	return nil
}

func (o *org) userByID(id string) *user {
	for _, u := range o.users {
		if u.id == id {
			return u
		}
	}
	return nil
}

// getUser is GET /directory/v1/org/{orgId}/users/{userId}; s.mu is held.
func (s *Server) getUser(o *org, r *http.Request, _ []byte) reply {
	u := o.userByID(r.PathValue("userId"))
	if u == nil {
		return notFound("user not found")
	}
	return reply{http.StatusOK, o.userJSON(u)}
}

// patchUserJSON is the body of UserService_Update: the fields sent change.
type patchUserJSON struct {
	Password               *string `json:"password"`
	PasswordChangeRequired *bool   `json:"passwordChangeRequired"`
	IsEnabled              *bool   `json:"isEnabled"`
}

// patchUser is PATCH /directory/v1/org/{orgId}/users/{userId}; s.mu is held.
func (s *Server) patchUser(o *org, r *http.Request, body []byte) reply {
	var in patchUserJSON
	if json.Unmarshal(body, &in) != nil {
		return invalidBody()
	}
	u := o.userByID(r.PathValue("userId"))
	switch {
	case u == nil:
		return notFound("user not found")
	case in.PasswordChangeRequired != nil && s.rejectForceChange:
		return invalid("passwordChangeRequired cannot be changed")
	case in.Password != nil && !passwordOK(u.nickname, *in.Password):
		return invalid(passwordRuleText)
	}
	if in.Password != nil {
		u.password = *in.Password
	}
	if in.PasswordChangeRequired != nil {
		u.passwordChangeRequired = *in.PasswordChangeRequired
	}
	if in.IsEnabled != nil {
		u.enabled = *in.IsEnabled
	}
	u.updated = time.Now().UTC()
	return reply{http.StatusOK, o.userJSON(u)}
}

// listUsers is GET /directory/v1/org/{orgId}/users; s.mu is held.
func (s *Server) listUsers(o *org, r *http.Request, _ []byte) reply {
	return listPage(r, "users", maxUsersPerPage, o.users, o.userJSON)
}
