package yandex360

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// A Yandex 360 alias is a local part of a user, valid at every domain of
// the organisation: POST …/users/{userId}/aliases {"alias": local part}
// adds one, DELETE …/users/{userId}/aliases/{alias} removes it, and the
// user object's aliases[] lists them. An alias address local@domain is
// taken here as the local part, once the domain is found among the
// organisation's.

// AddAlias gives the mailbox's user the alias's local part, once the
// alias's domain is found among the organisation's (another domain is
// refused before anything is written). It creates: an uncertain attempt
// is not sent again (the core looks the alias up first).
func (c *Client) AddAlias(ctx context.Context, alias, mailbox string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasAdd
	local, err := c.aliasLocal(ctx, op, alias)
	if err != nil {
		return nil, err
	}
	u, err := c.aliasTarget(ctx, op, alias, mailbox)
	if err != nil {
		return nil, err
	}
	if err := c.postAlias(ctx, op, u.ID, local); err != nil {
		return nil, err
	}
	return &apiclient.Alias{Address: strings.ToLower(alias), Mailbox: u.Email}, nil
}

// ListAliases returns the mailbox's user's aliases, each at the mailbox's
// domain (the alias is valid at every domain of the organisation), sorted.
func (c *Client) ListAliases(ctx context.Context, mailbox string) ([]string, error) {
	login, domain, _ := strings.Cut(strings.ToLower(mailbox), "@")
	u, err := c.findUser(ctx, apiclient.OpAliases, domain, login)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(u.Aliases))
	for _, a := range u.Aliases {
		out = append(out, strings.ToLower(a)+"@"+domain)
	}
	slices.Sort(out)
	return out, nil
}

// RemoveAlias finds the user that has the alias's local part (once its
// domain is found among the organisation's) and deletes it from that user.
func (c *Client) RemoveAlias(ctx context.Context, alias string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasRemove
	local, err := c.aliasLocal(ctx, op, alias)
	if err != nil {
		return nil, err
	}
	var owner *userJSON
	err = c.scanUsers(ctx, op, func(u *userJSON) bool {
		if hasAlias(u, local) {
			owner = u
		}
		return owner != nil
	})
	if err != nil {
		return nil, err
	}
	if owner == nil {
		return nil, c.refuse(op, apiclient.ReasonNotFound, fmt.Sprintf("no user of the organisation has the alias %q", local))
	}
	if err := c.deleteAlias(ctx, op, owner.ID, local); err != nil {
		return nil, err
	}
	return &apiclient.Alias{Address: strings.ToLower(alias), Mailbox: owner.Email}, nil
}

// MoveAlias moves the alias's local part from the user of from to the user
// of to: both found in one pass over the users (the caller has checked
// both mailboxes' domains), then a DELETE and a POST. An alias the new
// user has already is left as it is (Already). When the POST fails after
// the DELETE, the alias is given back to the old user, and the error says
// whether that worked.
func (c *Client) MoveAlias(ctx context.Context, alias, from, to string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasMove
	local, _, _ := strings.Cut(strings.ToLower(alias), "@")
	oldUser, newUser, err := c.twoUsers(ctx, op, from, to)
	if err != nil {
		return nil, err
	}
	done := &apiclient.Alias{Address: strings.ToLower(alias), Mailbox: newUser.Email}
	switch {
	case hasAlias(newUser, local):
		done.Already = true
		return done, nil
	case !hasAlias(oldUser, local):
		return nil, c.refuse(op, apiclient.ReasonNotFound, fmt.Sprintf("%s has no alias %q", oldUser.Email, local))
	}
	if err := c.deleteAlias(ctx, op, oldUser.ID, local); err != nil {
		return nil, err
	}
	if err := c.postAlias(ctx, op, newUser.ID, local); err != nil {
		return nil, c.giveBack(ctx, op, oldUser, local, err)
	}
	return done, nil
}

// giveBack re-adds the alias to the user it was taken from after the add
// to the new user failed (failed), and says so in the error.
func (c *Client) giveBack(ctx context.Context, op apiclient.Op, u *userJSON, local string, failed error) error {
	var e *apiclient.Error
	if !errors.As(failed, &e) {
		return failed
	}
	if err := c.postAlias(ctx, op, u.ID, local); err != nil {
		e.Message += "; the alias was removed from " + u.Email + " and could not be given back to it"
	} else {
		e.Message += "; the alias was given back to " + u.Email
	}
	return e
}

// aliasTarget finds the user of the mailbox, checking its domain among
// the organisation's unless it is the alias's, checked already.
func (c *Client) aliasTarget(ctx context.Context, op apiclient.Op, alias, mailbox string) (*userJSON, error) {
	login, domain, _ := strings.Cut(strings.ToLower(mailbox), "@")
	_, aliasDomain, _ := strings.Cut(strings.ToLower(alias), "@")
	if domain != aliasDomain {
		return c.findUser(ctx, op, domain, login)
	}
	var u *userJSON
	err := c.scanUsers(ctx, op, func(v *userJSON) bool {
		if strings.EqualFold(v.Nickname, login) {
			u = v
		}
		return u != nil
	})
	if err == nil && u == nil {
		err = c.refuse(op, apiclient.ReasonNotFound, fmt.Sprintf("the organisation has no user %q", login))
	}
	return u, err
}

// twoUsers finds the users of the mailboxes from and to in one pass.
func (c *Client) twoUsers(ctx context.Context, op apiclient.Op, from, to string) (*userJSON, *userJSON, error) {
	fromNick, _, _ := strings.Cut(from, "@")
	toNick, _, _ := strings.Cut(to, "@")
	var a, b *userJSON
	err := c.scanUsers(ctx, op, func(u *userJSON) bool {
		if strings.EqualFold(u.Nickname, fromNick) {
			a = u
		}
		if strings.EqualFold(u.Nickname, toNick) {
			b = u
		}
		return a != nil && b != nil
	})
	switch {
	case err != nil:
		return nil, nil, err
	case a == nil:
		return nil, nil, c.refuse(op, apiclient.ReasonNotFound, fmt.Sprintf("the organisation has no user %q", fromNick))
	case b == nil:
		return nil, nil, c.refuse(op, apiclient.ReasonNotFound, fmt.Sprintf("the organisation has no user %q", toNick))
	}
	return a, b, nil
}

// aliasLocal is the alias's local part once its domain is found among the
// organisation's; another domain is refused in words, nothing sent.
func (c *Client) aliasLocal(ctx context.Context, op apiclient.Op, alias string) (string, error) {
	local, domain, ok := strings.Cut(strings.ToLower(alias), "@")
	if !ok || local == "" || strings.ContainsAny(local, "/\\?#%") {
		return "", c.refuse(op, apiclient.ReasonInvalid, "an alias is local@domain")
	}
	_, err := c.orgDomain(ctx, op, domain)
	if apiclient.ReasonOf(err) == apiclient.ReasonNotFound {
		return "", c.refuse(op, apiclient.ReasonNotAllowed, domain+
			" is not a domain of the organisation: a Yandex 360 alias is a name at the organisation's own domains")
	}
	return local, err
}

// postAlias adds the alias to the user: a create, never sent twice.
func (c *Client) postAlias(ctx context.Context, op apiclient.Op, id userID, local string) error {
	path, err := c.orgPath(op, "users/"+string(id)+"/aliases")
	if err != nil {
		return err
	}
	var u userJSON
	return c.call(ctx, request{Op: op, Method: http.MethodPost, Path: path, In: map[string]string{"alias": local}, Out: &u, Create: true})
}

// deleteAlias deletes the alias from the user. It is sent again when its
// answer is lost; a 404 to a later attempt means the first one did it.
func (c *Client) deleteAlias(ctx context.Context, op apiclient.Op, id userID, local string) error {
	path, err := c.orgPath(op, "users/"+string(id)+"/aliases/"+url.PathEscape(local))
	if err != nil {
		return err
	}
	var out struct{}
	err = c.call(ctx, request{Op: op, Method: http.MethodDelete, Path: path, Out: &out})
	var e *apiclient.Error
	if errors.As(err, &e) && e.Reason == apiclient.ReasonNotFound && e.Attempts > 1 {
		return nil
	}
	return err
}

// scanUsers pages through the users until found says to stop.
func (c *Client) scanUsers(ctx context.Context, op apiclient.Op, found func(u *userJSON) bool) error {
	for page := 1; page <= maxPages; page++ {
		l, err := c.users(ctx, op, page, usersPerPage)
		if err != nil {
			return err
		}
		for i := range l.Users {
			if found(&l.Users[i]) {
				return nil
			}
		}
		if page >= l.Pages || len(l.Users) == 0 {
			return nil
		}
	}
	return nil
}

func hasAlias(u *userJSON, local string) bool {
	return slices.ContainsFunc(u.Aliases, func(a string) bool { return strings.EqualFold(a, local) })
}
