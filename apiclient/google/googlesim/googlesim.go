// Package googlesim is a sandbox of the Google Workspace APIs mailbot
// drives: the OAuth 2.0 token endpoint of service accounts, the Admin SDK
// Directory API (users and domains) and the Site Verification API. It is
// an in-memory [http.Handler] that answers as Google's public record says
// (docs/providers.md; the discovery documents admin:directory_v1 and
// siteVerification:v1, the Directory API's guides and limits page,
// golang.org/x/oauth2's jwt package, and the issue reports cited below).
// The tests of the google adapter, `mailbot sim --provider google` and the
// shell's embedded sandbox use it. It knows nothing of the adapter.
//
// # The API
//
//	POST /token                                       OAuth 2.0 JWT bearer grant [code: x/oauth2/jwt]
//	POST /admin/directory/v1/users                    insert a user [doc: users.insert]
//	GET  /admin/directory/v1/users?domain=D|customer=C&maxResults=N&pageToken=T  one page [doc: users.list]
//	GET  /admin/directory/v1/users/{userKey}          one user, by primary e-mail or id [doc: users.get]
//	PUT  /admin/directory/v1/users/{userKey}          change the fields sent [doc: users.update]
//	POST /admin/directory/v1/users/{userKey}/aliases  add an alias {"alias"} [doc: users.aliases.insert]
//	GET  /admin/directory/v1/users/{userKey}/aliases  the user's aliases [doc: users.aliases.list]
//	DELETE /admin/directory/v1/users/{userKey}/aliases/{alias}  remove one [doc: users.aliases.delete]
//	POST /admin/directory/v1/customer/{customer}/domains               add a domain [doc: domains.insert]
//	GET  /admin/directory/v1/customer/{customer}/domains               the customer's domains [doc: domains.list]
//	GET  /admin/directory/v1/customer/{customer}/domains/{domainName}  one domain [doc: domains.get]
//	POST /siteVerification/v1/token                   a verification token [doc: webResource.getToken]
//	POST /siteVerification/v1/webResource?verificationMethod=DNS_TXT  verify [doc: webResource.insert]
//
// The token endpoint takes grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer
// and assertion=<JWT> (a form) and checks the JWT as Google does: an RS256
// signature by the key of a service account it knows (iss, the key's
// client_email), aud its own token URL, exp not past and at most one hour
// after iat, the scopes space-joined in scope, and sub, the user to act
// as. It answers {access_token, token_type: "Bearer", expires_in: 3599}.
// Delegation not granted for a scope: 401 unauthorized_client; an unknown
// key or a bad signature: 400 invalid_grant "Invalid JWT Signature."; an
// unknown sub: 400 invalid_grant "Invalid email or User ID"
// [field: google-api-php-client#2214, google-auth-library-ruby#210].
//
// Every API call carries "Authorization: Bearer <access token>". Errors are
// {"error":{"code":N,"message":M,"errors":[{"message":M,"domain":"global","reason":R}]}}
// [field: google-api-go-client#556]: 409 duplicate ("Entity already
// exists."), 404 notFound ("Resource Not Found: userKey"), 400 invalid,
// 403 forbidden ("Not Authorized to access this resource/api") for a sub
// that is not an admin, 429 rateLimitExceeded, 403 userRateLimitExceeded
// and quotaExceeded, 503 backendError [doc: Directory API limits].
//
// A user is {kind, id (digits), primaryEmail, name:{givenName, familyName,
// fullName}, isAdmin, isDelegatedAdmin, suspended, suspensionReason ("ADMIN" while
// suspended), changePasswordAtNextLogin, isMailboxSetup, creationTime,
// lastLoginTime, aliases[]}; the password is never returned [doc]. A
// userKey is the primary e-mail, an alias or the id [doc: users.get,
// "userKey: the user's primary email address, alias email address, or
// unique user ID"]: get and update given an alias answer and change its
// user, whose primaryEmail the answer carries. isAdmin marks a super
// admin and isDelegatedAdmin a user with an admin role short of it [doc:
// users resource]; [Server.SetAdmin] (POST /sim/admin) sets either.
//
// An alias is an address that delivers to a user. users.aliases.insert
// answers the Alias {kind, id (the user's), etag, primaryEmail, alias};
// list answers {kind, etag, aliases:[Alias…]}; an address that is already
// a user or an alias answers 409 duplicate [doc: discovery; code: GAM]. A suspended user
// receives no new mail [doc: support.google.com/a/answer/33312]; the
// sandbox records the state only.
//
// # Assumptions where the record is silent
//
//   - A token is an opaque "ya29.sandbox-…" string good for 3599 s; an
//     unknown or expired one answers 401 authError. A token lacking the
//     scope an API needs answers 403 insufficientPermissions.
//   - The key file has the fields of a real one; its token_uri is the
//     sandbox's own /token, which depends on where it is served
//     ([Account.KeyFile]).
//   - A rejected password answers 400 invalid "Invalid Password"; a
//     primary e-mail in a domain the customer does not have, or has not
//     verified, answers 400 invalid; a name longer than 60 characters or
//     empty answers 400 invalid.
//   - An alias in a domain the customer does not have, or has not
//     verified, answers 400 invalid "Invalid Input: …", as a user there
//     does (Google's exact answer, 400 or 404, is not published). An
//     unknown user answers 404 notFound "Resource Not Found: userKey";
//     deleting an alias the user does not have answers 404 notFound
//     "Resource Not Found: alias"; a delete answers 204 with no body.
//     Aliases are listed in the order they were added. The sandbox has
//     no groups: an address is taken by a user or an alias.
//   - users.list of a domain the customer does not have answers 404
//     notFound "Domain not found."; maxResults above 500 answers 400
//     invalid; users are listed by primary e-mail; the page token is
//     opaque, and one that is not the sandbox's answers 400 invalid.
//   - A domain already added answers 409 duplicate "Entity already
//     exists."; a customer other than my_customer or the account's ID
//     answers 404 notFound.
//   - Site Verification: a token is issued per domain and per asking user
//     (the same asker gets the same token again); verify answers 400 "The
//     necessary verification token could not be found on your site."
//     until [Server.PublishTXT] says the domain's TXT record carries that
//     asker's token; a successful verification marks the Directory's
//     domain verified at once.
//   - Faults ([Server.InjectFault]) meet the Directory and Site
//     Verification calls, never the token endpoint.
//   - The directory's consistency lag, another customer's domains and an
//     API not enabled are controls (consistency.go): [Server.SetLag] and
//     [Server.Settle] (403 forbidden or 404 notFound to the next reads of
//     a new user or alias), [Server.AddForeignDomain] (403
//     domainCannotUseApis "Domain cannot use apis." for a userKey or a new
//     address there) and [Server.DisableAPI] (403 accessNotConfigured, with
//     a google.rpc.ErrorInfo detail SERVICE_DISABLED naming the service).
package googlesim

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The scopes each API needs [doc].
const (
	ScopeUser         = "https://www.googleapis.com/auth/admin.directory.user"
	ScopeDomain       = "https://www.googleapis.com/auth/admin.directory.domain"
	ScopeVerification = "https://www.googleapis.com/auth/siteverification"
)

// Scopes are the three scopes, in the order the Admin console lists them.
var Scopes = []string{ScopeUser, ScopeDomain, ScopeVerification}

// TokenPath is the token endpoint's path under the sandbox's base URL.
const TokenPath = "/token"

// CustomerID is the sandbox customer's ID (my_customer names it too).
const CustomerID = "C0sandbox"

// DefaultPrimaryDomain is the domain of the sandbox's admins.
const DefaultPrimaryDomain = "workspace.example"

// tokenTTL is how long an access token lives.
const tokenTTL = 3599 * time.Second

// Server is the sandbox. Its methods are safe for concurrent use.
type Server struct {
	mux      *http.ServeMux
	faults   simkit.Faults[string]
	arrivals simkit.Arrivals[string]

	mu         sync.Mutex
	accounts   map[string]*serviceAccount // by client_email
	users      map[string]*user           // by lower-case primary e-mail
	aliasOwner map[string]*user           // by lower-case alias
	byID       map[string]*user
	domains    map[string]*domain // by name
	tokens     map[string]*grant  // by access token
	siteToken  map[siteKey]string // verification tokens issued
	published  map[string]bool    // domains whose TXT record carries their tokens
	primary    string
	now        func() time.Time

	lagReads    int             // reads a new user or alias is invisible to
	lagStatus   int             // and their answer: 403 or 404
	aliasHidden map[string]int  // by alias: reads it is still invisible to
	foreign     map[string]bool // another customer's domains
	disabled    map[string]bool // services not enabled in the key's project
	orgUnits    map[string]bool // organisational units besides the root (orgunits.go)
}

// serviceAccount is a key the token endpoint knows, and the scopes its
// client ID is delegated.
type serviceAccount struct {
	email     string
	key       *rsa.PublicKey
	delegated map[string]bool
}

// grant is an access token's subject, scopes and expiry.
type grant struct {
	sub    string
	scopes map[string]bool
	expiry time.Time
}

// siteKey is a verification token's domain and the user who asked.
type siteKey struct{ domain, owner string }

type domain struct {
	name     string
	verified bool
	primary  bool
	created  time.Time
}

// Option configures a [Server].
type Option func(*Server)

// WithPrimaryDomain sets the domain of the admins [Server.NewAccount]
// creates (default [DefaultPrimaryDomain]).
func WithPrimaryDomain(name string) Option {
	return func(s *Server) { s.primary = strings.ToLower(name) }
}

// New returns an empty sandbox: a customer with its primary domain,
// verified, and no account.
func New(opts ...Option) *Server {
	s := &Server{mux: http.NewServeMux(), accounts: map[string]*serviceAccount{}, users: map[string]*user{},
		byID: map[string]*user{}, aliasOwner: map[string]*user{}, domains: map[string]*domain{}, tokens: map[string]*grant{},
		siteToken: map[siteKey]string{}, published: map[string]bool{},
		aliasHidden: map[string]int{}, foreign: map[string]bool{}, disabled: map[string]bool{},
		primary: DefaultPrimaryDomain, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.domains[s.primary] = &domain{name: s.primary, verified: true, primary: true, created: s.now().UTC()}
	s.routes()
	return s
}

// Account is a service account with domain-wide delegation of every
// scope, and the admin it acts as.
type Account struct {
	ClientEmail  string
	ClientID     string
	PrivateKeyID string
	Admin        string
	key          *rsa.PrivateKey
}

// PrivateKeyPEM is the account's private key as the key file holds it.
func (a Account) PrivateKeyPEM() string {
	der, err := x509.MarshalPKCS8PrivateKey(a.key)
	if err != nil {
		panic(err) // an RSA key always marshals
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// KeyFile is the account's service-account key file, as the Cloud console
// downloads it, whose token_uri is the token endpoint of the sandbox served
// at baseURL.
func (a Account) KeyFile(baseURL string) []byte {
	f := map[string]string{
		"type": "service_account", "project_id": "mailbot-sandbox", "private_key_id": a.PrivateKeyID,
		"private_key": a.PrivateKeyPEM(), "client_email": a.ClientEmail, "client_id": a.ClientID,
		"auth_uri":                    "https://accounts.google.com/o/oauth2/auth",
		"token_uri":                   strings.TrimSuffix(baseURL, "/") + TokenPath,
		"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // strings always marshal
	}
	return b
}

// NewAccount creates a service account delegated every scope and an admin
// user in the primary domain, and returns them.
func (s *Server) NewAccount() Account {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err) // the system's randomness failed
	}
	id := hex(8)
	a := Account{ClientEmail: "mailbot-" + id + "@mailbot-sandbox.iam.gserviceaccount.com",
		ClientID: digits(21), PrivateKeyID: hex(20), key: key}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[a.ClientEmail] = &serviceAccount{email: a.ClientEmail, key: &key.PublicKey,
		delegated: map[string]bool{ScopeUser: true, ScopeDomain: true, ScopeVerification: true, ScopeOrgUnit: true}}
	a.Admin = "admin-" + id + "@" + s.primary
	s.addUser(a.Admin, "Sandbox", "Admin", "Sandbox-"+hex(8)).admin = true
	return a
}

// hex is n random bytes in hex.
func hex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails
	return fmt.Sprintf("%x", b)
}

// digits is n random decimal digits, the first not 0.
func digits(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = '0' + b[i]%10
	}
	if b[0] == '0' {
		b[0] = '1'
	}
	return string(b)
}
