package yandex360

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// userID is a user's ID: a string holding a 64-bit number; a bare JSON
// number is taken too, digit for digit.
type userID string

// UnmarshalJSON takes "1130000061922106" or 1130000061922106, digits only.
func (u *userID) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return errors.New("a user ID is not a 64-bit number")
	}
	*u = userID(s)
	return nil
}

// userJSON is the part of a user (UserService_Get) the client reads.
type userJSON struct {
	ID          userID   `json:"id"`
	Nickname    string   `json:"nickname"`
	Email       string   `json:"email"`
	IsEnabled   bool     `json:"isEnabled"`
	IsDismissed bool     `json:"isDismissed"`
	IsAdmin     bool     `json:"isAdmin"`
	Aliases     []string `json:"aliases"` // local parts
}

func (u *userJSON) mailbox() *apiclient.Mailbox {
	m := &apiclient.Mailbox{Address: u.Email, UID: string(u.ID), State: apiclient.StateActive}
	switch {
	case u.IsDismissed:
		m.State = apiclient.StateInactive
	case !u.IsEnabled:
		m.State = apiclient.StateBlocked
	}
	return m
}

// userList is the answer of GET …/users.
type userList struct {
	Page  int        `json:"page"`
	Pages int        `json:"pages"`
	Total int        `json:"total"`
	Users []userJSON `json:"users"`
}

type userName struct {
	First string `json:"first"`
	Last  string `json:"last"`
}

// createUser is the body of UserService_Create.
type createUser struct {
	Nickname               string   `json:"nickname"`
	DepartmentID           int64    `json:"departmentId"`
	Name                   userName `json:"name"`
	Password               string   `json:"password"`
	PasswordChangeRequired bool     `json:"passwordChangeRequired"`
}

// patchUser is the body of UserService_Update: only the fields sent change.
type patchUser struct {
	Password               *string `json:"password,omitempty"`
	PasswordChangeRequired *bool   `json:"passwordChangeRequired,omitempty"`
	IsEnabled              *bool   `json:"isEnabled,omitempty"`
}

// AddMailbox creates the user login (POST /directory/v1/org/{orgId}/users)
// once the domain is found among the organisation's; the user's name is
// its nickname. A create is never sent twice: an uncertain attempt is
// reported as such.
func (c *Client) AddMailbox(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	return c.AddNamedMailbox(ctx, domain, login, apiclient.PersonName{}, password, forceChange)
}

// NewAddress is the address a new user login@domain gets: its nickname at
// the organisation's default (master) domain; domain must be one of the
// organisation's. It reads the domain list once and changes nothing.
func (c *Client) NewAddress(ctx context.Context, domain, login string) (string, error) {
	op := apiclient.OpLookup
	name, err := c.domainName(op, domain)
	if err != nil {
		return "", err
	}
	master, err := c.masterDomain(ctx, op, name)
	if err != nil {
		return "", err
	}
	return strings.ToLower(login) + "@" + master, nil
}

// AddNamedMailbox is AddMailbox with the person's given and family names
// (the API requires both: a given name alone is both, as the login is
// without a name).
func (c *Client) AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, password string, forceChange bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpAdd
	if _, err := c.orgDomain(ctx, op, domain); err != nil {
		return nil, err
	}
	path, err := c.orgPath(op, "users")
	if err != nil {
		return nil, err
	}
	first, last := name.Given, name.Family
	if first == "" {
		first = login
	}
	if last == "" {
		last = first
	}
	in := createUser{Nickname: login, DepartmentID: c.dept, Name: userName{First: first, Last: last},
		Password: password, PasswordChangeRequired: forceChange}
	var u userJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodPost, Path: path, In: in, Out: &u, Create: true, Secret: password}); err != nil {
		return nil, err
	}
	m := u.mailbox()
	m.PasswordChangeRequired = forceChange
	return m, nil
}

// SetPassword sets the user's password (PATCH …/users/{userId}), and with
// forceChange requires it be changed at the next login. When the API
// refuses passwordChangeRequired in a PATCH (HTTP 400), the password is set
// alone and the result's PasswordChangeRequired is false.
func (c *Client) SetPassword(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpReset
	u, err := c.findUser(ctx, op, domain, login)
	if err != nil {
		return nil, err
	}
	patch := patchUser{Password: &password}
	if forceChange {
		patch.PasswordChangeRequired = &forceChange
	}
	m, err := c.patch(ctx, op, u.ID, patch, password)
	var e *apiclient.Error
	if forceChange && errors.As(err, &e) && e.HTTPStatus == http.StatusBadRequest {
		patch.PasswordChangeRequired, forceChange = nil, false
		m, err = c.patch(ctx, op, u.ID, patch, password)
	}
	if err != nil {
		return nil, err
	}
	m.PasswordChangeRequired = forceChange
	return m, nil
}

// SetLoginEnabled blocks (isEnabled false) or unblocks the user.
func (c *Client) SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpBlock
	if enabled {
		op = apiclient.OpUnblock
	}
	u, err := c.findUser(ctx, op, domain, login)
	if err != nil {
		return nil, err
	}
	return c.patch(ctx, op, u.ID, patchUser{IsEnabled: &enabled}, "")
}

// patch sends PATCH …/users/{id} (with the password it carries, if any);
// it sets a state, so an uncertain attempt is sent again as it is.
func (c *Client) patch(ctx context.Context, op apiclient.Op, id userID, p patchUser, password string) (*apiclient.Mailbox, error) {
	path, err := c.orgPath(op, "users/"+string(id))
	if err != nil {
		return nil, err
	}
	var u userJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodPatch, Path: path, In: p, Out: &u, Secret: password}); err != nil {
		return nil, err
	}
	return u.mailbox(), nil
}

// LookupMailbox finds the user login in the organisation that has the
// domain; a user that does not exist is refused as not found.
func (c *Client) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	u, err := c.findUser(ctx, apiclient.OpLookup, domain, login)
	if err != nil {
		return nil, err
	}
	return u.mailbox(), nil
}

// ListMailboxes reads one page of the organisation's users, at most limit
// (1 to 1,000) of them, once the domain is found among the organisation's.
// The cursor is the page number; addresses are the users' email, at the
// organisation's default domain.
func (c *Client) ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error) {
	op := apiclient.OpList
	page := 1
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 1 {
			return nil, c.refuse(op, apiclient.ReasonInvalid, "not a cursor of this list")
		}
		page = n
	}
	if _, err := c.orgDomain(ctx, op, domain); err != nil {
		return nil, err
	}
	l, err := c.users(ctx, op, page, min(max(limit, 1), usersPerPage))
	if err != nil {
		return nil, err
	}
	p := &apiclient.Page{Total: l.Total, Mailboxes: make([]apiclient.Mailbox, 0, len(l.Users))}
	for i := range l.Users {
		p.Mailboxes = append(p.Mailboxes, *l.Users[i].mailbox())
	}
	if page < l.Pages {
		p.Next = strconv.Itoa(page + 1)
	}
	return p, nil
}

// users reads one page of users.
func (c *Client) users(ctx context.Context, op apiclient.Op, page, n int) (*userList, error) {
	path, err := c.orgPath(op, "users")
	if err != nil {
		return nil, err
	}
	var l userList
	q := url.Values{"page": {strconv.Itoa(page)}, "perPage": {strconv.Itoa(n)}}
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: path, Query: q, Out: &l}); err != nil {
		return nil, err
	}
	return &l, nil
}

// orgDomain checks that the domain is one of the organisation's.
func (c *Client) orgDomain(ctx context.Context, op apiclient.Op, domain string) (*domainJSON, error) {
	name, err := c.domainName(op, domain)
	if err != nil {
		return nil, err
	}
	return c.findDomain(ctx, op, name)
}

// findUser pages through the users for the nickname login, in any letter
// case, once the domain is found among the organisation's.
func (c *Client) findUser(ctx context.Context, op apiclient.Op, domain, login string) (*userJSON, error) {
	return c.findUserBy(ctx, op, domain, login, func(u *userJSON) bool { return strings.EqualFold(u.Nickname, login) })
}

// findUserBy pages through the users for the first that match takes, once
// the domain is found among the organisation's; none is not found.
func (c *Client) findUserBy(ctx context.Context, op apiclient.Op, domain, login string, match func(*userJSON) bool) (*userJSON, error) {
	if _, err := c.orgDomain(ctx, op, domain); err != nil {
		return nil, err
	}
	var found *userJSON
	err := c.scanUsers(ctx, op, func(u *userJSON) bool {
		if match(u) {
			found = u
		}
		return found != nil
	})
	if err != nil || found != nil {
		return found, err
	}
	return nil, c.refuse(op, apiclient.ReasonNotFound, fmt.Sprintf("the organisation has no user %q", login))
}
