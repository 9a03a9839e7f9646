package mailcow

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// mailcow's values of a mailbox's active.
const (
	activeInactive = 0 // no logins, mail refused
	activeActive   = 1
	activeBlocked  = 2 // no logins, mail accepted
)

// addMailboxBody is POST /api/v1/add/mailbox's body. Quota (MiB) is the
// domain's default: mailcow applies no domain default itself, and a quota
// left out is its Default template's, 0 (unlimited).
type addMailboxBody struct {
	LocalPart     string `json:"local_part"`
	Domain        string `json:"domain"`
	Name          string `json:"name"`
	Password      string `json:"password"`
	Password2     string `json:"password2"`
	Quota         int64  `json:"quota"`
	Active        int    `json:"active"`
	ForcePwUpdate int    `json:"force_pw_update"`
}

// editMailboxBody is POST /api/v1/edit/mailbox's body: only the
// attributes set are sent.
type editMailboxBody struct {
	Items []string `json:"items"`
	Attr  editAttr `json:"attr"`
}

type editAttr struct {
	Password      string `json:"password,omitempty"`
	Password2     string `json:"password2,omitempty"`
	ForcePwUpdate *int   `json:"force_pw_update,omitempty"`
	Active        *int   `json:"active,omitempty"`
}

// mailboxJSON is a mailbox in GET /api/v1/get/mailbox answers, in part.
type mailboxJSON struct {
	Username   string     `json:"username"`
	LocalPart  string     `json:"local_part"`
	Domain     string     `json:"domain"`
	Active     number     `json:"active"`
	Attributes attributes `json:"attributes"`
}

func (m mailboxJSON) mailbox() apiclient.Mailbox {
	address := m.Username
	if address == "" {
		address = m.LocalPart + "@" + m.Domain
	}
	return apiclient.Mailbox{Address: address, State: state(int(m.Active)),
		PasswordChangeRequired: m.Attributes.ForcePasswordUpdate == 1}
}

func state(active int) apiclient.MailboxState {
	switch active {
	case activeActive:
		return apiclient.StateActive
	case activeBlocked:
		return apiclient.StateBlocked
	}
	return apiclient.StateInactive
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

func address(domain, login string) string { return strings.ToLower(login + "@" + domain) }

// AddMailbox reads the domain's default quota (GET get/domain/{domain}; an
// unknown domain is ReasonNotFound, nothing created), then calls POST
// /api/v1/add/mailbox (the password sent twice, that quota, active,
// force_pw_update as asked). It is never retried once it may have
// reached mailcow: an uncertain add is for the caller to look up.
func (c *Client) AddMailbox(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	return c.AddNamedMailbox(ctx, domain, login, apiclient.PersonName{}, password, forceChange)
}

// AddNamedMailbox is AddMailbox with the person's name as the mailbox's
// name (mailcow keeps one full name); without one, the local part.
func (c *Client) AddNamedMailbox(ctx context.Context, domain, login string, person apiclient.PersonName, password string, forceChange bool) (*apiclient.Mailbox, error) {
	name := person.Full()
	if name == "" {
		name = login
	}
	d, err := c.domainInfo(ctx, apiclient.OpAdd, strings.ToLower(domain), password)
	if err != nil {
		return nil, err
	}
	body := addMailboxBody{LocalPart: login, Domain: domain, Name: name, Password: password, Password2: password,
		Quota: int64(d.DefQuota) / mib, Active: activeActive, ForcePwUpdate: flag(forceChange)}
	k := call{op: apiclient.OpAdd, path: "add/mailbox", password: password}
	warnings, err := c.write(ctx, k, body, apiclient.ReasonNotAllowed)
	if err != nil {
		return nil, err
	}
	return &apiclient.Mailbox{Address: address(domain, login), State: apiclient.StateActive,
		PasswordChangeRequired: forceChange, Warnings: warnings}, nil
}

// SetPassword calls POST /api/v1/edit/mailbox with the password (twice)
// and force_pw_update. It sets a state, so an uncertain attempt is sent
// again as it is. The result's State is empty: the edit does not say it.
func (c *Client) SetPassword(ctx context.Context, domain, login, password string, forceChange bool) (*apiclient.Mailbox, error) {
	force := flag(forceChange)
	attr := editAttr{Password: password, Password2: password, ForcePwUpdate: &force}
	m, err := c.edit(ctx, call{op: apiclient.OpReset, password: password}, address(domain, login), attr)
	if err != nil {
		return nil, err
	}
	m.PasswordChangeRequired = forceChange
	return m, nil
}

// SetLoginEnabled calls POST /api/v1/edit/mailbox with active 1
// (enabled) or 2 (blocked: no logins, mail still accepted). It sets a
// state, so an uncertain attempt is sent again as it is.
func (c *Client) SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	op, active := apiclient.OpBlock, activeBlocked
	if enabled {
		op, active = apiclient.OpUnblock, activeActive
	}
	m, err := c.edit(ctx, call{op: op}, address(domain, login), editAttr{Active: &active})
	if err != nil {
		return nil, err
	}
	m.State = state(active)
	return m, nil
}

// edit is one idempotent edit of one mailbox; a mailbox that does not
// exist (mailcow's access_denied) is ReasonNotFound.
func (c *Client) edit(ctx context.Context, k call, addr string, attr editAttr) (*apiclient.Mailbox, error) {
	k.path, k.idempotent = "edit/mailbox", true
	warnings, err := c.write(ctx, k, editMailboxBody{Items: []string{addr}, Attr: attr}, apiclient.ReasonNotFound)
	if err != nil {
		return nil, err
	}
	return &apiclient.Mailbox{Address: addr, Warnings: warnings}, nil
}

// LookupMailbox calls GET /api/v1/get/mailbox/{address}; mailcow's {} is
// ReasonNotFound.
func (c *Client) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	seg, err := c.segment(apiclient.OpLookup, address(domain, login))
	if err != nil {
		return nil, err
	}
	var v mailboxJSON
	found, err := c.read(ctx, apiclient.OpLookup, "get/mailbox/"+seg, &v)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, c.notFound(apiclient.OpLookup, "no such mailbox")
	}
	m := v.mailbox()
	return &m, nil
}

// ListMailboxes calls GET /api/v1/get/mailbox/all/{domain}. mailcow has no
// paging: each call loads the domain's whole list, sorts it by address and
// returns limit of them from the offset the cursor holds ("" is 0; limit
// 0 or less is all). Next is the next offset, "" on the last page. A
// domain that does not exist reads as one without mailboxes, so an empty
// first page asks for the domain too: a misspelt domain is not found, not
// empty.
func (c *Client) ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error) {
	offset, err := c.offset(cursor)
	if err != nil {
		return nil, err
	}
	seg, err := c.segment(apiclient.OpList, strings.ToLower(domain))
	if err != nil {
		return nil, err
	}
	var list []mailboxJSON
	if _, err := c.read(ctx, apiclient.OpList, "get/mailbox/all/"+seg, &list); err != nil {
		return nil, err
	}
	if len(list) == 0 && offset == 0 {
		if _, err := c.DomainStatus(ctx, domain); err != nil {
			return nil, err
		}
	}
	all := make([]apiclient.Mailbox, len(list))
	for i, m := range list {
		all[i] = m.mailbox()
	}
	slices.SortFunc(all, func(a, b apiclient.Mailbox) int { return cmp.Compare(a.Address, b.Address) })
	return page(all, offset, limit), nil
}

// page cuts one page out of all mailboxes.
func page(all []apiclient.Mailbox, offset, limit int) *apiclient.Page {
	start := min(offset, len(all))
	end := len(all)
	if limit > 0 {
		end = min(start+limit, len(all))
	}
	p := &apiclient.Page{Mailboxes: all[start:end], Total: len(all)}
	if end < len(all) {
		p.Next = strconv.Itoa(end)
	}
	return p
}

// offset reads a cursor of ListMailboxes.
func (c *Client) offset(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(cursor)
	if err != nil || n < 0 {
		e := c.caller.Fail(apiclient.OpList, apiclient.ClassRefused, 0, "", "the page cursor is not one this client gave")
		e.Reason = apiclient.ReasonInvalid
		return 0, e
	}
	return n, nil
}
