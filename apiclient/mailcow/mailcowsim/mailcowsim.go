// Package mailcowsim is a sandbox of the mailcow API (mailcow-dockerized's
// /api/v1): an in-memory [http.Handler] that answers as the public record
// of mailcow says, quirks included, so that mailbot's tests, `mailbot sim
// --provider mailcow` and the shell's embedded sandbox work with no mailcow
// server anywhere. It does not import mailbot's adapter: it is tested
// against the record, not against the client.
//
// Sources: the spec data/web/api/openapi.yaml and the handler
// data/web/json_api.php of mailcow-dockerized (the handler wins where they
// differ), sessions.inc.php for authentication, functions.*.inc.php for the
// answers' codes, and the issues named below.
//
// # The API
//
// Every /api/v1 request carries the header X-API-Key. A missing or unknown
// key answers HTTP 401 {"type":"error","msg":"authentication failed"} and
// counts as an authentication failure of the caller's address (fail2ban,
// below); a read-only key ([Server.NewReadOnlyKey]) answers writes HTTP 403
// {"type":"error","msg":"API read/write access denied"} [code:
// sessions.inc.php, json_api.php].
//
// Writes are POST with a JSON body and answer HTTP 200 with an array of
// entries {"type":"success"|"danger"|"error"|"warning","log":[...],"msg":
// code or [code, arg, ...]}, one per object touched; "warning" is a partial
// success [code: json_api.php, functions.*.inc.php]:
//
//	POST /api/v1/add/domain    {"domain","active","mailboxes","aliases","quota","maxquota","defquota"}
//	    domain_added; domain_invalid, domain_exists, domain_cannot_match_hostname
//	POST /api/v1/add/mailbox   {"local_part","domain","name","password","password2","quota","active","force_pw_update"}
//	    mailbox_added; mailbox_invalid, unlimited_quota_acl, object_exists, is_alias,
//	    is_spam_alias, domain_not_found, password_mismatch, password_complexity,
//	    max_mailbox_exceeded, mailbox_quota_exceeded, mailbox_quota_left_exceeded
//	POST /api/v1/edit/mailbox  {"items":["user@domain"],"attr":{"password","password2","force_pw_update","active"}}
//	    mailbox_modified; username_invalid (an item that is not an address), access_denied
//	    (also for a mailbox that does not exist), password_mismatch, password_complexity
//
// add/mailbox's checks run in mailcow's order (above). A quota left out is
// the Default mailbox template's, 0: unlimited, and the domain's default
// quota (defquota) is not applied; a quota sent is read as an integer
// (intval) [code: functions.mailbox.inc.php, add mailbox; init_db.inc.php,
// the Default template]. Quota 0 needs the unlimited_quota permission,
// which an administrator's key has ([WithoutUnlimitedQuota] takes it
// away): else unlimited_quota_acl. A quota above the domain's per-mailbox
// maximum is mailbox_quota_exceeded, one past what the domain's quota has
// left mailbox_quota_left_exceeded (with the MiB left). An address that is
// an alias is is_alias; one that is a temporary (spam) alias
// ([Server.AddSpamAlias]) is is_spam_alias, for add/alias too.
//
// A mailbox has no numeric ID: its address is its key. "active" is 1
// (active), 2 (logins refused, mail still accepted) or 0 (inactive, mail
// refused) [code: mailbox edit template; field: mailcow#3506]. No domain is
// verified: a domain works once its DNS points at the server.
//
// Reads are GET and answer HTTP 200 with an object or an array; nothing to
// show is {}, never [] nor 404 [code: process_get_return; field:
// mailcow#4349]:
//
//	GET /api/v1/get/domain/{domain|all}        settings and counts (domain_name, active,
//	                                          mboxes_in_domain, max_num_mboxes_for_domain, ...)
//	GET /api/v1/get/mailbox/{address|all}      a mailbox: username, local_part, domain, name,
//	                                          active, quota, quota_used, attributes{force_pw_update}
//	GET /api/v1/get/mailbox/all/{domain}       the domain's mailboxes, all at once (no paging)
//	GET /api/v1/get/dkim/{domain}              {dkim_selector, dkim_txt, length, pubkey}
//	GET /api/v1/get/status/version             {"version": ...}
//
// Aliases are keyed by a numeric id; goto is a comma-separated list of
// addresses [code: openapi.yaml, functions.mailbox.inc.php]:
//
//	POST /api/v1/add/alias     {"address","goto","active","sender_allowed","sogo_visible"}
//	    ["alias_added", address, id]; alias_invalid, domain_not_found, goto_invalid,
//	    is_alias_or_mailbox (the address is a mailbox or an alias), is_spam_alias,
//	    max_alias_exceeded
//
// add/alias reads active, sender_allowed (the goto mailboxes may send as
// the alias) and sogo_visible (SOGo offers the alias as a sender) with
// intval: one left out is 0 [code: functions.mailbox.inc.php, add alias;
// json_api.php passes the body through]. get/alias shows all three.
//
//	POST /api/v1/edit/alias    {"items":["<id>"],"attr":{"goto"}}
//	    alias_modified; alias_invalid (an unknown id), goto_invalid
//	POST /api/v1/delete/alias  ["<id>", ...]   (an array, not an object)
//	    one entry per id: alias_removed, or access_denied for an unknown id
//	GET  /api/v1/get/alias/{id|all/domain}     {id, domain, address, goto, active, ...}; {} for nothing
//
// The password policy is mailcow's default: at least 6 characters, nothing
// else [code].
//
// # Assumptions where the record is silent
//
//   - Keys are 5 groups of 6 upper-case hex digits joined by '-'. Every key
//     is an administrator's key: it sees every domain (mailcow has no
//     accounts; [Server.NewAccount] hands out a read-write key of the one
//     server).
//   - fail2ban: [DefaultBanAfter] authentication failures from one address
//     with no authenticated request between them ban the address; a
//     banned address's requests are counted and then dropped (the
//     connection is closed unanswered, as a firewall rule would cut it),
//     until [Server.Unban]. mailcow's real rule is its fail2ban settings'
//     max attempts within a time window.
//   - A local part is 1 to 64 of letters, digits and . _ - + not starting
//     or ending with '.'. add/domain's missing limits take mailcow UI's
//     defaults: 10 mailboxes, 400 aliases, quota 10240 MiB, maxquota
//     10240 MiB, defquota 3072 MiB. [Server.AddMailboxes] gives its
//     mailboxes the domain's default quota, as mailcow's UI does.
//   - A domain name is checked by mailcow's is_valid_domain_name rule:
//     ASCII labels of letters, digits and '-' (not first), at least two
//     labels, the last not all digits; names are kept in lower case, local
//     parts too. add/domain of the server's own host name ([WithHostname],
//     default mail.sandbox.test) is domain_cannot_match_hostname.
//   - Every added domain gets a DKIM key with selector "dkim" (as mailcow's
//     UI adds one by default), unless [WithoutDKIM]; the key is 256 random
//     bytes in base64, not a real RSA key.
//   - A body that is not a JSON object answers HTTP 200 {"type":"error",
//     "msg":"Cannot find attributes in post data"}. Another method than the
//     one a path serves answers HTTP 405, an unknown path under /api/ HTTP
//     404, both {"type":"error","msg":...}.
//   - Numbers in a write's body may be JSON numbers or numeric strings;
//     reads answer active and counts as numbers, attributes' values as
//     strings ("0", "1"), quotas in bytes. Lists are sorted by address.
//   - The log of an answer shows the request's attributes with passwords
//     replaced by "*".
//
// # Controls
//
// Tests call the methods; demos and other processes use HTTP endpoints
// under /sim/ (parameters in the query string or a form body; answers are
// JSON, HTTP 400 for bad input). They need no key: run the sandbox on a
// loopback address only.
//
//	POST /sim/account   [access=ro]                          [Server.NewAccount], [Server.NewReadOnlyKey]
//	POST /sim/fault     kind=429|502|reset|slow [n=1]       [Server.InjectFault]
//	POST /sim/fail      code=... [n=1]                      [Server.FailNextWith]
//	POST /sim/warn      code=... [n=1]                      [Server.WarnNextWith]
//	POST /sim/latency   d=250ms                             [Server.SetLatency]
//	POST /sim/domain    name=example.com                    [Server.AddDomain]
//	POST /sim/mailboxes domain=example.com n=100            [Server.AddMailboxes]
//	POST /sim/unban                                         [Server.Unban]
//	GET  /sim/mailbox   address=user@example.com            [Server.Mailbox] (password included)
//	GET  /sim/requests                                      [Server.Requests], [Server.AuthFailures]
//	POST /sim/alias     address=sales@example.com goto=a@example.com  [Server.AddAlias]
//
// Injected faults form one queue, taken by the next /api requests in order
// as they arrive: "429" answers HTTP 429 with Retry-After: 1 and "502" an
// nginx error page, both without doing anything; a failure code answers
// [{"type":"danger","msg":code}] without doing anything; "reset" performs
// the request and closes the connection unanswered; "slow" performs it and
// answers 10 s after the latency; a warning adds a warning entry to the
// answer of a write that succeeded.
package mailcowsim

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// DefaultBanAfter is how many authentication failures in a row ban an
// address.
const DefaultBanAfter = 10

// DefaultHostname is the sandbox server's own host name.
const DefaultHostname = "mail.sandbox.test"

// Version is what GET /api/v1/get/status/version answers.
const Version = "2025-03-sandbox"

// SeedPassword is the password of the mailboxes [Server.AddMailboxes]
// creates.
const SeedPassword = "Sandbox-1"

// Server is the sandbox. It is safe for concurrent use.
type Server struct {
	mux      *http.ServeMux
	hostname string
	banAfter int
	dkim     bool

	mu          sync.Mutex
	keys        map[string]bool // key → read-write
	domains     map[string]*domain
	mailboxes   map[string]*mailbox // by address
	aliases     map[int64]*alias    // by id
	lastAliasID int64
	spamAliases map[string]bool // temporary (spam) aliases' addresses
	// unlimitedQuota: keys may create a mailbox of quota 0 (unlimited), as
	// an administrator's may.
	unlimitedQuota bool
	faults         simkit.Faults[fault]    // and the latency
	arrivals       simkit.Arrivals[string] // and the OnRequest hook
	failsInRow     map[string]int          // by client address
	banned         map[string]bool
	authFailures   int
}

// domain is a mailcow domain; quotas in MiB.
type domain struct {
	name                        string
	active                      int
	maxMailboxes, maxAliases    int
	quota, maxQuota, defQuota   int64
	dkimSelector, dkimPublicKey string
}

// mailbox is a mailcow mailbox; quota in MiB, 0 unlimited.
type mailbox struct {
	localPart, domain, name, password string
	active                            int
	forcePasswordUpdate               bool
	quota                             int64
}

func (m *mailbox) address() string { return m.localPart + "@" + m.domain }

// Option configures a Server.
type Option func(*Server)

// WithHostname sets the server's own host name (add/domain refuses it).
func WithHostname(name string) Option {
	return func(s *Server) { s.hostname = strings.ToLower(name) }
}

// WithBanAfter bans an address after n authentication failures in a row.
func WithBanAfter(n int) Option {
	return func(s *Server) { s.banAfter = max(n, 1) }
}

// WithoutDKIM adds domains without a DKIM key (get/dkim answers {}).
func WithoutDKIM() Option {
	return func(s *Server) { s.dkim = false }
}

// WithoutUnlimitedQuota makes keys lack the unlimited-quota permission (as
// a domain administrator's may): add/mailbox with quota 0, or none (the
// Default template's 0), answers unlimited_quota_acl.
func WithoutUnlimitedQuota() Option {
	return func(s *Server) { s.unlimitedQuota = false }
}

// New returns an empty sandbox: no key, no domain.
func New(opts ...Option) *Server {
	s := &Server{
		hostname:       DefaultHostname,
		banAfter:       DefaultBanAfter,
		dkim:           true,
		keys:           map[string]bool{},
		domains:        map[string]*domain{},
		mailboxes:      map[string]*mailbox{},
		aliases:        map[int64]*alias{},
		spamAliases:    map[string]bool{},
		unlimitedQuota: true,
		failsInRow:     map[string]int{},
		banned:         map[string]bool{},
	}
	for _, opt := range opts {
		opt(s)
	}
	s.mux = http.NewServeMux()
	s.routes()
	return s
}

// ServeHTTP serves /api/v1/... and the controls under /sim/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// Hostname is the server's own host name, the MX its domains should name.
func (s *Server) Hostname() string { return s.hostname }

// NewAccount returns a new read-write API key.
func (s *Server) NewAccount() string { return s.newKey(true) }

// NewReadOnlyKey returns a new read-only API key: writes answer HTTP 403.
func (s *Server) NewReadOnlyKey() string { return s.newKey(false) }

func (s *Server) newKey(readWrite bool) string {
	groups := make([]string, 5)
	for i := range groups {
		groups[i] = strings.ToUpper(hex.EncodeToString(randomBytes(3)))
	}
	key := strings.Join(groups, "-")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[key] = readWrite
	return key
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand documents it)
	return b
}

// AddDomain adds the domain with mailcow UI's default limits, active,
// unless it exists; a name that is not a domain name is added as it is.
func (s *Server) AddDomain(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addDomain(canonicalDomain(name), attrs{})
}

// AddMailboxes adds the domain unless it exists, raises its mailbox limit
// as needed, and adds n active mailboxes user0001@domain, user0002@domain,
// ... (after the domain's existing mailboxes: numbers go on), with
// [SeedPassword].
func (s *Server) AddMailboxes(domainName string, n int) {
	name := canonicalDomain(domainName)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.domains[name]
	if d == nil {
		d = s.addDomain(name, attrs{})
	}
	count := s.mailboxCount(name)
	d.maxMailboxes = max(d.maxMailboxes, count+n)
	d.quota = max(d.quota, int64(count+n)*d.defQuota)
	for i := 1; n > 0; i++ {
		local := fmt.Sprintf("user%04d", i)
		if s.mailboxes[local+"@"+name] != nil {
			continue
		}
		m := &mailbox{localPart: local, domain: name, name: local, password: SeedPassword, active: 1, quota: d.defQuota}
		s.mailboxes[m.address()] = m
		n--
	}
}

// SetMailboxLimit lets the domain (added unless it exists) hold n
// mailboxes at its default quota each.
func (s *Server) SetMailboxLimit(domainName string, n int) {
	name := canonicalDomain(domainName)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.addDomain(name, attrs{})
	d.maxMailboxes = n
	d.quota = int64(n) * d.defQuota
}

// MailboxInfo is what a test may inspect of a mailbox.
type MailboxInfo struct {
	Password            string
	State               string // "active", "blocked" (active 2) or "inactive" (active 0)
	ForcePasswordChange bool
	UID                 string // always "": mailcow has no mailbox IDs
}

// Mailbox returns the mailbox at address (any letter case), if it exists.
func (s *Server) Mailbox(address string) (MailboxInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.mailboxes[strings.ToLower(address)]
	if m == nil {
		return MailboxInfo{}, false
	}
	return MailboxInfo{Password: m.password, State: stateName(m.active), ForcePasswordChange: m.forcePasswordUpdate}, true
}

// QuotaMiB returns the quota of the mailbox at address in MiB, 0 for
// unlimited, if the mailbox exists.
func (s *Server) QuotaMiB(address string) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.mailboxes[strings.ToLower(address)]
	if m == nil {
		return 0, false
	}
	return m.quota, true
}

func stateName(active int) string {
	switch active {
	case 1:
		return "active"
	case 2:
		return "blocked"
	}
	return "inactive"
}

// newDKIMKey returns a random public key in base64 (see the package doc).
func newDKIMKey() string { return base64.StdEncoding.EncodeToString(randomBytes(256)) }
