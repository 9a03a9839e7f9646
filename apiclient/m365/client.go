// Package m365 drives Microsoft 365, the provider of mailbot's "m365"
// setting: users of the Microsoft Entra tenant are its mailboxes, given
// an Exchange Online mailbox by a licence, through Microsoft Graph v1.0.
//
// The API's facts and the sandbox's assumptions are written down in
// m365sim's package documentation; this client depends on them as little
// as it can:
//
//   - Credentials are an app registration's client ID and secret in the
//     tenant; golang.org/x/oauth2's client-credentials flow fetches an
//     app-only token for https://graph.microsoft.com/.default from
//     {login URL}/{tenant}/oauth2/v2.0/token and reuses it until it
//     expires (one token request an hour, not one per call). Neither the
//     secret nor a token appears in an error.
//   - Users are found by userPrincipalName (the address); a proxy address
//     (an alias) is no key, and its owner is found with
//     $filter=proxyAddresses/any(…). A new user is created, then given the
//     licence M365_LICENSE names (its skuId read from subscribedSkus); a
//     user whose licence fails is kept, and an add of it again completes
//     it.
//   - A failure is Graph's {"error":{"code","message","details"}}: 400
//     with ObjectConflict is "exists", 404 "not found", another 400
//     invalid input in Graph's words; 429 and 5xx are temporary (a 5xx to
//     POST /users is uncertain); 401, 403 and a refusal by the token
//     endpoint are refused credentials whose error names what to fix
//     ([apiclient.Error].Setting): the secret, the client ID, the tenant,
//     the permission or the role.
package m365

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mailbot/mailbot/apiclient"
)

// Defaults of the hosts and the usage location.
const (
	DefaultBaseURL       = "https://graph.microsoft.com"
	DefaultLoginURL      = "https://login.microsoftonline.com"
	DefaultUsageLocation = "US"
)

// Scope is the one scope of an app-only token for Graph.
const Scope = "https://graph.microsoft.com/.default"

// The variables an error names.
const (
	SecretSetting   = "M365_CLIENT_SECRET"
	ClientIDSetting = "M365_CLIENT_ID"
	TenantSetting   = "M365_TENANT_ID"
	LicenseSetting  = "M365_LICENSE"
)

// The application permissions mailbot needs, each granted by an admin.
const (
	PermUsers    = "User.ReadWrite.All"
	PermPassword = "User-PasswordProfile.ReadWrite.All"
	PermDomains  = "Domain.ReadWrite.All"
	PermOrg      = "Organization.Read.All"
)

// RoleUserAdmin is the directory role the app needs for password resets.
const RoleUserAdmin = "User Administrator"

// Settings are the client's credentials and choices.
type Settings struct {
	TenantID, ClientID, ClientSecret string
	// License is the licence of new users: a skuPartNumber
	// (EXCHANGESTANDARD) or a skuId.
	License string
	// UsageLocation is new users' two-letter country; "" is US.
	UsageLocation string
	// LoginURL is the base of the token endpoint; "" is DefaultLoginURL.
	LoginURL string
	// SecretVariable names the variable that holds the secret, for
	// errors (M365_CLIENT_SECRET_FILE when it came from a file); "" is
	// SecretSetting.
	SecretVariable string
}

// Client is a client of one tenant, as one app. It is safe for
// concurrent use.
type Client struct {
	caller    *apiclient.Caller
	tokens    oauth2.TokenSource
	license   string
	location  string
	secretVar string

	mu    sync.Mutex
	sku   string // the licence's skuId, once read
	seats int    // its free seats at the start-up check
}

// New returns a client of Graph at baseURL (https, or http to a loopback
// host) with the app's credentials in s. The token is fetched at the
// first call.
func New(baseURL string, s Settings, opts ...apiclient.Option) (*Client, error) {
	if err := checkSettings(&s); err != nil {
		return nil, err
	}
	loginURL, err := apiclient.CheckURL(s.LoginURL)
	if err != nil {
		return nil, errors.New("m365: the login URL: " + err.Error())
	}
	caller, err := apiclient.NewCaller(apiclient.ProviderM365, baseURL, nil, opts...)
	if err != nil {
		return nil, err
	}
	c := &Client{caller: caller.WithSecrets(s.ClientSecret), license: strings.TrimSpace(s.License),
		location: strings.ToUpper(s.UsageLocation), secretVar: s.SecretVariable}
	conf := &clientcredentials.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret, Scopes: []string{Scope},
		TokenURL:  loginURL.JoinPath(s.TenantID, "oauth2", "v2.0", "token").String(),
		AuthStyle: oauth2.AuthStyleInParams}
	hc := *caller.HTTPClient()
	hc.Timeout = caller.Timeout()
	c.tokens = conf.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, &hc)) // reused until it expires
	return c, nil
}

// checkSettings fills s's defaults and refuses what cannot be right.
func checkSettings(s *Settings) error {
	if s.LoginURL == "" {
		s.LoginURL = DefaultLoginURL
	}
	if s.UsageLocation == "" {
		s.UsageLocation = DefaultUsageLocation
	}
	if s.SecretVariable == "" {
		s.SecretVariable = SecretSetting
	}
	switch {
	case s.TenantID == "" || strings.ContainsAny(s.TenantID, "/?#% @"):
		return errors.New("m365: the tenant is not a tenant ID or domain")
	case s.ClientID == "" || strings.ContainsAny(s.ClientID, " /?#"):
		return errors.New("m365: the client ID is not an application ID")
	case s.ClientSecret == "":
		return errors.New("m365: no client secret")
	case !ValidUsageLocation(s.UsageLocation):
		return errors.New("m365: the usage location is not a two-letter country code")
	}
	return nil
}

// ValidUsageLocation reports whether v is a two-letter country code
// (ISO 3166-1 alpha-2 in form: two Latin letters).
func ValidUsageLocation(v string) bool {
	return len(v) == 2 && strings.Trim(strings.ToUpper(v), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// Name is apiclient.ProviderM365.
func (c *Client) Name() string { return apiclient.ProviderM365 }

// Capabilities: a password change can be required
// (forceChangePasswordNextSignIn); a blocked user (accountEnabled false)
// keeps its licence and mailbox and still receives mail; users have IDs;
// the user list is paged; domains are verified; aliases (proxy
// addresses) can be read but not changed through Graph.
func (c *Client) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: Title, ForcePasswordChange: true, KeepsMailWhenBlocked: true,
		UIDs: true, Paged: true, VerifiesOwnership: true, Aliases: true, ReadOnlyAliases: true,
		AliasConsole: "the Exchange admin center"}
}

// CheckLogin checks a user name by the rule mailbot keeps for Microsoft
// 365, [apiclient.LocalPartLogin] (Microsoft also takes ' ! # ^ ~, which
// mailbot does not).
func (c *Client) CheckLogin(login string) error { return apiclient.LocalPartLogin(login) }

// userPath is the path of the user with the address upn.
func userPath(upn string) string { return "v1.0/users/" + url.PathEscape(upn) }

// Title names the provider in replies, notices and the shell's banner.
const Title = "Microsoft 365"
