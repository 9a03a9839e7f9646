// Package google drives Google Workspace, the provider of mailbot's
// "google" setting: users of the Workspace customer are its mailboxes,
// through the Admin SDK Directory API, and domains prove their owner
// through the Site Verification API.
//
// The API's facts and the sandbox's assumptions are written down in
// googlesim's package documentation; this client depends on them as little
// as it can:
//
//   - Credentials are a service account's key (the JSON key file) whose
//     client ID has domain-wide delegation of [Scopes], and the admin to act
//     as. golang.org/x/oauth2's JWT flow signs the assertion and fetches an
//     access token from the key file's token_uri; the token is reused until
//     it expires (one token request per hour, not one per call). Neither
//     the private key nor an access token appears in an error.
//   - Users are found by primary e-mail (users.get takes it as userKey);
//     an update (PUT) sends only the fields that change, suspended:false
//     included when unblocking.
//   - Aliases are whole addresses of a user (users.aliases), under the
//     user scope; an alias is also a userKey, so users.get of one reads
//     the user it delivers to. A move is a delete and an insert.
//   - A failure is Google's {"error":{"code","message","errors":[{"reason"}]}}:
//     409 is "exists", 404 "not found", 400 invalid input in the API's
//     words; 403 with a rate or quota reason, 429 and 5xx are temporary (a
//     5xx to an insert is uncertain). Other 403s go by reason:
//     domainCannotUseApis is refused in words; accessNotConfigured
//     (SERVICE_DISABLED) says which API to enable; malformed input is
//     refused as invalid; any other 403, a 401 and a refusal by the token
//     endpoint are refused credentials whose error names the setting to
//     fix ([apiclient.Error].Setting): the admin for 403 forbidden and an
//     unknown admin, the key otherwise.
//   - The directory is eventually consistent (fresh.go): a read of an
//     address the client inserted lately that answers 403 forbidden (or,
//     once the insert succeeded, 404) is temporary and retried. After an
//     insert whose answer was lost, a second insert of the same user with
//     the same password that answers 409 means the first one created it:
//     the result is a success whose warning says so.
package google

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/mailbot/mailbot/apiclient"
)

// DefaultBaseURL reaches both the Directory and the Site Verification API.
const DefaultBaseURL = "https://www.googleapis.com"

// DefaultCustomer names the admin's own customer.
const DefaultCustomer = "my_customer"

// The scopes the service account's client ID must be delegated.
const (
	ScopeUser         = "https://www.googleapis.com/auth/admin.directory.user"
	ScopeDomain       = "https://www.googleapis.com/auth/admin.directory.domain"
	ScopeVerification = "https://www.googleapis.com/auth/siteverification"
)

// Scopes are the three scopes mailbot asks for.
var Scopes = []string{ScopeUser, ScopeDomain, ScopeVerification}

// The settings an error names by default.
const (
	CredentialsSetting = "GOOGLE_CREDENTIALS"
	AdminSetting       = "GOOGLE_ADMIN"
)

// Settings are the client's choices beyond the credentials.
type Settings struct {
	// Customer is the Workspace customer ID; "" is DefaultCustomer.
	Customer string
	// OrgUnit is the organisational unit of new users ("/Staff/New");
	// "" is the root. Another unit is checked by Check, and asks for
	// ScopeOrgUnit too.
	OrgUnit string
	// CredentialsVariable and AdminVariable name the settings that hold
	// the key and the admin, for errors that ask an operator to fix one
	// (default CredentialsSetting and AdminSetting; the key may come from
	// a file, GOOGLE_CREDENTIALS_FILE).
	CredentialsVariable, AdminVariable string
}

// Client is a client of one Workspace customer, acting as one admin. It is
// safe for concurrent use.
type Client struct {
	caller   *apiclient.Caller
	tokens   oauth2.TokenSource
	fresh    *freshSet // the addresses inserted lately (fresh.go)
	customer string
	orgUnit  string
	admin    string
	credVar  string
	adminVar string
}

// New returns a client of the APIs at baseURL (https, or http to a
// loopback host) that acts as admin with the service-account key keyJSON.
// The key is checked here; the token is fetched at the first call.
func New(baseURL string, keyJSON []byte, admin string, s Settings, opts ...apiclient.Option) (*Client, error) {
	c := &Client{customer: s.Customer, admin: strings.TrimSpace(admin), credVar: s.CredentialsVariable, adminVar: s.AdminVariable,
		fresh: newFreshSet()}
	if c.customer == "" {
		c.customer = DefaultCustomer
	}
	if c.orgUnit = strings.TrimSpace(s.OrgUnit); c.orgUnit == "" {
		c.orgUnit = RootOrgUnit
	}
	if c.credVar == "" {
		c.credVar = CredentialsSetting
	}
	if c.adminVar == "" {
		c.adminVar = AdminSetting
	}
	if _, dom, ok := strings.Cut(c.admin, "@"); !ok || dom == "" || strings.ContainsAny(c.admin, " /?#") {
		return nil, errors.New("google: the admin is not an e-mail address")
	}
	if strings.ContainsAny(c.customer, "/?#% ") {
		return nil, errors.New("google: the customer ID holds a character an ID does not have")
	}
	conf, err := parseKey(keyJSON)
	if err != nil {
		return nil, err
	}
	conf.Subject = c.admin
	if c.orgUnit != RootOrgUnit {
		conf.Scopes = append(conf.Scopes, ScopeOrgUnit)
	}
	caller, err := apiclient.NewCaller(apiclient.ProviderGoogle, baseURL, nil, opts...)
	if err != nil {
		return nil, err
	}
	c.caller = caller.WithSecrets(keySecrets(conf.PrivateKey, conf.PrivateKeyID)...)
	c.tokens = tokenSource(conf, caller)
	return c, nil
}

// CheckKey checks a service-account key file as New does: JSON of type
// service_account with a client_email, an RSA private_key and a token_uri
// that is https (or http to a loopback host). Its error never holds the
// key.
func CheckKey(keyJSON []byte) error {
	_, err := parseKey(keyJSON)
	return err
}

// serviceAccountKey is what the JWT flow reads of a service-account key
// file, as golang.org/x/oauth2/google's JWTConfigFromJSON reads it. That
// package is not imported for this one function: it brings the external
// account and impersonation flows, whose package initialisers run (and
// keep their pages resident) in every mailbot process.
type serviceAccountKey struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

// googleTokenURL is the token endpoint of a key file without token_uri
// (golang.org/x/oauth2/google.JWTTokenURL).
const googleTokenURL = "https://oauth2.googleapis.com/token"

// parseKey reads a key file into the JWT flow's configuration.
func parseKey(keyJSON []byte) (*jwt.Config, error) {
	var k serviceAccountKey
	err := json.Unmarshal(keyJSON, &k)
	conf := &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID,
		Scopes: slices.Clone(Scopes), TokenURL: cmp.Or(k.TokenURI, googleTokenURL)}
	if err != nil || k.Type != "service_account" || conf.Email == "" || !validKey(conf.PrivateKey) {
		return nil, errors.New("google: not a service-account key file (JSON with type service_account, client_email and an RSA private_key)")
	}
	if _, err := apiclient.CheckURL(conf.TokenURL); err != nil {
		return nil, fmt.Errorf("google: the key file's token_uri: %w", err)
	}
	return conf, nil
}

// tokenSource is conf's token source (an oauth2.ReuseTokenSource: a token
// is fetched once and reused until it expires), whose requests go through
// the caller's HTTP client, each bounded by the caller's timeout.
func tokenSource(conf *jwt.Config, caller *apiclient.Caller) oauth2.TokenSource {
	hc := *caller.HTTPClient()
	hc.Timeout = caller.Timeout()
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &hc)
	return oauth2.ReuseTokenSource(nil, conf.TokenSource(ctx))
}

// validKey reports whether pemKey is an RSA private key in PEM (PKCS #8
// or PKCS #1), as the token source will need.
func validKey(pemKey []byte) bool {
	b, _ := pem.Decode(pemKey)
	if b == nil {
		return false
	}
	if _, err := x509.ParsePKCS1PrivateKey(b.Bytes); err == nil {
		return true
	}
	_, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	return err == nil
}

// keySecrets are the texts of the key no error may show: the PEM, each of
// its base64 lines, and the key's ID.
func keySecrets(pemKey []byte, keyID string) []string {
	s := []string{string(pemKey), keyID}
	for _, line := range strings.Split(string(pemKey), "\n") {
		if line = strings.TrimSpace(line); len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			s = append(s, line)
		}
	}
	return s
}

// Name is apiclient.ProviderGoogle.
func (c *Client) Name() string { return apiclient.ProviderGoogle }

// Capabilities: a password change can be required
// (changePasswordAtNextLogin); a suspended user receives no new mail;
// users have numeric IDs; the user list is paged; domains are verified;
// users have aliases, each a whole address ([Client.AddAlias]).
func (c *Client) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: Title, ForcePasswordChange: true, KeepsMailWhenBlocked: false,
		NoMailWhenBlocked: true, UIDs: true, Paged: true, VerifiesOwnership: true, Aliases: true}
}

// Admin is the admin the client acts as.
func (c *Client) Admin() string { return c.admin }

// Check is the read call at start: a token for the admin, then the
// customer's domains (domains.list). A key the token endpoint refuses,
// delegation not granted, or an admin without the privilege is an error
// of apiclient.ClassCredentials naming the setting to fix.
func (c *Client) Check(ctx context.Context) error {
	var out struct {
		Domains []domainJSON `json:"domains"`
	}
	if err := c.call(ctx, request{Op: apiclient.OpCheck, Method: http.MethodGet, Path: c.domainsPath(), Out: &out}); err != nil {
		return err
	}
	return c.checkOrgUnit(ctx)
}

// domainsPath is the path of the customer's domains.
func (c *Client) domainsPath() string {
	return "admin/directory/v1/customer/" + c.customer + "/domains"
}

// Title names the provider in replies, notices and the shell's banner.
const Title = "Google Workspace"
