package pddsim

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultOnPage is email/list's page size when on_page is not sent, and
// MaxOnPage the largest it serves.
const (
	DefaultOnPage = 30
	MaxOnPage     = 1000
)

// checkInterval is the assumed time between two of the service's checks of
// a domain, for last_check and next_check.
const checkInterval = 10 * time.Minute

// editAnswer is email/edit's answer.
type editAnswer struct {
	Domain  string `json:"domain"`
	Login   string `json:"login"`
	UID     int64  `json:"uid"`
	Success string `json:"success"`
}

// listAnswer is email/list's answer.
type listAnswer struct {
	Domain   string          `json:"domain"`
	Page     int             `json:"page"`
	Pages    int             `json:"pages"`
	OnPage   int             `json:"on_page"`
	Total    int             `json:"total"`
	Found    int             `json:"found"`
	Accounts []listedMailbox `json:"accounts"`
	Success  string          `json:"success"`
}

// listedMailbox is one account of email/list.
type listedMailbox struct {
	Login   string   `json:"login"`
	UID     int64    `json:"uid"`
	Enabled string   `json:"enabled"`
	Ready   string   `json:"ready"`
	Aliases []string `json:"aliases"`
	FIO     string   `json:"fio"`
}

// statusAnswer is domain/registration_status's answer.
type statusAnswer struct {
	Domain    string         `json:"domain"`
	Status    Status         `json:"status"`
	Stage     stage          `json:"stage"`
	LastCheck string         `json:"last_check"`
	NextCheck string         `json:"next_check"`
	Secrets   *domainSecrets `json:"secrets,omitempty"`
	Success   string         `json:"success"`
}

// editMailbox is POST /api2/admin/email/edit; s.mu is held.
func (s *Server) editMailbox(acct *account, form url.Values) any {
	raw := form.Get("domain")
	if raw == "" {
		return failure(CodeNoDomain, "")
	}
	if form.Get("login") == "" && form.Get("uid") == "" {
		return failure(CodeNoLogin, raw)
	}
	name, code := s.ownedDomain(acct, raw)
	if code != "" {
		return failure(code, raw)
	}
	address, m, code := s.findMailbox(name, form)
	if code == "" && form.Has("password") {
		user, _, _ := strings.Cut(address, "@")
		code = passwordCode(form.Get("password"), user, address)
	}
	if code != "" {
		return failure(code, raw)
	}
	if form.Has("password") {
		m.password = form.Get("password")
	}
	switch form.Get("enabled") {
	case "yes":
		m.blocked = false
	case "no":
		m.blocked = true
	}
	s.mailboxes[address] = m
	return editAnswer{Domain: name, Login: address, UID: m.uid, Success: "ok"}
}

// findMailbox finds the mailbox of form's login (a user name or the
// address) or, without one, of its uid, in domain name; an unknown or
// malformed one is no_login.
func (s *Server) findMailbox(name string, form url.Values) (string, mailbox, Code) {
	if login := form.Get("login"); login != "" {
		user, code := checkLogin(login, name)
		if code != "" {
			return "", mailbox{}, CodeNoLogin
		}
		address := user + "@" + name
		m, ok := s.mailboxes[address]
		if !ok {
			return "", mailbox{}, CodeNoLogin
		}
		return address, m, ""
	}
	uid, err := strconv.ParseInt(form.Get("uid"), 10, 64)
	for address, m := range s.mailboxes {
		if err == nil && m.uid == uid && strings.HasSuffix(address, "@"+name) {
			return address, m, ""
		}
	}
	return "", mailbox{}, CodeNoLogin
}

// listMailboxes is GET /api2/admin/email/list; s.mu is held.
func (s *Server) listMailboxes(acct *account, form url.Values) any {
	raw := form.Get("domain")
	if raw == "" {
		return failure(CodeNoDomain, "")
	}
	name, code := s.ownedDomain(acct, raw)
	if code != "" {
		return failure(code, raw)
	}
	page := positive(form.Get("page"), 1, 1<<30)
	onPage := positive(form.Get("on_page"), DefaultOnPage, MaxOnPage)
	all := s.domainMailboxes(name)
	a := listAnswer{Domain: name, Page: page, Pages: (len(all) + onPage - 1) / onPage, OnPage: onPage,
		Total: len(all), Accounts: []listedMailbox{}, Success: "ok"}
	if from := (page - 1) * onPage; from < len(all) {
		a.Accounts = all[from:min(from+onPage, len(all))]
	}
	a.Found = len(a.Accounts)
	return a
}

// domainMailboxes lists domain name's mailboxes in the order they were
// created; s.mu is held.
func (s *Server) domainMailboxes(name string) []listedMailbox {
	var all []listedMailbox
	for address, m := range s.mailboxes {
		if strings.HasSuffix(address, "@"+name) {
			all = append(all, listedMailbox{Login: address, UID: m.uid, Enabled: yesNo(!m.blocked), Ready: "yes", Aliases: []string{}})
		}
	}
	slices.SortFunc(all, func(a, b listedMailbox) int { return cmp.Compare(a.UID, b.UID) })
	return all
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// positive reads a number from 1 to most; anything else is def.
func positive(raw string, def, most int) int {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > most {
		return def
	}
	return n
}

// registrationStatus is GET /api2/admin/domain/registration_status; s.mu is
// held.
func (s *Server) registrationStatus(acct *account, form url.Values) any {
	raw := form.Get("domain")
	if raw == "" {
		return failure(CodeNoDomain, "")
	}
	name, code := s.ownedDomain(acct, raw)
	if code != "" {
		return failure(code, raw)
	}
	d := s.domains[name]
	now := time.Now().UTC()
	a := statusAnswer{Domain: name, Status: d.status, Stage: stageOf(d.status),
		LastCheck: now.Add(-checkInterval / 2).Format(time.RFC3339), NextCheck: now.Add(checkInterval / 2).Format(time.RFC3339), Success: "ok"}
	if d.status == StatusDomainActivate {
		sec := d.secrets
		a.Secrets = &sec
	}
	return a
}
