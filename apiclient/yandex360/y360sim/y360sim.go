// Package y360sim is a sandbox of the Yandex 360 for Business directory
// API: an in-memory [http.Handler] that answers as the provider's public
// record says (docs/providers.md; the UserService and
// DomainService reference pages, the clients y360c in Go, Yandex.API360 in
// C# and acme.sh's dns_yandex360.sh). The tests of the yandex360 adapter,
// `mailbot sim --provider yandex360` and the shell's embedded sandbox use it.
// It knows nothing of the adapter.
//
// # The API
//
// Every call carries `Authorization: OAuth <token>` [doc, code]; JSON in
// and out. Paths:
//
//	GET   /directory/v1/org                                  the token's organisations [code: acme.sh, y360c]
//	POST  /directory/v1/org/{orgId}/users                    create a user (a mailbox) [doc: UserService_Create]
//	GET   /directory/v1/org/{orgId}/users?page=P&perPage=N   one page of users [code: y360c model.UserList]
//	GET   /directory/v1/org/{orgId}/users/{userId}           one user [doc: UserService_Get]
//	PATCH /directory/v1/org/{orgId}/users/{userId}           change the fields sent [doc: UserService_Update]
//	POST  /directory/v1/org/{orgId}/domains                  add a domain [doc: DomainService_Create]
//	GET   /directory/v1/org/{orgId}/domains?page=P&perPage=N one page of domains [doc: the list exists]
//	GET   /directory/v1/org/{orgId}/domains/{domain}/status  verification state [doc: DomainService_Status]
//	POST  /directory/v1/org/{orgId}/users/{userId}/aliases   {"alias": local part}: the user, aliases[] [doc: UserService_CreateAlias]
//	DELETE /directory/v1/org/{orgId}/users/{userId}/aliases/{alias}  {"alias", "removed": true} [code: y360c]
//
// The organisation list is {"organizations":[{"id":N,"name":…}],
// "nextPageToken":""}. A user is {id, nickname, departmentId, email, name:
// {first, last, middle}, aliases, isEnabled, isAdmin, isRobot, isDismissed,
// createdAt, updatedAt} with id a string holding a 64-bit number [doc,
// code]; isAdmin is true for the organisation's administrators [doc:
// UserService_Get], which [Server.SetAdmin] (POST /sim/admin) makes. A user list is {page, pages, perPage, total, users} [code]. A new
// domain is {name, verified, mx, delegated, master, status:{status}} [doc];
// a status is {"status":…, "methods":[{"method":…, "code":…}]} [doc]. A
// failure is a non-2xx status with {"code":N, "message":…, "details":[]},
// code a gRPC code [doc, code]: 400 INVALID_ARGUMENT (3), 401
// UNAUTHENTICATED (16, "Unauthenticated"), 403 PERMISSION_DENIED (7), 404
// NOT_FOUND (5), 409 ALREADY_EXISTS (6), 429 RESOURCE_EXHAUSTED (8).
//
// # Assumptions where the record is silent
//
//   - Each token sees the organisations [Server.NewAccount],
//     [Server.NewOrganization] and [Server.Grant] gave it. A missing header,
//     another scheme than OAuth or an unknown token answers 401; an
//     organisation the token does not see answers 403; one that does not
//     exist (or an orgId that is not a number) 404.
//   - Each token has permissions (OAuth scopes), and each call needs one
//     [doc: the OrganizationsService, UserService and DomainService pages
//     name them]: GET /directory/v1/org directory:read_organization (even
//     for a client that knows its organisation's ID); reading users
//     directory:read_users; creating or changing users and their aliases
//     directory:write_users; reading domains and their status
//     directory:read_domains; adding a domain directory:write_domains. A
//     write permission includes its read permission ("view and change"
//     [doc]). A call the token's permissions do not allow answers 403
//     PERMISSION_DENIED, checked before the organisation, with a message
//     that names no permission [assumed], as for an organisation the token
//     does not see. [Server.NewAccount] has them all;
//     [Server.NewAccountWith] (and /sim/account?permissions=) those given. The organisation list is
//     never paged (nextPageToken is always "").
//   - Organisations are numbered from 1000001. A sandbox starts with one
//     organisation, "Sandbox", whose default (master) domain is example.org
//     ([WithDefaultDomain]), verified.
//   - A user's email is nickname@<the organisation's default domain>, and the
//     nickname receives mail at every domain of the organisation [assumed in
//     the record too]. So a mailbox user@d exists when d is a domain of an
//     organisation that has the nickname user; [Server.Mailbox] reads it so.
//   - User IDs count up from 2^53+1, beyond what a float64 holds exactly: a
//     client that reads them as numbers loses them. departmentId 1, the root
//     department, is the only department (another answers 404).
//   - A nickname is 1 to 30 Latin letters, digits, '-', '.' and '_', starting
//     with a letter and ending with a letter or digit; it is stored in lower
//     case and unique in the organisation regardless of case (409). name.first
//     and name.last are required (400).
//   - The password rule (none is published; "the 400 message is the rule"):
//     6 to 20 characters, each a Latin letter, a digit or one of
//     !@#$%^&*()_-+:;,. and not the nickname in any letter case; else 400 with
//     the rule in the message.
//   - PATCH takes password, passwordChangeRequired and isEnabled, and changes
//     only those sent; other fields are ignored. One client reports a 400 when
//     passwordChangeRequired is sent in a PATCH [code: Yandex.API360]: with
//     [WithPatchRejectsForceChange] or [Server.SetPatchRejectsForceChange]
//     the sandbox does that, and changes nothing.
//   - Lists are ordered by creation. perPage defaults to 10; its maximum
//     is 1,000 for users [doc: UserService_List] and 100 for domains (none
//     is published); page counts from 1; a page past the last is empty; a
//     page or perPage that is not a positive number, or a perPage above the
//     maximum, answers 400 (what the service does above the maximum is not
//     published). pages is at least 1.
//   - A domain is an ASCII host name (IDNs arrive as punycode), lower case, no
//     trailing dot; it belongs to at most one organisation (409 for any other
//     that adds it). A new domain is unverified: status "need-validation" with
//     three methods, webmaster.dns, webmaster.meta and webmaster.file, all
//     with one code of 16 hex characters. [Server.Verify] (or /sim/verify)
//     verifies it: status "ok", no methods.
//   - The domain list is {"domains":[…], page, pages, perPage, total}, paged
//     as users are.
//   - An alias is a local part valid at every domain of the organisation
//     [assumed in the record too], kept in lower case under the nickname
//     rule (else 400). One that is a nickname or an alias of any user of
//     the organisation answers 409; a DELETE of an alias the user does not
//     have answers 404. An alias given with @domain is refused (400).
//   - Unknown paths under /directory/ answer 404, a wrong method 405, both with
//     the error body. A body is JSON of at most 64 KiB (else 400).
//
// # Controls
//
// Tests call the methods; other processes use HTTP endpoints under /sim/
// (parameters in the query string or a form body; JSON answers, 400 for bad
// input). They need no token: run the sandbox on a loopback address only.
//
//	POST /sim/account   [permissions=a,b]   [Server.NewAccount], [Server.NewAccountWith]: {token, orgId}
//	POST /sim/fault     kind=429|502|reset|slow[&n=1]   [Server.InjectFault]
//	POST /sim/latency   d=250ms                         [Server.SetLatency]
//	GET  /sim/requests                                  [Server.Requests]
//	POST /sim/alias     address=alias@domain to=user@domain  [Server.AddAlias]
//	GET  /sim/mailbox   address=user@example.org        [Server.Mailbox] (the password included)
//	POST /sim/domain    name=example.com                [Server.AddDomain]
//	POST /sim/verify    name=example.com                [Server.Verify]
//	POST /sim/mailboxes domain=example.org&n=25         [Server.AddMailboxes]
//	POST /sim/patch-force reject=true|false             [Server.SetPatchRejectsForceChange]
//
// Injected faults form one queue, taken by the next API requests (paths
// under /directory/) in order of arrival: "429" answers 429 with
// Retry-After: 1 and "502" an HTML page from a proxy, both without doing
// anything; "reset" does the operation and closes the connection
// unanswered; "slow" does the operation and answers after the latency plus
// 10 s (the client gives up first). The latency ([Server.SetLatency]) is
// waited before the operation; a request whose client goes away meanwhile
// is not carried out. [Server.Requests] counts every API request as it
// arrives and [Server.OnRequest] reports each arrival.
package y360sim

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The sandbox's numbering and paging.
const (
	firstOrgID        int64  = 1_000_001
	firstUserID       uint64 = 1<<53 + 1
	defaultPerPage           = 10
	maxUsersPerPage          = 1000 // [doc: UserService_List]
	maxDomainsPerPage        = 100  // [assumed]
	rootDepartment    int64  = 1
)

// Server is the sandbox. It is safe for concurrent use.
type Server struct {
	mux *http.ServeMux

	mu                sync.Mutex
	orgs              []*org              // in order of creation
	tokens            map[string][]*org   // the organisations each token sees
	perms             map[string][]string // each token's permissions
	nextUserID        uint64
	faults            simkit.Faults[string]   // and the latency
	arrivals          simkit.Arrivals[string] // and the OnRequest hook
	rejectForceChange bool
	defaultDomain     string
}

type org struct {
	id      int64
	name    string
	domains []*domain // the first is the default (master) domain
	users   []*user   // in order of creation
}

type domain struct {
	name     string
	verified bool
	code     string // the verification code of every method
}

type user struct {
	id                     string
	nickname               string
	department             int64
	first, last, middle    string
	password               string
	passwordChangeRequired bool
	enabled                bool
	admin                  bool // an administrator of the organisation: isAdmin
	created, updated       time.Time
	aliases                []string // local parts, lower case
}

// Option configures a Server.
type Option func(*Server)

// WithDefaultDomain names the default domain of the first organisation
// (example.org otherwise).
func WithDefaultDomain(name string) Option {
	return func(s *Server) { s.defaultDomain = name }
}

// WithPatchRejectsForceChange makes a PATCH that sends
// passwordChangeRequired answer 400, as one client reports of the real
// service.
func WithPatchRejectsForceChange() Option {
	return func(s *Server) { s.rejectForceChange = true }
}

// New returns a sandbox with one organisation and its verified default
// domain, seen by no token yet ([Server.NewAccount]).
func New(opts ...Option) *Server {
	s := &Server{tokens: map[string][]*org{}, perms: map[string][]string{}, nextUserID: firstUserID, defaultDomain: "example.org"}
	for _, opt := range opts {
		opt(s)
	}
	s.newOrg("Sandbox", s.defaultDomain)
	s.mux = http.NewServeMux()
	s.routes()
	return s
}

// Credentials are what a client needs: an OAuth token and an organisation.
type Credentials struct {
	Token string `json:"token"`
	OrgID int64  `json:"orgId"`
}

// NewAccount returns a new token that sees the first organisation, with
// every permission ([AllPermissions]).
func (s *Server) NewAccount() Credentials {
	creds, _ := s.NewAccountWith(AllPermissions...) // they are known
	return creds
}

// NewAccountWith returns a new token that sees the first organisation and
// has the permissions perms alone (of [AllPermissions] and
// directory:write_organization).
func (s *Server) NewAccountWith(perms ...string) (Credentials, error) {
	if err := checkPermissions(perms); err != nil {
		return Credentials{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newToken(s.orgs[0], perms), nil
}

// NewOrganization adds an organisation whose default domain is
// defaultDomain (verified), and returns a new token that sees it alone.
func (s *Server) NewOrganization(name, defaultDomain string) (Credentials, error) {
	d, ok := canonicalDomain(defaultDomain)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok || s.domainOwner(d) != nil {
		return Credentials{}, fmt.Errorf("y360sim: %q is not a free domain name", defaultDomain)
	}
	return s.newToken(s.newOrg(name, d), AllPermissions), nil
}

// Grant lets token see the organisation orgID too.
func (s *Server) Grant(token string, orgID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.org(orgID)
	if _, ok := s.tokens[token]; !ok || o == nil {
		return fmt.Errorf("y360sim: unknown token or organisation %d", orgID)
	}
	s.tokens[token] = append(s.tokens[token], o)
	return nil
}

// newOrg adds an organisation; s.mu is held (or s is not shared yet).
func (s *Server) newOrg(name, defaultDomain string) *org {
	o := &org{id: firstOrgID + int64(len(s.orgs)), name: name}
	o.domains = []*domain{{name: defaultDomain, verified: true, code: hex16()}}
	s.orgs = append(s.orgs, o)
	return o
}

// newToken returns a new token that sees o and has perms; s.mu is held.
func (s *Server) newToken(o *org, perms []string) Credentials {
	token := "y0_" + randomText(40)
	s.tokens[token] = []*org{o}
	s.perms[token] = slices.Clone(perms)
	return Credentials{Token: token, OrgID: o.id}
}

// org returns the organisation of id, or nil; s.mu is held.
func (s *Server) org(id int64) *org {
	for _, o := range s.orgs {
		if o.id == id {
			return o
		}
	}
	return nil
}

// domainOwner returns the organisation that has the domain name, or nil;
// s.mu is held.
func (s *Server) domainOwner(name string) *org {
	for _, o := range s.orgs {
		if o.domain(name) != nil {
			return o
		}
	}
	return nil
}

func (o *org) domain(name string) *domain {
	for _, d := range o.domains {
		if d.name == name {
			return d
		}
	}
	return nil
}

func (o *org) email(u *user) string { return u.nickname + "@" + o.domains[0].name }
