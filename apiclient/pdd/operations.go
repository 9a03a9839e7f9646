package pdd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// What a domain's DNS must publish for mail to flow through PDD: its MX
// host, the SPF include, and the host the verification CNAME points to.
const (
	MXHost      = "mx.yandex.net"
	SPFInclude  = "_spf.yandex.net"
	VerifyCNAME = "mail.yandex.ru"
	MXPref      = 10 // the preference the MX record is published with
)

// lookupOnPage is the page size LookupMailbox reads email/list with.
const lookupOnPage = 100

// domainAnswer is the answer of domain/register and
// domain/registration_status.
type domainAnswer struct {
	envelope
	Domain  string   `json:"domain"`
	Status  string   `json:"status"`
	Stage   string   `json:"stage"`
	Secrets *Secrets `json:"secrets"`
}

// mailboxAnswer is the answer of email/add and email/edit.
type mailboxAnswer struct {
	envelope
	Domain string      `json:"domain"`
	Login  string      `json:"login"`
	UID    json.Number `json:"uid"`
}

// listAnswer is the answer of email/list.
type listAnswer struct {
	envelope
	Domain   string `json:"domain"`
	Page     int    `json:"page"`
	Pages    int    `json:"pages"`
	Total    int    `json:"total"`
	Accounts []struct {
		Login   string      `json:"login"`
		UID     json.Number `json:"uid"`
		Enabled string      `json:"enabled"`
	} `json:"accounts"`
}

// RegisterDomain calls POST /api2/admin/domain/register. It is
// retried as it is after any temporary or uncertain failure: registering
// one's own domain again is harmless, so a 5xx counts as nothing done.
// PDD answers a repeat as it answers a first registration, with the
// domain's status; a first registration is always domain-activate, so a
// domain verified already (mx-activate, added) was the account's before:
// Existed. A repeat while still domain-activate looks like a first one,
// which is why the adapter says RegisterAnswersAsNew: the core reads the
// status first.
func (a *Adapter) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	d, err := a.domain(ctx, apiclient.OpRegister, OpRegisterDomain, http.MethodPost, domain)
	if err == nil && d.Status != StatusDomainActivate {
		d.Existed = true
	}
	return d, err
}

// DomainStatus calls GET /api2/admin/domain/registration_status: the
// domain's status and, while it is domain-activate, its secrets.
func (a *Adapter) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	return a.domain(ctx, apiclient.OpDomainStatus, OpRegistrationStatus, http.MethodGet, domain)
}

func (a *Adapter) domain(ctx context.Context, op apiclient.Op, pddOp Op, method, domain string) (*apiclient.Domain, error) {
	var r domainAnswer
	if err := a.call(ctx, op, pddOp, method, "domain="+url.QueryEscape(domain), true, &r); err != nil {
		return nil, err
	}
	return a.domainOf(op, &r, domain)
}

// domainOf reads the domain of a successful answer for the domain asked
// for.
func (a *Adapter) domainOf(op apiclient.Op, r *domainAnswer, domain string) (*apiclient.Domain, error) {
	d := &apiclient.Domain{Name: r.Domain, Status: r.Status, Stage: r.Stage,
		Verified: r.Status != StatusDomainActivate, MailFlows: r.Status == StatusAdded, Meaning: Status(r.Status).Meaning()}
	if d.Name == "" {
		d.Name = domain
	}
	if !Status(d.Status).Known() {
		return nil, a.garbled(op, fmt.Sprintf("unknown domain status %q", apiclient.Excerpt([]byte(r.Status), apiclient.ExcerptLen, a.c.Secrets()...)))
	}
	if d.Status != StatusDomainActivate {
		return d, nil
	}
	if r.Secrets == nil || r.Secrets.Name == "" || r.Secrets.Content == "" {
		return nil, a.garbled(op, "status domain-activate without verification secrets")
	}
	d.Secrets = SecretsOf(d.Name, r.Secrets.Name, r.Secrets.Content)
	return d, nil
}

// MailHosts is what PDD's DNS records name: all of MailDNS (Hosts).
func (a *Adapter) MailHosts() apiclient.MailDNS { return Hosts() }

// Hosts is what every PDD domain's DNS must publish, constants: its MX
// and SPF (the verification record comes with the secrets: SecretsOf).
func Hosts() apiclient.MailDNS {
	return apiclient.MailDNS{Records: []apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: MXPref, Host: MXHost}), apiclient.SPFInclude(SPFInclude)}}
}

// MailDNS says what the domain's DNS must publish; it sends no request.
func (a *Adapter) MailDNS(context.Context, string) (*apiclient.MailDNS, error) {
	hosts := a.MailHosts()
	return &hosts, nil
}

// AddMailbox calls POST /api2/admin/email/add. PDD cannot
// force a password change: forceChange is ignored and the result says so.
// A request that was sent and got no answer, or an HTTP 5xx, is never
// sent again: the mailbox may exist now (ClassUncertain).
func (a *Adapter) AddMailbox(ctx context.Context, domain, login, password string, _ bool) (*apiclient.Mailbox, error) {
	form := url.Values{"domain": {domain}, "login": {login}, "password": {password}}
	return a.mailbox(ctx, apiclient.OpAdd, OpAddMailbox, form, false, apiclient.StateActive, password)
}

// SetPassword calls POST /api2/admin/email/edit with the password. It
// sets a state, so an uncertain attempt is retried as it is. forceChange
// is ignored (see [Adapter.AddMailbox]); the result's State is "": the
// answer does not say it.
func (a *Adapter) SetPassword(ctx context.Context, domain, login, password string, _ bool) (*apiclient.Mailbox, error) {
	form := url.Values{"domain": {domain}, "login": {login}, "password": {password}}
	return a.mailbox(ctx, apiclient.OpReset, OpEditMailbox, form, true, "", password)
}

// SetLoginEnabled calls POST /api2/admin/email/edit with enabled=yes or
// enabled=no, retried as it is when uncertain.
func (a *Adapter) SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	op, state, value := apiclient.OpBlock, apiclient.StateBlocked, "no"
	if enabled {
		op, state, value = apiclient.OpUnblock, apiclient.StateActive, "yes"
	}
	form := url.Values{"domain": {domain}, "login": {login}, "enabled": {value}}
	return a.mailbox(ctx, op, OpEditMailbox, form, true, state)
}

func (a *Adapter) mailbox(ctx context.Context, op apiclient.Op, pddOp Op, form url.Values, idempotent bool, state apiclient.MailboxState, secrets ...string) (*apiclient.Mailbox, error) {
	var r mailboxAnswer
	if err := a.call(ctx, op, pddOp, http.MethodPost, form.Encode(), idempotent, &r, secrets...); err != nil {
		return nil, err
	}
	return a.mailboxOf(op, &r, form, state, secrets...)
}

// mailboxOf reads the mailbox of a successful answer to form.
func (a *Adapter) mailboxOf(op apiclient.Op, r *mailboxAnswer, form url.Values, state apiclient.MailboxState, secrets ...string) (*apiclient.Mailbox, error) {
	if uid, err := strconv.ParseInt(r.UID.String(), 10, 64); err != nil || uid <= 0 {
		uidText := apiclient.Excerpt([]byte(r.UID.String()), apiclient.ExcerptLen, a.c.WithSecrets(secrets...).Secrets()...)
		return nil, a.garbled(op, fmt.Sprintf("answer has no valid uid %q", uidText))
	}
	return &apiclient.Mailbox{Address: address(r.Login, form.Get("login"), form.Get("domain")), UID: r.UID.String(), State: state}, nil
}

// address is the full address of a mailbox: the answer's login when it is
// one, else the login sent (or the answer's) at the domain.
func address(answered, sent, domain string) string {
	if strings.Contains(answered, "@") {
		return answered
	}
	if answered != "" {
		sent = answered
	}
	if strings.Contains(sent, "@") {
		return strings.ToLower(sent)
	}
	return strings.ToLower(sent + "@" + domain)
}

// ListMailboxes calls GET /api2/admin/email/list for one page. The cursor
// is "page/on_page" as the previous page's Next gave it ("" for the first
// page, of limit mailboxes: 30 when limit is 0 or less).
func (a *Adapter) ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error) {
	page, onPage := 1, limit
	if onPage <= 0 {
		onPage = 30
	}
	if cursor != "" {
		if _, err := fmt.Sscanf(cursor, "%d/%d", &page, &onPage); err != nil || page < 1 || onPage < 1 {
			return nil, fmt.Errorf("pdd list: cursor %q is not one this adapter gave", cursor)
		}
	}
	r, err := a.listPage(ctx, apiclient.OpList, domain, page, onPage)
	if err != nil {
		return nil, err
	}
	p := &apiclient.Page{Total: r.Total}
	for _, acc := range r.Accounts {
		p.Mailboxes = append(p.Mailboxes, listed(acc.Login, acc.UID, acc.Enabled, domain))
	}
	if page < r.Pages {
		p.Next = fmt.Sprintf("%d/%d", page+1, onPage)
	}
	return p, nil
}

func (a *Adapter) listPage(ctx context.Context, op apiclient.Op, domain string, page, onPage int) (*listAnswer, error) {
	var r listAnswer
	q := url.Values{"domain": {domain}, "page": {strconv.Itoa(page)}, "on_page": {strconv.Itoa(onPage)}}
	if err := a.call(ctx, op, OpListMailboxes, http.MethodGet, q.Encode(), true, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func listed(login string, uid json.Number, enabled, domain string) apiclient.Mailbox {
	state := apiclient.StateActive
	if enabled == "no" {
		state = apiclient.StateBlocked
	}
	return apiclient.Mailbox{Address: address(login, "", domain), UID: uid.String(), State: state}
}

// LookupMailbox reads email/list a page at a time until it finds login:
// PDD has no call that reads one mailbox (email/edit would change it).
func (a *Adapter) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	return a.lookup(ctx, apiclient.OpLookup, domain, login)
}

// lookup is LookupMailbox as op.
func (a *Adapter) lookup(ctx context.Context, op apiclient.Op, domain, login string) (*apiclient.Mailbox, error) {
	want := address("", login, domain)
	for page := 1; ; page++ {
		r, err := a.listPage(ctx, op, domain, page, lookupOnPage)
		if err != nil {
			return nil, err
		}
		for _, acc := range r.Accounts {
			if m := listed(acc.Login, acc.UID, acc.Enabled, domain); strings.EqualFold(m.Address, want) {
				return &m, nil
			}
		}
		if page >= r.Pages || len(r.Accounts) == 0 {
			e := a.c.Fail(op, apiclient.ClassRefused, http.StatusOK, "", "no such mailbox in this domain")
			e.Reason = apiclient.ReasonNotFound
			return nil, e
		}
	}
}

// Op names an operation of the PDD API.
type Op string

// The documented operations, and the lifecycle calls of the real service.
const (
	OpRegisterDomain     Op = "domain/register"
	OpAddMailbox         Op = "email/add"
	OpEditMailbox        Op = "email/edit"
	OpListMailboxes      Op = "email/list"
	OpRegistrationStatus Op = "domain/registration_status"
)

// ResolveMailbox finds login@domain as LookupMailbox does: PDD has no
// aliases that mailbot uses and no administrator flag, so an address
// names its own mailbox or none.
func (a *Adapter) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	m, err := a.lookup(ctx, apiclient.OpResolve, domain, login)
	if err != nil {
		return nil, err
	}
	return &apiclient.Resolved{Mailbox: *m}, nil
}
