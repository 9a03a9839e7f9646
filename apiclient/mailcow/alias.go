package mailcow

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Aliases in mailcow are objects of their own, keyed by a numeric id:
// POST add/alias {"address","goto","active":1,"sender_allowed":1,
// "sogo_visible":1} creates one (mailcow reads a flag left out as 0: an
// alias the mailbox could not send as, hidden from SOGo) (success
// ["alias_added", address, id]); GET get/alias/all/{domain} lists a
// domain's aliases ({} for none); POST delete/alias ["<id>"] removes one
// (an unknown id is access_denied); POST edit/alias {"items":["<id>"],
// "attr":{"goto"}} re-points one in a single write. goto is a
// comma-separated list of addresses.

// aliasJSON is an alias in get/alias answers, in part.
type aliasJSON struct {
	ID      number `json:"id"`
	Address string `json:"address"`
	Goto    string `json:"goto"`
}

// targets are the addresses the alias delivers to, in lower case.
func (a aliasJSON) targets() []string {
	var out []string
	for _, t := range strings.Split(a.Goto, ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			out = append(out, t)
		}
	}
	return out
}

type addAliasBody struct {
	Address string `json:"address"`
	Goto    string `json:"goto"`
	Active  int    `json:"active"`
	// SenderAllowed lets the mailbox send as the alias (a successor
	// taking over an address needs it); SOGoVisible offers the alias as a
	// sender in SOGo.
	SenderAllowed int `json:"sender_allowed"`
	SOGoVisible   int `json:"sogo_visible"`
}

type editAliasBody struct {
	Items []string `json:"items"`
	Attr  struct {
		Goto string `json:"goto"`
	} `json:"attr"`
}

// AddAlias reads the mailbox (mailcow takes any address as goto, so a
// mistyped mailbox would become a forward to nowhere: one that does not
// exist is ReasonNotFound), then calls POST /api/v1/add/alias with goto
// the mailbox, active, the mailbox allowed to send as the alias and SOGo
// showing it. It creates: an uncertain attempt is not sent again
// (the core looks the alias up first).
func (c *Client) AddAlias(ctx context.Context, alias, mailbox string) (*apiclient.Alias, error) {
	alias, mailbox = strings.ToLower(alias), strings.ToLower(mailbox)
	seg, err := c.segment(apiclient.OpAliasAdd, mailbox)
	if err != nil {
		return nil, err
	}
	var m mailboxJSON
	found, err := c.read(ctx, apiclient.OpAliasAdd, "get/mailbox/"+seg, &m)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, c.notFound(apiclient.OpAliasAdd, "no mailbox "+mailbox+" on the mailcow server")
	}
	k := call{op: apiclient.OpAliasAdd, path: "add/alias"}
	warnings, err := c.write(ctx, k, addAliasBody{Address: alias, Goto: mailbox, Active: activeActive, SenderAllowed: 1, SOGoVisible: 1}, apiclient.ReasonNotAllowed)
	if err != nil {
		return nil, err
	}
	return &apiclient.Alias{Address: alias, Mailbox: mailbox, Warnings: warnings}, nil
}

// ListAliases reads the aliases of the mailbox's domain (GET
// get/alias/all/{domain}) and returns, sorted, those that deliver to the
// mailbox. Aliases of other domains that deliver to it are not seen.
func (c *Client) ListAliases(ctx context.Context, mailbox string) ([]string, error) {
	mailbox = strings.ToLower(mailbox)
	_, domain, _ := strings.Cut(mailbox, "@")
	all, err := c.domainAliases(ctx, apiclient.OpAliases, domain)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range all {
		if slices.Contains(a.targets(), mailbox) {
			out = append(out, strings.ToLower(a.Address))
		}
	}
	slices.Sort(out)
	return out, nil
}

// RemoveAlias finds the alias's id (one read of its domain's aliases) and
// calls POST /api/v1/delete/alias ["<id>"]. When the delete gets no
// usable answer, the domain's aliases are read again: gone, it was done.
func (c *Client) RemoveAlias(ctx context.Context, alias string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasRemove
	a, err := c.findAlias(ctx, op, alias)
	if err != nil {
		return nil, err
	}
	id := strconv.FormatInt(int64(a.ID), 10)
	warnings, err := c.write(ctx, call{op: op, path: "delete/alias"}, []string{id}, apiclient.ReasonNotFound)
	if apiclient.MayHaveHappened(err) && ctx.Err() == nil {
		if _, ferr := c.findAlias(ctx, op, alias); apiclient.ReasonOf(ferr) == apiclient.ReasonNotFound {
			err = nil
		}
	}
	if err != nil {
		return nil, aliasDenied(err)
	}
	return &apiclient.Alias{Address: strings.ToLower(a.Address), Mailbox: a.Goto, Warnings: warnings}, nil
}

// MoveAlias re-points the alias in one write once it is found (POST
// edit/alias with goto its addresses, from replaced by to): other
// addresses it delivers to stay. An alias that delivers to to and no
// longer to from is left as it is (Already).
func (c *Client) MoveAlias(ctx context.Context, alias, from, to string) (*apiclient.Alias, error) {
	op := apiclient.OpAliasMove
	from, to = strings.ToLower(from), strings.ToLower(to)
	a, err := c.findAlias(ctx, op, alias)
	if err != nil {
		return nil, err
	}
	done := &apiclient.Alias{Address: strings.ToLower(a.Address), Mailbox: to}
	targets := a.targets()
	if !slices.Contains(targets, from) && slices.Contains(targets, to) {
		done.Already = true
		return done, nil
	}
	gotos := []string{to}
	for _, t := range targets {
		if t != from && t != to {
			gotos = append(gotos, t)
		}
	}
	var body editAliasBody
	body.Items = []string{strconv.FormatInt(int64(a.ID), 10)}
	body.Attr.Goto = strings.Join(gotos, ",")
	done.Warnings, err = c.write(ctx, call{op: op, path: "edit/alias", idempotent: true}, body, apiclient.ReasonNotFound)
	if err != nil {
		return nil, aliasDenied(err)
	}
	return done, nil
}

// findAlias reads the alias's domain's aliases for the address; an alias
// that is not there is ReasonNotFound.
func (c *Client) findAlias(ctx context.Context, op apiclient.Op, alias string) (*aliasJSON, error) {
	alias = strings.ToLower(alias)
	_, domain, _ := strings.Cut(alias, "@")
	all, err := c.domainAliases(ctx, op, domain)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if strings.EqualFold(all[i].Address, alias) {
			return &all[i], nil
		}
	}
	return nil, c.notFound(op, "no such alias")
}

// domainAliases reads GET /api/v1/get/alias/all/{domain}; mailcow's {} is
// none.
func (c *Client) domainAliases(ctx context.Context, op apiclient.Op, domain string) ([]aliasJSON, error) {
	seg, err := c.segment(op, domain)
	if err != nil {
		return nil, err
	}
	var list []aliasJSON
	if _, err := c.read(ctx, op, "get/alias/all/"+seg, &list); err != nil {
		return nil, err
	}
	return list, nil
}

// aliasDenied rewords access_denied on an alias id: the alias is gone.
func aliasDenied(err error) error {
	var e *apiclient.Error
	if errors.As(err, &e) && e.Code == codeAccessDenied && e.Reason == apiclient.ReasonNotFound {
		e.Message = "the alias is not on the mailcow server"
	}
	return err
}
