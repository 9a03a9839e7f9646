package google

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// A Google alias is an address of a user: POST users/{userKey}/aliases
// {"alias"} adds one and answers the Alias {primaryEmail, alias}; GET
// users/{userKey}/aliases lists a user's ({aliases:[Alias…]}); DELETE
// users/{userKey}/aliases/{alias} removes one. A userKey may be the
// primary e-mail, an alias or the id, so users.get of an alias reads the
// user it delivers to. An address that is a user or an alias already is
// 409 duplicate. Google cannot re-point an alias: a move is a delete and
// an insert.

// aliasJSON is the Alias resource, in part.
type aliasJSON struct {
	PrimaryEmail string `json:"primaryEmail"`
	Alias        string `json:"alias"`
}

// AddAlias reads the mailbox's user (users.get: one that does not exist
// is ReasonNotFound, nothing written), then inserts the alias on it. It
// creates: an uncertain attempt is not sent again (the core looks the
// alias up first).
func (c *Client) AddAlias(ctx context.Context, alias, mailbox string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasAdd
	a, err := aliasAddress(op, alias)
	if err != nil {
		return nil, err
	}
	owner, err := c.mailboxOf(ctx, op, mailbox)
	if err != nil {
		return nil, err
	}
	if err := c.insertAlias(ctx, op, owner, a); err != nil {
		return nil, err
	}
	return &apiclient.Alias{Address: a, Mailbox: owner}, nil
}

// ListAliases reads the mailbox's aliases (users.aliases.list), sorted.
func (c *Client) ListAliases(ctx context.Context, mailbox string) ([]string, error) {
	op := apiclient.OpAliases
	m, err := aliasAddress(op, mailbox)
	if err != nil {
		return nil, err
	}
	var l struct {
		Aliases []aliasJSON `json:"aliases"`
	}
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: aliasesPath(m), Out: &l}); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.Aliases))
	for _, a := range l.Aliases {
		out = append(out, strings.ToLower(a.Alias))
	}
	slices.Sort(out)
	return out, nil
}

// RemoveAlias reads the user the alias delivers to (users.get with the
// alias as the key), then deletes the alias from that user.
func (c *Client) RemoveAlias(ctx context.Context, alias string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasRemove
	a, err := aliasAddress(op, alias)
	if err != nil {
		return nil, err
	}
	owner, err := c.aliasOwner(ctx, op, a)
	if err != nil {
		return nil, err
	}
	if err := c.deleteAlias(ctx, op, owner, a); err != nil {
		return nil, err
	}
	return &apiclient.Alias{Address: a, Mailbox: owner}, nil
}

// MoveAlias reads the user the alias delivers to (one users.get): the
// user of to already, it is left as it is (Already); the user of from, it
// is deleted there and inserted on to. When the insert fails after the
// delete, the alias is given back to from, and the error says whether
// that worked.
func (c *Client) MoveAlias(ctx context.Context, alias, from, to string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasMove
	a, err := aliasAddress(op, alias)
	if err != nil {
		return nil, err
	}
	from, to = strings.ToLower(from), strings.ToLower(to)
	if _, err := aliasAddress(op, to); err != nil {
		return nil, err
	}
	owner, err := c.aliasOwner(ctx, op, a)
	switch {
	case err != nil:
		return nil, err
	case owner == to:
		return &apiclient.Alias{Address: a, Mailbox: to, Already: true}, nil
	case owner != from:
		return nil, refuse(op, apiclient.ReasonNotFound, a+" delivers to "+owner+", not to "+from)
	}
	if err := c.deleteAlias(ctx, op, owner, a); err != nil {
		return nil, err
	}
	if err := c.insertAlias(ctx, op, to, a); err != nil {
		return nil, c.giveBack(ctx, op, owner, a, err)
	}
	return &apiclient.Alias{Address: a, Mailbox: to}, nil
}

// giveBack re-inserts the alias on the user it was deleted from after the
// insert on the new one failed (failed), and says so in the error. The
// address being taken means the failed insert was carried out after all.
func (c *Client) giveBack(ctx context.Context, op apiclient.Op, owner, alias string, failed error) error {
	var e *apiclient.Error
	if !errors.As(failed, &e) {
		return failed
	}
	err := c.insertAlias(ctx, op, owner, alias)
	switch {
	case err == nil:
		e.Message += "; the alias was given back to " + owner
	case apiclient.ReasonOf(err) == apiclient.ReasonExists:
		e.Message += "; the alias was removed from " + owner + " and is taken again, most likely by the move itself"
	default:
		e.Message += "; the alias was removed from " + owner + " and could not be given back to it"
	}
	return e
}

// mailboxOf reads the user of mailbox and returns its primary e-mail; an
// address that is an alias of another user is not a mailbox.
func (c *Client) mailboxOf(ctx context.Context, op apiclient.Op, mailbox string) (string, error) {
	m, err := aliasAddress(op, mailbox)
	if err != nil {
		return "", err
	}
	u, err := c.getUser(ctx, op, m)
	if err != nil {
		return "", err
	}
	if owner := strings.ToLower(u.PrimaryEmail); owner != m {
		return "", refuse(op, apiclient.ReasonNotFound, m+" is an alias of "+owner+", not a mailbox")
	}
	return m, nil
}

// aliasOwner reads the user with the alias as the key and returns its
// primary e-mail; an address that is no alias is ReasonNotFound.
func (c *Client) aliasOwner(ctx context.Context, op apiclient.Op, alias string) (string, error) {
	u, err := c.getUser(ctx, op, alias)
	var e *apiclient.Error
	if errors.As(err, &e) && e.Reason == apiclient.ReasonNotFound {
		e.Message = "no user or alias " + alias + " in the Workspace"
	}
	if err != nil {
		return "", err
	}
	owner := strings.ToLower(u.PrimaryEmail)
	if owner == alias {
		return "", refuse(op, apiclient.ReasonNotFound, alias+" is a mailbox, not an alias")
	}
	return owner, nil
}

// insertAlias adds the alias to the user: a create, never sent twice.
func (c *Client) insertAlias(ctx context.Context, op apiclient.Op, owner, alias string) error {
	var out aliasJSON
	_, err := c.insert(ctx, request{Op: op, Method: http.MethodPost, Path: aliasesPath(owner),
		In: map[string]string{"alias": alias}, Out: &out, Create: true}, alias)
	return err
}

// deleteAlias deletes the alias from the user. It is sent again when its
// answer is lost; a 404 to a later attempt means the first one did it.
func (c *Client) deleteAlias(ctx context.Context, op apiclient.Op, owner, alias string) error {
	err := c.call(ctx, request{Op: op, Method: http.MethodDelete, Path: aliasesPath(owner) + "/" + url.PathEscape(alias)})
	var e *apiclient.Error
	if errors.As(err, &e) && e.Reason == apiclient.ReasonNotFound && e.Attempts > 1 {
		return nil
	}
	return err
}

// aliasAddress is an address in lower case once it is local@domain as
// Google takes it; another is refused before anything is sent.
func aliasAddress(op apiclient.Op, address string) (string, error) {
	local, domain, ok := strings.Cut(strings.ToLower(strings.TrimSpace(address)), "@")
	d, err := domainName(op, domain)
	if !ok || err != nil || !validLogin(local) {
		return "", refuse(op, apiclient.ReasonInvalid, "not an address Google takes (local@domain; letters, digits, . - _ ' +)")
	}
	return local + "@" + d, nil
}

func userPath(key string) string { return "admin/directory/v1/users/" + url.PathEscape(key) }

// getUser is users.get of key: an address, or an alias in its place (the
// API answers with the user it names).
func (c *Client) getUser(ctx context.Context, op apiclient.Op, key string) (*userJSON, error) {
	var u userJSON
	if err := c.call(ctx, request{Op: op, Method: http.MethodGet, Path: userPath(key), Out: &u}); err != nil {
		return nil, err
	}
	return &u, nil
}

func aliasesPath(key string) string { return userPath(key) + "/aliases" }
