// Package m365sim is a sandbox of the parts of Microsoft 365 mailbot
// drives: the Microsoft identity platform's token endpoint (client
// credentials) and Microsoft Graph v1.0 (users, licences, domains,
// directory roles). It is an in-memory [http.Handler] that answers as the
// public record says. The tests of the m365 adapter, `mailbot sim
// --provider m365` and the shell's embedded sandbox use it. It knows
// nothing of the adapter.
//
// # Sources
//
// learn.microsoft.com's Graph v1.0 reference (user: create, update,
// assignLicense, revokeSignInSessions, memberOf; subscribedSku; domain:
// create, get, verify, verificationDnsRecords, serviceConfigurationRecords;
// "Advanced query capabilities on Microsoft Entra ID objects"; "Microsoft
// Graph throttling"), the identity platform's client-credentials flow and
// AADSTS error pages, entra-docs' password policy, golang.org/x/oauth2's
// clientcredentials package, and the issue reports that quote Graph's
// answers (microsoft-graph-docs #1508, #10324, #11575, #13735;
// microsoft-graph-docs-contrib #6967, #7618, #8421; keycloak #31294;
// BatchAI #31; azure-sdk-for-python #8314; CIPP #783;
// msgraph-beta-sdk-dotnet #563).
//
// # The API
//
//	POST /{tenant}/oauth2/v2.0/token                    client credentials (form, or HTTP Basic)
//	GET  /v1.0/subscribedSkus                           the tenant's licences and seats
//	POST /v1.0/users                                    create a user (201)
//	GET  /v1.0/users?$filter=&$count=&$select=&$top=    one page; @odata.nextLink while more
//	GET  /v1.0/users/{id | userPrincipalName}           one user ($select)
//	PATCH /v1.0/users/{id | userPrincipalName}          change the fields sent (204)
//	POST /v1.0/users/{id}/assignLicense                 {addLicenses, removeLicenses} (200, the user)
//	POST /v1.0/users/{id}/revokeSignInSessions          (200 {"value":true})
//	GET  /v1.0/users/{id}/memberOf/microsoft.graph.directoryRole  the user's directory roles
//	POST /v1.0/domains                                  {"id"} (201, unverified)
//	GET  /v1.0/domains                                  the tenant's domains
//	GET  /v1.0/domains/{id}                             isVerified, isDefault, isInitial, … ($select)
//	GET  /v1.0/domains/{id}/verificationDnsRecords      the MS=ms… TXT record (and an MX alternative)
//	POST /v1.0/domains/{id}/verify                      verified once the TXT record is in DNS
//	GET  /v1.0/domains/{id}/serviceConfigurationRecords MX, SPF TXT, autodiscover CNAME; Teams', Intune's
//
// The token endpoint takes grant_type=client_credentials, the client ID
// and secret (form fields, or HTTP Basic: x/oauth2 may send either) and
// scope=https://graph.microsoft.com/.default, and answers {token_type:
// "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token}. Its
// refusals are {error, error_description "AADSTSnnn: …", error_codes,
// timestamp, trace_id, correlation_id, error_uri}: a wrong secret 401
// invalid_client AADSTS7000215 (an expired one AADSTS7000222); an unknown client 400 unauthorized_client
// AADSTS700016; an unknown tenant 400 invalid_request AADSTS90002 (a tenant
// that is neither a GUID nor a domain name AADSTS900023); another scope 400
// invalid_scope AADSTS1002012; another grant 400 unsupported_grant_type
// AADSTS70003.
//
// Graph's errors are {"error":{"code","message","innerError":{"date",
// "request-id","client-request-id"},"details":[{"code","message","target"}]}}:
// 400 Request_BadRequest (a taken userPrincipalName or proxy address with
// an ObjectConflict detail, a weak password, a bad or missing property, a
// UPN outside the verified domains, no free seat, no usage location); 400
// Request_UnsupportedQuery; 404 Request_ResourceNotFound; 403
// Authorization_RequestDenied "Insufficient privileges to complete the
// operation."; 401 InvalidAuthenticationToken; 429 TooManyRequests with
// Retry-After. A PATCH answers 204 with no body.
//
// A domain is every property of the domain resource with its
// @odata.context, on create, get and verify. $select on a domain or on its
// record collections returns what it names alone; a name that is no
// property of the type, such as text (a property of the derived
// domainDnsTxtRecord) on a collection of domainDnsRecords, is 400
// BadRequest "Parsing OData Select and Expand failed: Could not find a
// property named '…' on type 'microsoft.graph.…'.".
//
// A user's key is its id or userPrincipalName, never a proxy address (an
// alias answers 404); proxyAddresses hold "SMTP:" (primary) and "smtp:"
// (aliases) entries, read-only in Graph. A GET returns the default
// properties only; accountEnabled, usageLocation, proxyAddresses and
// assignedLicenses come with $select. `$filter=endswith(userPrincipalName,
// '@d')` is an advanced query: without $count=true and the header
// ConsistencyLevel: eventual it answers 400 Request_UnsupportedQuery, as
// $count=true without the header does; `proxyAddresses/any(x:x eq '…')`
// and `userPrincipalName eq '…'` work without them. $top is 1 to 999
// (default 100).
//
// Permissions: users need User.ReadWrite.All; a passwordProfile also
// needs User-PasswordProfile.ReadWrite.All and the User Administrator
// role on the app; domains need Domain.ReadWrite.All; subscribedSkus
// Organization.Read.All. A password reset or a block of a user who holds
// a directory role answers 403 (a higher role is needed).
// /roleManagement and /directoryRoles/{id}/members answer 403 (the app is
// not given Directory.Read.All).
//
// # Assumptions where the record is silent
//
//   - An access token is an opaque "eyJ0eXAi…sandbox…" string good for
//     3599 s; an unknown or expired one answers 401 InvalidAuthenticationToken.
//   - skuIds are GUIDs drawn at random; a new tenant has EXCHANGESTANDARD
//     with 10000 seats and O365_BUSINESS_ESSENTIALS with none left
//     ([Server.SetSeats] changes them). No free seat answers 400
//     "Subscription with SKU <id> does not have any available licenses.";
//     an unknown skuId 400 "License <id> does not correspond to a valid
//     company License." A licence with Exchange gives the user its
//     mailbox (mail, the SMTP: proxy address) at once (Exchange takes
//     minutes).
//   - The verification record is "MS=ms" and 8 digits, one per domain;
//     verify answers 400 Request_BadRequest "Domain verification failed:
//     the TXT record was not found." until [Server.PublishTXT], and 400 on
//     a verified domain.
//   - serviceConfigurationRecords: for Email (supportedService) MX
//     <domain with dashes>.mail.protection.outlook.com preference 0, TXT
//     "v=spf1 include:spf.protection.outlook.com -all", CNAME
//     autodiscover.<domain> → autodiscover.outlook.com; for
//     OfficeCommunicationsOnline CNAMEs sip and lyncdiscover and SRV
//     _sip._tls and _sipfederationtls._tcp; for Intune CNAMEs
//     enterpriseregistration and enterpriseenrollment. DKIM's
//     selector1/selector2 CNAMEs are not among them.
//   - The next page's link carries the same query and an opaque $skiptoken;
//     users are listed by userPrincipalName. proxyAddresses eq matches in
//     any letter case.
//   - The tenant's initial domain is always [InitialDomainName], and its
//     account's Global Administrator lives there.
//   - Faults ([Server.InjectFault]) meet Graph calls, never the token
//     endpoint.
package m365sim

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// Scope is the one scope of an app-only token.
const Scope = "https://graph.microsoft.com/.default"

// The application permissions Graph checks.
const (
	PermUsers    = "User.ReadWrite.All"
	PermPassword = "User-PasswordProfile.ReadWrite.All"
	PermDomains  = "Domain.ReadWrite.All"
	PermOrg      = "Organization.Read.All"
)

// Permissions are the four permissions an account's app is granted.
var Permissions = []string{PermUsers, PermPassword, PermDomains, PermOrg}

// RoleUserAdmin is the directory role a password reset needs.
const RoleUserAdmin = "User Administrator"

// The licences of a new tenant.
const (
	SKUExchange  = "EXCHANGESTANDARD"
	SKUEssential = "O365_BUSINESS_ESSENTIALS"
)

// InitialDomainName is the tenant's initial domain, verified from the
// start, so that a first try can add a mailbox there at once.
const InitialDomainName = "sandbox.onmicrosoft.com"

// tokenTTL is how long an access token lives.
const tokenTTL = 3599 * time.Second

// Server is the sandbox: one tenant. Its methods are safe for concurrent
// use.
type Server struct {
	mux      *http.ServeMux
	faults   simkit.Faults[string]
	arrivals simkit.Arrivals[string]

	mu        sync.Mutex
	tenantID  string
	initial   string          // the tenant's initial domain, <x>.onmicrosoft.com
	apps      map[string]*app // by client ID
	tokens    map[string]*grant
	users     map[string]*user // by lower-case userPrincipalName
	byID      map[string]*user
	domains   map[string]*domain
	skus      []*sku
	published map[string]bool // domains whose TXT record is in DNS
	now       func() time.Time
}

// app is an app registration: its secret, its granted permissions and
// whether it holds the User Administrator role.
type app struct {
	clientID, secret string
	perms            map[string]bool
	userAdmin        bool
	expired          bool // the secret's end date has passed
}

// grant is an access token's app and expiry.
type grant struct {
	app    *app
	expiry time.Time
}

type sku struct {
	id, part          string
	enabled, consumed int
}

type domain struct {
	name                         string
	verified, initial, isDefault bool
	txt                          string // MS=ms…
}

// New returns a tenant with its initial domain (verified) and its
// licences, and no app.
func New() *Server {
	id := guid()
	s := &Server{mux: http.NewServeMux(), tenantID: id, initial: InitialDomainName,
		apps: map[string]*app{}, tokens: map[string]*grant{}, users: map[string]*user{}, byID: map[string]*user{},
		domains: map[string]*domain{}, published: map[string]bool{}, now: time.Now}
	s.domains[s.initial] = &domain{name: s.initial, verified: true, initial: true, isDefault: true}
	s.skus = []*sku{{id: guid(), part: SKUExchange, enabled: 10000}, {id: guid(), part: SKUEssential, enabled: 5, consumed: 5}}
	s.routes()
	return s
}

// Account is an app registration granted every permission (admin
// consent given) and the User Administrator role, and the licence to
// give new users.
type Account struct {
	TenantID, ClientID, ClientSecret, License string
	// Admin is a user of the initial domain who holds the Global
	// Administrator role.
	Admin string
}

// NewAccount registers an app with every permission and the User
// Administrator role, and adds a Global Administrator user.
func (s *Server) NewAccount() Account {
	a := &app{clientID: guid(), secret: "sbx8Q~" + hex(16), perms: map[string]bool{}, userAdmin: true}
	for _, p := range Permissions {
		a.perms[p] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps[a.clientID] = a
	admin := "admin-" + hex(3) + "@" + s.initial
	u := s.addUser(admin, "Sandbox Admin", "Sandbox-"+hex(6)+"!")
	u.roles = []string{"Global Administrator"}
	return Account{TenantID: s.tenantID, ClientID: a.clientID, ClientSecret: a.secret, License: SKUExchange, Admin: admin}
}

// TenantID is the tenant's ID.
func (s *Server) TenantID() string { return s.tenantID }

// InitialDomain is the tenant's initial domain, <name>.onmicrosoft.com.
func (s *Server) InitialDomain() string { return s.initial }

// hex is n random bytes in hex.
func hex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails
	return fmt.Sprintf("%x", b)
}

// guid is a random GUID in its usual form.
func guid() string {
	h := hex(16)
	return strings.Join([]string{h[:8], h[8:12], h[12:16], h[16:20], h[20:]}, "-")
}
