package m365

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// userFields are the properties the client reads of a user ($select).
const userFields = "id,userPrincipalName,accountEnabled,assignedLicenses"

// ProvisionNote says when the mailbox of a new user appears.
const ProvisionNote = "Exchange Online sets the mailbox up within a few minutes of the licence"

// userJSON is the part of a user the client reads.
type userJSON struct {
	ID                string            `json:"id"`
	UserPrincipalName string            `json:"userPrincipalName"`
	AccountEnabled    *bool             `json:"accountEnabled"`
	AssignedLicenses  []assignedLicense `json:"assignedLicenses"`
	ProxyAddresses    []string          `json:"proxyAddresses"`
}

// mailbox is u as a mailbox: blocked while accountEnabled is false (mail
// is still received).
func (u *userJSON) mailbox() *apiclient.Mailbox {
	m := &apiclient.Mailbox{Address: u.UserPrincipalName, UID: u.ID, State: apiclient.StateActive}
	if u.AccountEnabled != nil && !*u.AccountEnabled {
		m.State = apiclient.StateBlocked
	}
	return m
}

// holds reports whether u has the licence skuID.
func (u *userJSON) holds(skuID string) bool {
	return slices.ContainsFunc(u.AssignedLicenses, func(l assignedLicense) bool { return strings.EqualFold(l.SkuID, skuID) })
}

// assignedLicense is a licence a user holds.
type assignedLicense struct {
	SkuID string `json:"skuId"`
}

// complete reports whether a decoded answer has what the client needs: a
// user its ID and address.
func complete(out any) bool {
	if u, ok := out.(*userJSON); ok {
		return u.ID != "" && u.UserPrincipalName != ""
	}
	return true
}

// newUser is the body of POST /users.
type newUser struct {
	AccountEnabled    bool            `json:"accountEnabled"`
	DisplayName       string          `json:"displayName"`
	GivenName         string          `json:"givenName,omitempty"`
	Surname           string          `json:"surname,omitempty"`
	MailNickname      string          `json:"mailNickname"`
	UserPrincipalName string          `json:"userPrincipalName"`
	UsageLocation     string          `json:"usageLocation"`
	PasswordProfile   passwordProfile `json:"passwordProfile"`
}

type passwordProfile struct {
	Password                      string `json:"password"`
	ForceChangePasswordNextSignIn bool   `json:"forceChangePasswordNextSignIn"`
}

// AddMailbox creates the user login@domain, its display name the login,
// and gives it the licence.
func (c *Client) AddMailbox(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	return c.addUser(ctx, domain, login, newUser{DisplayName: login}, password, forceChange)
}

// AddNamedMailbox is AddMailbox with the person's given and family names,
// and the two together as the display name.
func (c *Client) AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, password string, forceChange bool) (*apiclient.Mailbox, error) {
	given, family := name.Given, name.Family
	display := name.Full()
	if display == "" {
		display = login
	}
	return c.addUser(ctx, domain, login, newUser{DisplayName: cut(display, 256), GivenName: cut(given, 64), Surname: cut(family, 64)}, password, forceChange)
}

// cut is s cut to n runes.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// addUser creates the user (POST /users, never sent twice) and gives it
// the licence. A user that exists without the licence is completed: a new
// password, then the licence. A licence that fails leaves the user, and
// the result says so.
func (c *Client) addUser(ctx context.Context, domain, login string, in newUser, password string, force bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpAdd
	upn, err := address(op, domain, login)
	if err != nil {
		return nil, err
	}
	if err := checkPassword(op, password); err != nil {
		return nil, err
	}
	sku, err := c.skuID(ctx, op)
	if err != nil {
		return nil, err
	}
	in.AccountEnabled, in.MailNickname, in.UserPrincipalName, in.UsageLocation = true, login, upn, c.location
	in.PasswordProfile = passwordProfile{Password: password, ForceChangePasswordNextSignIn: force}
	var u userJSON
	err = c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodPost, Path: "v1.0/users", In: in, Out: &u,
		Create: true, Secret: password}})
	if apiclient.ReasonOf(err) == apiclient.ReasonExists {
		return c.completeUser(ctx, upn, sku, password, force, err)
	}
	if err != nil {
		return nil, err
	}
	m := u.mailbox()
	m.PasswordChangeRequired = force
	m.Warnings = c.assignLicense(ctx, op, u.ID, sku)
	return m, nil
}

// license gives the user id the licence sku; it returns the warnings of
// the result: when the mailbox appears, or that the licence failed.
func (c *Client) assignLicense(ctx context.Context, op apiclient.Op, id, sku string) []string {
	in := map[string]any{"addLicenses": []map[string]any{{"skuId": sku, "disabledPlans": []string{}}}, "removeLicenses": []string{}}
	var u userJSON
	err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodPost,
		Path: "v1.0/users/" + url.PathEscape(id) + "/assignLicense", In: in, Out: &u}})
	if err != nil {
		return []string{"the user was created, but its licence (" + LicenseSetting + ") could not be assigned, so it has no mailbox yet: " +
			err.Error() + ". Run the same add again once the licence can be assigned: it completes this user"}
	}
	return []string{ProvisionNote + "."}
}

// completeUser finishes a user that an earlier add created but could not
// license: it sets password and assigns the licence. A user that holds
// any licence (the add's, or another: not one an add left unfinished), a
// user whose sign-in is blocked (an add creates users enabled: a blocked
// one without a licence is most likely a former employee's account), or
// a directory role (an administrator), is the exists refusal, with
// nothing changed.
func (c *Client) completeUser(ctx context.Context, upn, sku, password string, force bool, exists error) (*apiclient.Mailbox, error) {
	op := apiclient.OpAdd
	u, err := c.getUser(ctx, op, upn)
	if err != nil || len(u.AssignedLicenses) > 0 || u.AccountEnabled == nil || !*u.AccountEnabled {
		return nil, exists
	}
	if admin, err := c.holdsRole(ctx, op, u.ID); err != nil || admin {
		return nil, cmp.Or(err, exists)
	}
	if _, err := c.patch(ctx, op, upn, map[string]any{"passwordProfile": passwordProfile{Password: password,
		ForceChangePasswordNextSignIn: force}}, password); err != nil {
		return nil, err
	}
	m := u.mailbox()
	m.PasswordChangeRequired = force
	m.Warnings = append([]string{"the user existed without its licence (an earlier add could not assign it): " +
		"it was given a new password and the licence"}, c.assignLicense(ctx, op, u.ID, sku)...)
	return m, nil
}

// SetPassword sets the user's password (PATCH passwordProfile, 204).
func (c *Client) SetPassword(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpReset
	upn, err := address(op, domain, login)
	if err != nil {
		return nil, err
	}
	if err := checkPassword(op, password); err != nil {
		return nil, err
	}
	in := map[string]any{"passwordProfile": passwordProfile{Password: password, ForceChangePasswordNextSignIn: forceChange}}
	m, err := c.patch(ctx, op, upn, in, password)
	if err != nil {
		return nil, err
	}
	m.PasswordChangeRequired = forceChange
	return m, nil
}

// SetLoginEnabled sets accountEnabled; a block then revokes the user's
// sign-in sessions. A blocked user keeps its licence and mailbox, and
// still receives mail.
func (c *Client) SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpBlock
	if enabled {
		op = apiclient.OpUnblock
	}
	upn, err := address(op, domain, login)
	if err != nil {
		return nil, err
	}
	m, err := c.patch(ctx, op, upn, map[string]bool{"accountEnabled": enabled}, "")
	if err != nil || enabled {
		return m, err
	}
	m.State = apiclient.StateBlocked
	var out struct {
		Value bool `json:"value"`
	}
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodPost,
		Path: userPath(upn) + "/revokeSignInSessions", Out: &out}}); err != nil {
		m.Warnings = append(m.Warnings, "sign-ins are blocked, but the sessions already open could not be ended: "+err.Error())
	}
	return m, nil
}

// patch sends PATCH /users/{upn} (204); it sets a state, so an uncertain
// attempt is sent again as it is.
func (c *Client) patch(ctx context.Context, op apiclient.Op, upn string, in any, password string) (*apiclient.Mailbox, error) {
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodPatch, Path: userPath(upn), In: in,
		Secret: password}}); err != nil {
		return nil, err
	}
	return &apiclient.Mailbox{Address: upn, State: apiclient.StateActive}, nil
}

// LookupMailbox reads the user login@domain; one that does not exist
// (an alias included: a proxy address is no key) is refused as not
// found. A user without the licence is reported with a warning.
func (c *Client) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	op := apiclient.OpLookup
	upn, err := address(op, domain, login)
	if err != nil {
		return nil, err
	}
	u, err := c.getUser(ctx, op, upn)
	if err != nil {
		return nil, err
	}
	m := u.mailbox()
	if sku, err := c.skuID(ctx, op); err == nil && !u.holds(sku) {
		m.Warnings = append(m.Warnings, "the user has no licence of "+LicenseSetting+", so no mailbox: the same add again gives it the licence")
	}
	return m, nil
}

// getUser is GET /users/{upn} with the fields the client reads.
func (c *Client) getUser(ctx context.Context, op apiclient.Op, upn string) (*userJSON, error) {
	var u userJSON
	if err := c.call(ctx, request{JSONCall: apiclient.JSONCall{Op: op, Method: http.MethodGet, Path: userPath(upn),
		Query: url.Values{"$select": {userFields + ",proxyAddresses"}}, Out: &u}}); err != nil {
		return nil, err
	}
	return &u, nil
}
