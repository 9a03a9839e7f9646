package mailcowsim

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MinPasswordLen is mailcow's default password policy: the length alone.
const MinPasswordLen = 6

// mailcow UI's defaults for a new domain (quotas in MiB).
const (
	defaultMaxMailboxes = 10
	defaultMaxAliases   = 400
	defaultQuota        = 10240
	defaultMaxQuota     = 10240
	defaultDefQuota     = 3072
	dkimSelector        = "dkim"
	mib                 = 1 << 20
)

// attrs are the attributes of a write, numbers as json.Number.
type attrs map[string]any

// errNoAttrs is a write whose body is no JSON object. A constant, not
// errors.New: the package has no initialiser (simkit.Pattern says why).
const errNoAttrs = attrsError("no attributes")

// attrsError is an error of parseAttrs.
type attrsError string

func (e attrsError) Error() string { return string(e) }

func parseAttrs(body []byte) (attrs, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var a attrs
	if err := dec.Decode(&a); err != nil || a == nil {
		return nil, errNoAttrs
	}
	return a, nil
}

// str returns the value of key as text ("" when missing or not a scalar).
func (a attrs) str(key string) string {
	switch v := a[key].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// num returns the value of key as an integer (a number or numeric text),
// or def when it is missing or not one.
func (a attrs) num(key string, def int64) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(a.str(key)), 10, 64)
	if err != nil {
		return def
	}
	return n
}

// sub returns the object under key, or nil.
func (a attrs) sub(key string) attrs {
	m, _ := a[key].(map[string]any)
	return m
}

// items returns edit's "items": an array of texts, or one text.
func (a attrs) items() []string {
	switch v := a["items"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, it := range v {
			if s, ok := it.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// logged is a copy of the attributes for an answer's log, passwords
// replaced by "*".
func (a attrs) logged() map[string]any {
	out := maps.Clone(a)
	for k := range out {
		if strings.HasPrefix(k, "password") {
			out[k] = "*"
		}
	}
	return out
}

func success(log []any, code, arg string) entry {
	return entry{Type: "success", Log: log, Msg: []any{code, arg}}
}

func danger(log []any, msg any) []entry {
	return []entry{{Type: "danger", Log: log, Msg: msg}}
}

// addDomainOp is POST /api/v1/add/domain; s.mu is held.
func (s *Server) addDomainOp(a attrs) []entry {
	raw := a.str("domain")
	name := canonicalDomain(raw)
	log := []any{"mailbox", "add", "domain", a.logged()}
	switch {
	case !validDomain(name):
		return danger(log, []any{"domain_invalid", raw})
	case name == s.hostname:
		return danger(log, []any{"domain_cannot_match_hostname"})
	case s.domains[name] != nil:
		return danger(log, []any{"domain_exists", name})
	}
	s.addDomain(name, a)
	return []entry{success(log, "domain_added", name)}
}

// addDomain adds the domain with the limits of a, mailcow UI's defaults
// for those missing; s.mu is held.
func (s *Server) addDomain(name string, a attrs) *domain {
	if d := s.domains[name]; d != nil {
		return d
	}
	d := &domain{
		name:         name,
		active:       activeValue(a.num("active", 1)),
		maxMailboxes: int(a.num("mailboxes", defaultMaxMailboxes)),
		maxAliases:   int(a.num("aliases", defaultMaxAliases)),
		quota:        a.num("quota", defaultQuota),
		maxQuota:     a.num("maxquota", defaultMaxQuota),
		defQuota:     a.num("defquota", defaultDefQuota),
	}
	if s.dkim {
		d.dkimSelector, d.dkimPublicKey = dkimSelector, newDKIMKey()
	}
	s.domains[name] = d
	return d
}

// activeValue keeps 0, 1 and 2, and makes anything else 1.
func activeValue(n int64) int {
	if n == 0 || n == 2 {
		return int(n)
	}
	return 1
}

// addMailboxOp is POST /api/v1/add/mailbox; s.mu is held. The checks run
// in mailcow's order (functions.mailbox.inc.php, add mailbox).
func (s *Server) addMailboxOp(a attrs) []entry {
	local := strings.ToLower(strings.TrimSpace(a.str("local_part")))
	name := canonicalDomain(a.str("domain"))
	address := local + "@" + name
	log := []any{"mailbox", "add", "mailbox", a.logged()}
	// A missing quota is the Default template's, 0; one sent is read as
	// an integer (anything else is 0). 0 is unlimited.
	quota := max(a.num("quota", 0), 0)
	if msg := s.addMailboxRefusal(local, name, address, quota, a); msg != nil {
		return danger(log, msg)
	}
	m := &mailbox{localPart: local, domain: name, name: a.str("name"), password: a.str("password"),
		active: activeValue(a.num("active", 1)), forcePasswordUpdate: a.num("force_pw_update", 0) == 1, quota: quota}
	s.mailboxes[address] = m
	return []entry{success(log, "mailbox_added", address)}
}

// addMailboxRefusal is the first check of add/mailbox that fails, as an
// answer's msg, or nil; s.mu is held.
func (s *Server) addMailboxRefusal(local, name, address string, quota int64, a attrs) []any {
	d := s.domains[name]
	password := a.str("password")
	switch {
	case !validLocalPart(local):
		return []any{"mailbox_invalid", local}
	case quota == 0 && !s.unlimitedQuota:
		return []any{"unlimited_quota_acl"}
	case s.mailboxes[address] != nil:
		return []any{"object_exists", address}
	case s.aliasByAddress(address) != nil:
		return []any{"is_alias", address}
	case s.spamAliases[address]:
		return []any{"is_spam_alias", address}
	case d == nil:
		return []any{"domain_not_found", name}
	case password != a.str("password2"):
		return []any{"password_mismatch"}
	case utf8.RuneCountInString(password) < MinPasswordLen:
		return []any{"password_complexity"}
	case s.mailboxCount(name) >= d.maxMailboxes:
		return []any{"max_mailbox_exceeded", strconv.Itoa(s.mailboxCount(name)), strconv.Itoa(d.maxMailboxes)}
	case quota > d.maxQuota:
		return []any{"mailbox_quota_exceeded", strconv.FormatInt(d.maxQuota, 10)}
	case s.quotaUsed(name)+quota > d.quota:
		return []any{"mailbox_quota_left_exceeded", strconv.FormatInt(d.quota-s.quotaUsed(name), 10)}
	}
	return nil
}

// editMailboxOp is POST /api/v1/edit/mailbox: one entry per item; s.mu is
// held.
func (s *Server) editMailboxOp(a attrs) []entry {
	attr := a.sub("attr")
	log := []any{"mailbox", "edit", "mailbox", map[string]any{"items": a["items"], "attr": attr.logged()}}
	items := a.items()
	if len(items) == 0 {
		return danger(log, "access_denied")
	}
	var entries []entry
	for _, item := range items {
		entries = append(entries, s.editMailbox(strings.ToLower(item), attr, log))
	}
	return entries
}

// editMailbox edits one mailbox; s.mu is held.
func (s *Server) editMailbox(address string, attr attrs, log []any) entry {
	m := s.mailboxes[address]
	switch {
	case !validAddress(address):
		return entry{Type: "danger", Log: log, Msg: []any{"username_invalid", address}}
	case m == nil: // mailcow's answer for a mailbox that does not exist
		return entry{Type: "danger", Log: log, Msg: "access_denied"}
	}
	password := attr.str("password")
	switch {
	case password != "" && password != attr.str("password2"):
		return entry{Type: "danger", Log: log, Msg: []any{"password_mismatch"}}
	case password != "" && utf8.RuneCountInString(password) < MinPasswordLen:
		return entry{Type: "danger", Log: log, Msg: []any{"password_complexity"}}
	}
	if password != "" {
		m.password = password
	}
	if n := attr.num("active", -1); n == 0 || n == 1 || n == 2 {
		m.active = int(n)
	}
	if n := attr.num("force_pw_update", -1); n == 0 || n == 1 {
		m.forcePasswordUpdate = n == 1
	}
	return success(log, "mailbox_modified", address)
}

func (s *Server) mailboxCount(name string) int {
	n := 0
	for _, m := range s.mailboxes {
		if m.domain == name {
			n++
		}
	}
	return n
}

func (s *Server) quotaUsed(name string) int64 {
	var q int64
	for _, m := range s.mailboxes {
		if m.domain == name {
			q += m.quota
		}
	}
	return q
}

// domainView is GET /api/v1/get/domain/{name|all}; s.mu is held.
func (s *Server) domainView(arg string) any {
	if arg != "all" {
		if d := s.domains[canonicalDomain(arg)]; d != nil {
			return s.domainObject(d)
		}
		return struct{}{}
	}
	var list []map[string]any
	for _, name := range slices.Sorted(maps.Keys(s.domains)) {
		list = append(list, s.domainObject(s.domains[name]))
	}
	return listOrEmpty(list)
}

func (s *Server) domainObject(d *domain) map[string]any {
	return map[string]any{
		"domain_name":                d.name,
		"active":                     d.active,
		"active_int":                 d.active,
		"mboxes_in_domain":           s.mailboxCount(d.name),
		"max_num_mboxes_for_domain":  d.maxMailboxes,
		"max_num_aliases_for_domain": d.maxAliases,
		"max_quota_for_domain":       d.quota * mib,
		"max_quota_for_mbox":         d.maxQuota * mib,
		"def_quota_for_mbox":         d.defQuota * mib,
		"quota_used_in_domain":       s.quotaUsed(d.name) * mib,
		"bytes_total":                0,
		"msgs_total":                 0,
	}
}

// mailboxView is GET /api/v1/get/mailbox/{address|all|all/domain}; s.mu
// is held.
func (s *Server) mailboxView(arg string) any {
	if arg != "all" && !strings.HasPrefix(arg, "all/") {
		if m := s.mailboxes[strings.ToLower(arg)]; m != nil {
			return mailboxObject(m)
		}
		return struct{}{}
	}
	only := canonicalDomain(strings.TrimPrefix(strings.TrimPrefix(arg, "all"), "/"))
	var list []map[string]any
	for _, m := range s.mailboxes {
		if only == "" || m.domain == only {
			list = append(list, mailboxObject(m))
		}
	}
	slices.SortFunc(list, func(a, b map[string]any) int {
		return cmp.Compare(a["username"].(string), b["username"].(string))
	})
	return listOrEmpty(list)
}

func mailboxObject(m *mailbox) map[string]any {
	return map[string]any{
		"username":   m.address(),
		"local_part": m.localPart,
		"domain":     m.domain,
		"name":       m.name,
		"active":     m.active,
		"active_int": m.active,
		"quota":      m.quota * mib,
		"quota_used": 0,
		"messages":   0,
		"attributes": map[string]string{
			"force_pw_update": boolText(m.forcePasswordUpdate),
			"tls_enforce_in":  "0",
			"tls_enforce_out": "0",
			"sogo_access":     "1",
			"imap_access":     "1",
			"pop3_access":     "1",
			"smtp_access":     "1",
		},
	}
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// listOrEmpty is mailcow's quirk: an empty list is {}.
func listOrEmpty(list []map[string]any) any {
	if len(list) == 0 {
		return struct{}{}
	}
	return list
}

// dkimView is GET /api/v1/get/dkim/{domain}; s.mu is held.
func (s *Server) dkimView(arg string) any {
	d := s.domains[canonicalDomain(arg)]
	if d == nil || d.dkimPublicKey == "" {
		return struct{}{}
	}
	return map[string]string{
		"pubkey":        d.dkimPublicKey,
		"length":        "2048",
		"dkim_txt":      "v=DKIM1;k=rsa;t=s;s=email;p=" + d.dkimPublicKey,
		"dkim_selector": d.dkimSelector,
		"privkey":       "",
	}
}
