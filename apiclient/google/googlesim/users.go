package googlesim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of the users resource [doc].
const (
	minPassword = 8
	maxPassword = 100
	maxName     = 60
	maxPage     = 500
	defaultPage = 100
)

type user struct {
	id, email, given, family, password string
	admin, suspended, changeAtNext     bool
	delegatedAdmin                     bool     // holds an admin role short of super admin
	aliases                            []string // in the order they were added
	created                            time.Time
	orgUnit                            string // "" is the root
	hidden                             int    // reads it is still invisible to (consistency.go)
}

// userName is a user's name as the API writes it.
type userName struct {
	GivenName  string `json:"givenName"`
	FamilyName string `json:"familyName"`
	FullName   string `json:"fullName,omitempty"`
}

// userJSON is a user as the API answers it; the password never is.
type userJSON struct {
	Kind                      string   `json:"kind"`
	ID                        string   `json:"id"`
	PrimaryEmail              string   `json:"primaryEmail"`
	Name                      userName `json:"name"`
	IsAdmin                   bool     `json:"isAdmin"`
	IsDelegatedAdmin          bool     `json:"isDelegatedAdmin"`
	Suspended                 bool     `json:"suspended"`
	SuspensionReason          string   `json:"suspensionReason,omitempty"`
	ChangePasswordAtNextLogin bool     `json:"changePasswordAtNextLogin"`
	IsMailboxSetup            bool     `json:"isMailboxSetup"`
	CreationTime              string   `json:"creationTime"`
	LastLoginTime             string   `json:"lastLoginTime"`
	Aliases                   []string `json:"aliases,omitempty"`
	OrgUnitPath               string   `json:"orgUnitPath"`
}

func (u *user) json() userJSON {
	j := userJSON{Kind: "admin#directory#user", ID: u.id, PrimaryEmail: u.email,
		Name:    userName{GivenName: u.given, FamilyName: u.family, FullName: u.given + " " + u.family},
		IsAdmin: u.admin, IsDelegatedAdmin: u.delegatedAdmin, Suspended: u.suspended, ChangePasswordAtNextLogin: u.changeAtNext,
		IsMailboxSetup: true, CreationTime: rfc3339(u.created), LastLoginTime: "1970-01-01T00:00:00.000Z",
		Aliases: slices.Clone(u.aliases), OrgUnitPath: orgUnitOr(u.orgUnit)}
	if u.suspended {
		j.SuspensionReason = "ADMIN"
	}
	return j
}

// addUser stores a new user; s.mu is held.
func (s *Server) addUser(email, given, family, password string) *user {
	u := &user{id: digits(21), email: strings.ToLower(email), given: given, family: family, password: password,
		created: s.now().UTC()}
	s.users[u.email] = u
	s.byID[u.id] = u
	return u
}

// userIn is the body of users.insert and users.update: pointers tell the
// fields sent.
type userIn struct {
	PrimaryEmail *string `json:"primaryEmail"`
	Name         *struct {
		GivenName  string `json:"givenName"`
		FamilyName string `json:"familyName"`
	} `json:"name"`
	Password                  *string `json:"password"`
	ChangePasswordAtNextLogin *bool   `json:"changePasswordAtNextLogin"`
	Suspended                 *bool   `json:"suspended"`
	OrgUnitPath               *string `json:"orgUnitPath"`
}

// insertUser is POST users.
func (s *Server) insertUser(_ string, _ *http.Request, body []byte) reply {
	var in userIn
	if json.Unmarshal(body, &in) != nil {
		return invalid("Invalid JSON payload received.")
	}
	switch {
	case in.PrimaryEmail == nil || !validEmail(*in.PrimaryEmail):
		return invalid("Invalid Input: primary_user_email")
	case in.Name == nil || !validName(in.Name.GivenName) || !validName(in.Name.FamilyName):
		return invalid("Invalid Given/Family Name")
	case in.Password == nil || !validPassword(*in.Password):
		return invalid("Invalid Password")
	case in.OrgUnitPath != nil && !s.orgUnitExists(*in.OrgUnitPath):
		return invalid("Invalid Input: INVALID_OU_ID")
	}
	email := strings.ToLower(*in.PrimaryEmail)
	if rep, free := s.free(email, "primary_user_email"); !free {
		return rep
	}
	u := s.addUser(email, in.Name.GivenName, in.Name.FamilyName, *in.Password)
	u.changeAtNext = in.ChangePasswordAtNextLogin != nil && *in.ChangePasswordAtNextLogin
	if in.OrgUnitPath != nil {
		u.orgUnit = *in.OrgUnitPath
	}
	u.hidden = s.lagReads
	return ok(u.json())
}

// findUser is the user of a userKey: a primary e-mail, an alias or an id.
func (s *Server) findUser(key string) *user {
	if u := s.users[strings.ToLower(key)]; u != nil {
		return u
	}
	if u := s.aliasOwner[strings.ToLower(key)]; u != nil {
		return u
	}
	return s.byID[key]
}

// getUser is GET users/{userKey}.
func (s *Server) getUser(_ string, r *http.Request, _ []byte) reply {
	if rep, lag := s.lagging(r.PathValue("userKey")); lag {
		return rep
	}
	u := s.findUser(r.PathValue("userKey"))
	if u == nil {
		return notFound("Resource Not Found: userKey")
	}
	return ok(u.json())
}

// updateUser is PUT users/{userKey}: the fields sent change.
func (s *Server) updateUser(_ string, r *http.Request, body []byte) reply {
	var in userIn
	if json.Unmarshal(body, &in) != nil {
		return invalid("Invalid JSON payload received.")
	}
	u := s.findUser(r.PathValue("userKey"))
	switch {
	case u == nil:
		return notFound("Resource Not Found: userKey")
	case in.Password != nil && !validPassword(*in.Password):
		return invalid("Invalid Password")
	case in.Name != nil && (!validName(in.Name.GivenName) || !validName(in.Name.FamilyName)):
		return invalid("Invalid Given/Family Name")
	}
	if in.Password != nil {
		u.password = *in.Password
	}
	if in.ChangePasswordAtNextLogin != nil {
		u.changeAtNext = *in.ChangePasswordAtNextLogin
	}
	if in.Suspended != nil {
		u.suspended = *in.Suspended
	}
	if in.Name != nil {
		u.given, u.family = in.Name.GivenName, in.Name.FamilyName
	}
	return ok(u.json())
}

// userList is the answer of users.list.
type userList struct {
	Kind          string     `json:"kind"`
	Users         []userJSON `json:"users,omitempty"`
	NextPageToken string     `json:"nextPageToken,omitempty"`
}

// listUsers is GET users?domain=|customer=&maxResults=&pageToken=.
func (s *Server) listUsers(_ string, r *http.Request, _ []byte) reply {
	q := r.URL.Query()
	dom, customer := strings.ToLower(q.Get("domain")), q.Get("customer")
	n, err := strconv.Atoi(q.Get("maxResults"))
	switch {
	case dom == "" && customer == "":
		return failure(http.StatusBadRequest, "badRequest", "Bad Request")
	case q.Has("maxResults") && (err != nil || n < 1 || n > maxPage):
		return invalid("Invalid value for: maxResults")
	case dom != "" && s.domains[dom] == nil:
		return notFound("Domain not found.")
	case dom == "" && !s.isCustomer(customer):
		return notFound("Resource Not Found: customer")
	}
	if !q.Has("maxResults") {
		n = defaultPage
	}
	after, valid := pageStart(q.Get("pageToken"))
	if !valid {
		return invalid("Invalid Input: pageToken")
	}
	var emails []string
	for e := range s.users {
		if _, d, _ := strings.Cut(e, "@"); (dom == "" || d == dom) && e > after {
			emails = append(emails, e)
		}
	}
	slices.Sort(emails)
	l := userList{Kind: "admin#directory#users"}
	for i, e := range emails {
		if i == n {
			l.NextPageToken = pageToken(emails[i-1])
			break
		}
		l.Users = append(l.Users, s.users[e].json())
	}
	return ok(l)
}

// pageToken is the opaque token of the page after the user email.
func pageToken(email string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("after:" + email))
}

// pageStart reads a page token: the e-mail after which the page starts,
// and whether the token is the sandbox's ("" is the first page).
func pageStart(token string) (string, bool) {
	if token == "" {
		return "", true
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	after, found := strings.CutPrefix(string(b), "after:")
	return after, err == nil && found && after != ""
}

// validEmail: local@domain of a plausible shape.
func validEmail(e string) bool {
	local, dom, found := strings.Cut(e, "@")
	if !found || local == "" || dom == "" || len(e) > 320 || strings.Contains(dom, "@") {
		return false
	}
	for _, r := range local {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_'+", r)) {
			return false
		}
	}
	return !strings.HasPrefix(local, ".") && !strings.HasSuffix(local, ".") && !strings.Contains(local, "..")
}

// validName: 1 to 60 characters [doc].
func validName(n string) bool {
	c := utf8.RuneCountInString(strings.TrimSpace(n))
	return c >= 1 && c <= maxName
}

// validPassword: printable ASCII, 8 to 100 characters [doc].
func validPassword(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] > 0x7e {
			return false
		}
	}
	return len(p) >= minPassword && len(p) <= maxPassword
}

// free reports whether a new user or alias may take address (lower case):
// its domain is a verified domain of the customer, and no user or alias
// has it; else the refusal, naming the field.
func (s *Server) free(address, field string) (reply, bool) {
	_, dom, _ := strings.Cut(address, "@")
	if s.foreign[dom] {
		return domainCannotUseApis(), false
	}
	if d := s.domains[dom]; d == nil || !d.verified {
		return invalid("Invalid Input: the domain of " + field + " is not a verified domain of the customer"), false
	}
	if s.taken(address) {
		return duplicate(), false
	}
	return reply{}, true
}
