package m365sim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of the user resource [doc].
const (
	minPassword = 8
	maxPassword = 256
)

type user struct {
	id, upn, displayName, given, surname, nickname string
	usageLocation, password, mail                  string
	force, enabled                                 bool
	licenses                                       []string // skuIds
	proxy                                          []string // "SMTP:…", "smtp:…"
	roles                                          []string // directory roles' names
	revoked                                        int      // revokeSignInSessions calls
}

// addUser adds an enabled user without a licence; s.mu is held.
func (s *Server) addUser(upn, display, password string) *user {
	local, _, _ := strings.Cut(upn, "@")
	u := &user{id: guid(), upn: upn, displayName: display, nickname: local, password: password, enabled: true}
	s.users[strings.ToLower(upn)] = u
	s.byID[u.id] = u
	return u
}

// defaultSelect are the properties a GET returns without $select [doc].
var defaultSelect = []string{"id", "businessPhones", "displayName", "givenName", "jobTitle", "mail", "mobilePhone",
	"officeLocation", "preferredLanguage", "surname", "userPrincipalName"}

// json is the user's properties named in sel (the defaults when empty).
func (u *user) json(sel []string) map[string]any {
	all := map[string]any{"id": u.id, "businessPhones": []string{}, "displayName": u.displayName, "givenName": nullable(u.given),
		"jobTitle": nil, "mail": nullable(u.mail), "mobilePhone": nil, "officeLocation": nil, "preferredLanguage": nil,
		"surname": nullable(u.surname), "userPrincipalName": u.upn, "accountEnabled": u.enabled, "mailNickname": u.nickname,
		"usageLocation": nullable(u.usageLocation), "proxyAddresses": slices.Clone(u.proxy), "assignedLicenses": u.assigned(),
		"passwordProfile": nil}
	if len(sel) == 0 {
		sel = defaultSelect
	}
	out := map[string]any{}
	for _, p := range sel {
		if v, ok := all[p]; ok {
			out[p] = v
		}
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// assigned is assignedLicenses as Graph writes it.
func (u *user) assigned() []map[string]any {
	out := []map[string]any{}
	for _, id := range u.licenses {
		out = append(out, map[string]any{"skuId": id, "disabledPlans": []string{}})
	}
	return out
}

// selected is the $select list of r.
func selected(r *http.Request) []string {
	v := r.URL.Query().Get("$select")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// lookup finds a user by id or userPrincipalName, never by a proxy
// address; s.mu is held.
func (s *Server) lookup(key string) *user {
	if u := s.byID[key]; u != nil {
		return u
	}
	return s.users[strings.ToLower(key)]
}

// newUser is the body of POST /users.
type newUser struct {
	AccountEnabled    *bool            `json:"accountEnabled"`
	DisplayName       string           `json:"displayName"`
	GivenName         string           `json:"givenName"`
	Surname           string           `json:"surname"`
	MailNickname      string           `json:"mailNickname"`
	UserPrincipalName string           `json:"userPrincipalName"`
	UsageLocation     string           `json:"usageLocation"`
	PasswordProfile   *passwordProfile `json:"passwordProfile"`
}

type passwordProfile struct {
	Password                      string `json:"password"`
	ForceChangePasswordNextSignIn bool   `json:"forceChangePasswordNextSignIn"`
}

// createUser is POST /users.
func (s *Server) createUser(_ *app, _ *http.Request, body []byte) reply {
	var in newUser
	if err := json.Unmarshal(body, &in); err != nil {
		return badRequest("Invalid request body: the JSON could not be read.")
	}
	if rep, bad := s.checkNewUser(in); bad {
		return rep
	}
	u := s.addUser(in.UserPrincipalName, in.DisplayName, in.PasswordProfile.Password)
	u.given, u.surname, u.nickname, u.usageLocation = in.GivenName, in.Surname, in.MailNickname, strings.ToUpper(in.UsageLocation)
	u.enabled, u.force = *in.AccountEnabled, in.PasswordProfile.ForceChangePasswordNextSignIn
	return reply{status: http.StatusCreated, body: u.json(nil)}
}

// checkNewUser refuses a body Graph would; s.mu is held.
func (s *Server) checkNewUser(in newUser) (reply, bool) {
	required := []struct {
		name    string
		missing bool
	}{{"accountEnabled", in.AccountEnabled == nil}, {"displayName", in.DisplayName == ""}, {"mailNickname", in.MailNickname == ""},
		{"userPrincipalName", in.UserPrincipalName == ""}, {"passwordProfile", in.PasswordProfile == nil}}
	for _, p := range required {
		if p.missing {
			return badRequest("A value is required for property '" + p.name + "' of resource 'User'."), true
		}
	}
	local, dom, _ := strings.Cut(in.UserPrincipalName, "@")
	switch d := s.domains[strings.ToLower(dom)]; {
	case !validUPNLocal(local) || dom == "" || !validNickname(in.MailNickname) || len(in.UsageLocation) != 0 && len(in.UsageLocation) != 2:
		return badRequest("One or more properties contains invalid values."), true
	case d == nil || !d.verified:
		return badRequest("The domain portion of the userPrincipalName property is invalid. You must use one of the verified domain names in your organization."), true
	case !goodPassword(in.PasswordProfile.Password):
		return s.weakPassword(), true
	case s.users[strings.ToLower(in.UserPrincipalName)] != nil:
		return conflict("userPrincipalName"), true
	case s.proxyOwner("smtp:"+in.UserPrincipalName) != nil:
		return conflict("proxyAddresses"), true
	}
	return reply{}, false
}

func (s *Server) weakPassword() reply {
	return badRequest("The specified password does not comply with password complexity requirements. Please provide a different password.")
}

// validUPNLocal: A-Z a-z 0-9 ' . - _ ! # ^ ~, no dot at either end [doc].
func validUPNLocal(l string) bool {
	if l == "" || len(l) > 64 || strings.HasPrefix(l, ".") || strings.HasSuffix(l, ".") {
		return false
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("'.-_!#^~", r)) {
			return false
		}
	}
	return true
}

// validNickname: printable ASCII without the characters Exchange refuses.
func validNickname(n string) bool {
	if len(n) > 64 {
		return false
	}
	for _, r := range n {
		if r <= ' ' || r > '~' || strings.ContainsRune(`@()\[]";:<>,`, r) {
			return false
		}
	}
	return true
}

// goodPassword: 8 to 256 characters, no Unicode, three of lower, upper,
// digits and symbols [doc: entra-docs concept-sspr-policy].
func goodPassword(p string) bool {
	if n := utf8.RuneCountInString(p); n < minPassword || n > maxPassword {
		return false
	}
	var lower, upper, digit, symbol int
	for _, r := range p {
		switch {
		case r > '~' || r < ' ':
			return false
		case r >= 'a' && r <= 'z':
			lower = 1
		case r >= 'A' && r <= 'Z':
			upper = 1
		case r >= '0' && r <= '9':
			digit = 1
		default:
			symbol = 1
		}
	}
	return lower+upper+digit+symbol >= 3
}

// getUser is GET /users/{key}; its $select is checked first, as Graph
// parses the query before it looks the user up.
func (s *Server) getUser(_ *app, r *http.Request, _ []byte) reply {
	sel := selected(r)
	if rep, valid := (selection{s, sel, userProps, "user"}).check(); !valid {
		return rep
	}
	u := s.lookup(r.PathValue("key"))
	if u == nil {
		return notFound(r.PathValue("key"))
	}
	return ok(u.json(sel))
}

// userPatch is the body of PATCH /users/{key}: the fields sent change.
type userPatch struct {
	AccountEnabled  *bool            `json:"accountEnabled"`
	PasswordProfile *passwordProfile `json:"passwordProfile"`
	ProxyAddresses  []string         `json:"proxyAddresses"`
	UsageLocation   *string          `json:"usageLocation"`
	DisplayName     *string          `json:"displayName"`
}

// updateUser is PATCH /users/{key}: 204.
func (s *Server) updateUser(a *app, r *http.Request, body []byte) reply {
	var in userPatch
	if err := json.Unmarshal(body, &in); err != nil {
		return badRequest("Invalid request body: the JSON could not be read.")
	}
	u := s.lookup(r.PathValue("key"))
	if u == nil {
		return notFound(r.PathValue("key"))
	}
	if rep, bad := s.checkPatch(a, u, in); bad {
		return rep
	}
	if in.PasswordProfile != nil {
		u.password, u.force = in.PasswordProfile.Password, in.PasswordProfile.ForceChangePasswordNextSignIn
	}
	if in.AccountEnabled != nil {
		u.enabled = *in.AccountEnabled
	}
	if in.UsageLocation != nil {
		u.usageLocation = strings.ToUpper(*in.UsageLocation)
	}
	if in.DisplayName != nil && *in.DisplayName != "" {
		u.displayName = *in.DisplayName
	}
	return reply{status: http.StatusNoContent}
}

// checkPatch refuses a change Graph would; s.mu is held.
func (s *Server) checkPatch(a *app, u *user, in userPatch) (reply, bool) {
	privileged := len(u.roles) > 0
	switch {
	case in.ProxyAddresses != nil:
		return badRequest("Property 'proxyAddresses' is read-only and cannot be set."), true
	case in.PasswordProfile != nil && (!a.perms[PermPassword] || !a.userAdmin || privileged):
		return denied(), true
	case in.PasswordProfile != nil && !goodPassword(in.PasswordProfile.Password):
		return s.weakPassword(), true
	case in.AccountEnabled != nil && privileged:
		return denied(), true
	}
	return reply{}, false
}

// revokeSessions is POST /users/{key}/revokeSignInSessions.
func (s *Server) revokeSessions(_ *app, r *http.Request, _ []byte) reply {
	u := s.lookup(r.PathValue("key"))
	if u == nil {
		return notFound(r.PathValue("key"))
	}
	u.revoked++
	return ok(map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Edm.Boolean", "value": true})
}

// userRoles is GET /users/{key}/memberOf/microsoft.graph.directoryRole.
func (s *Server) userRoles(_ *app, r *http.Request, _ []byte) reply {
	u := s.lookup(r.PathValue("key"))
	if u == nil {
		return notFound(r.PathValue("key"))
	}
	roles := []map[string]any{}
	for _, name := range u.roles {
		roles = append(roles, map[string]any{"@odata.type": "#microsoft.graph.directoryRole", "id": guid(),
			"displayName": name, "roleTemplateId": guid()})
	}
	return ok(map[string]any{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#directoryObjects(microsoft.graph.directoryRole)", "value": roles})
}

// proxyOwner is the user one of whose proxy addresses is addr ("smtp:…",
// any letter case); s.mu is held.
func (s *Server) proxyOwner(addr string) *user {
	for _, u := range s.users {
		for _, p := range u.proxy {
			if strings.EqualFold(p, addr) {
				return u
			}
		}
	}
	return nil
}
