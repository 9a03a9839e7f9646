package google

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// pageMax is the most users one users.list page holds.
const pageMax = 500

// userJSON is the part of a user the client reads.
type userJSON struct {
	ID                        string `json:"id"`
	PrimaryEmail              string `json:"primaryEmail"`
	Suspended                 bool   `json:"suspended"`
	ChangePasswordAtNextLogin bool   `json:"changePasswordAtNextLogin"`
	IsAdmin                   bool   `json:"isAdmin"`
	IsDelegatedAdmin          bool   `json:"isDelegatedAdmin"`
}

func (u *userJSON) mailbox() *apiclient.Mailbox {
	m := &apiclient.Mailbox{Address: u.PrimaryEmail, UID: u.ID, State: apiclient.StateActive,
		PasswordChangeRequired: u.ChangePasswordAtNextLogin}
	if u.Suspended {
		m.State = apiclient.StateBlocked // no logins, and no new mail (Capabilities.NoMailWhenBlocked)
	}
	return m
}

// complete reports whether a decoded answer has what the client needs: a
// user its ID and address, an alias its address.
func complete(out any) bool {
	switch v := out.(type) {
	case *userJSON:
		return v.ID != "" && v.PrimaryEmail != ""
	case *aliasJSON:
		return v.Alias != ""
	}
	return true
}

type name struct {
	GivenName  string `json:"givenName"`
	FamilyName string `json:"familyName"`
}

// insertUser is the body of users.insert.
type insertUser struct {
	PrimaryEmail              string `json:"primaryEmail"`
	Name                      name   `json:"name"`
	Password                  string `json:"password"`
	ChangePasswordAtNextLogin bool   `json:"changePasswordAtNextLogin"`
	OrgUnitPath               string `json:"orgUnitPath,omitempty"`
}

// updateUser is the body of users.update: only the fields sent change;
// a false suspended or changePasswordAtNextLogin is sent when set.
type updateUser struct {
	Password                  *string `json:"password,omitempty"`
	ChangePasswordAtNextLogin *bool   `json:"changePasswordAtNextLogin,omitempty"`
	Suspended                 *bool   `json:"suspended,omitempty"`
}

// AddMailbox creates the user login@domain (users.insert), its given and
// family names the login. An insert is never sent twice: an uncertain
// attempt is reported as such.
func (c *Client) AddMailbox(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	return c.AddUser(ctx, domain, login, password, forceChange, login, login)
}

// AddNamedMailbox is AddMailbox with the person's given and family
// names; a blank one is the login.
func (c *Client) AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, password string, forceChange bool) (*apiclient.Mailbox, error) {
	return c.AddUser(ctx, domain, login, password, forceChange, name.Given, name.Family)
}

// CheckLogin checks a user name by the rule mailbot keeps for Google
// Workspace, [apiclient.LocalPartLogin] (Google also takes apostrophes,
// which mailbot does not).
func (c *Client) CheckLogin(login string) error { return apiclient.LocalPartLogin(login) }

// AddUser is AddMailbox with the user's given and family names (each 1 to
// 60 characters; "" is the login).
func (c *Client) AddUser(ctx context.Context, domain, login, password string, forceChange bool, given, family string) (*apiclient.Mailbox, error) {
	op := apiclient.OpAdd
	email, err := c.email(op, domain, login)
	if err != nil {
		return nil, err
	}
	if err := checkPassword(op, password); err != nil {
		return nil, err
	}
	in := insertUser{PrimaryEmail: email, Name: name{GivenName: orLogin(given, login), FamilyName: orLogin(family, login)},
		Password: password, ChangePasswordAtNextLogin: forceChange, OrgUnitPath: c.newUsersOrgUnit()}
	var u userJSON
	before, err := c.insert(ctx, request{Op: op, Method: http.MethodPost, Path: "admin/directory/v1/users", In: in, Out: &u,
		Create: true, Secret: password}, email)
	if apiclient.ReasonOf(err) == apiclient.ReasonExists && before.lost() && c.fresh.samePassword(before, password) {
		c.fresh.confirmed(email)
		return &apiclient.Mailbox{Address: email, State: apiclient.StateActive, PasswordChangeRequired: forceChange,
			Warnings: []string{lostInsertWarning}}, nil
	}
	if err != nil {
		return nil, err
	}
	return u.mailbox(), nil
}

// lostInsertWarning is the warning of a user that an earlier insert,
// whose answer was lost, created.
const lostInsertWarning = "an earlier attempt to create this mailbox got no answer, and Google now says it exists: " +
	"that attempt created it with this password, unless someone else created it meanwhile. " +
	"Try to log in with it; if that fails, reset the password."

// insert sends r, a create of address (a user or an alias), recording it
// as fresh (fresh.go); before is what was known of an earlier insert of
// the address.
func (c *Client) insert(ctx context.Context, r request, address string) (before insertState, err error) {
	before, had := c.fresh.sent(address, r.Secret)
	err = c.call(ctx, r)
	switch {
	case err == nil:
		c.fresh.confirmed(address)
	case !apiclient.MayHaveHappened(err):
		c.fresh.restore(address, before, had) // this attempt did nothing
	}
	return before, err
}

// orLogin is n cut to 60 characters, or login when n is blank.
func orLogin(n, login string) string {
	n = strings.TrimSpace(n)
	if n == "" {
		n = login
	}
	if r := []rune(n); len(r) > 60 {
		n = string(r[:60])
	}
	return n
}

// SetPassword sets the user's password (users.update with password and
// changePasswordAtNextLogin, both sent).
func (c *Client) SetPassword(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	if err := checkPassword(apiclient.OpReset, password); err != nil {
		return nil, err
	}
	return c.update(ctx, apiclient.OpReset, domain, login, updateUser{Password: &password, ChangePasswordAtNextLogin: &forceChange}, password)
}

// SetLoginEnabled suspends (enabled false) or restores the user; false is
// sent as such. A suspended user receives no new mail.
func (c *Client) SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpBlock
	if enabled {
		op = apiclient.OpUnblock
	}
	suspended := !enabled
	return c.update(ctx, op, domain, login, updateUser{Suspended: &suspended}, "")
}

// update sends PUT users/{email}; it sets a state, so an uncertain
// attempt is sent again as it is.
func (c *Client) update(ctx context.Context, op apiclient.Op, domain, login string, in updateUser, password string) (*apiclient.Mailbox, error) {
	email, err := c.email(op, domain, login)
	if err != nil {
		return nil, err
	}
	var u userJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodPut, Path: userPath(email),
		In: in, Out: &u, Secret: password}); err != nil {
		return nil, err
	}
	return u.mailbox(), nil
}

// LookupMailbox reads the user login@domain (users.get); one that does not
// exist is refused as not found.
func (c *Client) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	op := apiclient.OpLookup
	email, err := c.email(op, domain, login)
	if err != nil {
		return nil, err
	}
	u, err := c.getUser(ctx, op, email)
	if err != nil {
		return nil, err
	}
	return u.mailbox(), nil
}

// userPage is the answer of users.list.
type userPage struct {
	Users         []userJSON `json:"users"`
	NextPageToken string     `json:"nextPageToken"`
}

// ListMailboxes reads one page of the domain's users (users.list with
// domain, at most limit of them, 1 to 500); the cursor is the API's page
// token. The total is not known (-1).
func (c *Client) ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error) {
	op := apiclient.OpList
	d, err := domainName(op, domain)
	if err != nil {
		return nil, err
	}
	q := url.Values{"domain": {d}, "maxResults": {strconv.Itoa(min(max(limit, 1), pageMax))}, "orderBy": {"email"}}
	if cursor != "" {
		q.Set("pageToken", cursor)
	}
	var l userPage
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: "admin/directory/v1/users", Query: q, Out: &l}); err != nil {
		return nil, err
	}
	p := &apiclient.Page{Total: -1, Next: l.NextPageToken, Mailboxes: make([]apiclient.Mailbox, 0, len(l.Users))}
	for i := range l.Users {
		p.Mailboxes = append(p.Mailboxes, *l.Users[i].mailbox())
	}
	return p, nil
}

// email is login@domain in lower case, refusing a login that is not one.
func (c *Client) email(op apiclient.Op, domain, login string) (string, error) {
	d, err := domainName(op, domain)
	if err != nil {
		return "", err
	}
	if !validLogin(login) {
		return "", refuse(op, apiclient.ReasonInvalid, "not a user name Google accepts (letters, digits, . - _ ' +)")
	}
	return strings.ToLower(login) + "@" + d, nil
}

// validLogin: Google's characters of a user name, no dot at either end,
// none twice in a row, at most 64 characters.
func validLogin(l string) bool {
	if l == "" || len(l) > 64 || strings.HasPrefix(l, ".") || strings.HasSuffix(l, ".") || strings.Contains(l, "..") {
		return false
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_'+", r)) {
			return false
		}
	}
	return true
}

// checkPassword refuses, before anything is sent, a password Google would.
func checkPassword(op apiclient.Op, password string) error {
	return apiclient.RefusePassword(apiclient.ProviderGoogle, op, password, CheckPassword)
}

// domainName returns domain in lower case without a trailing dot,
// refusing a name that could change a path or query it is put in.
func domainName(op apiclient.Op, domain string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if strings.Trim(d, ".") == "" || !strings.Contains(d, ".") || strings.ContainsAny(d, "/\\?#%@ &=") {
		return "", refuse(op, apiclient.ReasonInvalid, "not a domain name")
	}
	return d, nil
}
