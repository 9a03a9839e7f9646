package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/mailbot/mailbot/apiclient/m365"
)

// M365 is the variables of Microsoft 365 (MAILBOT_PROVIDER=m365).
type M365 struct {
	M365TenantID      string `envconfig:"M365_TENANT_ID" scope:"serve,shell" provider:"m365" need:"serve" desc:"the Microsoft Entra tenant: its ID (a GUID) or a verified domain such as contoso.onmicrosoft.com (the shell uses its embedded sandbox without the M365 credentials)"`
	M365ClientID      string `envconfig:"M365_CLIENT_ID" scope:"serve,shell" provider:"m365" need:"serve" desc:"the app registration's application (client) ID"`
	M365ClientSecret  Secret `envconfig:"M365_CLIENT_SECRET" scope:"serve,shell" provider:"m365" need:"serve" desc:"the app registration's client secret (its Value)"`
	M365License       string `envconfig:"M365_LICENSE" scope:"serve,shell" provider:"m365" need:"serve" desc:"the licence that gives new users a mailbox: a SKU part number (EXCHANGESTANDARD) or SKU ID, checked at start"`
	M365UsageLocation string `envconfig:"M365_USAGE_LOCATION" scope:"serve,shell" provider:"m365" default:"US" desc:"the two-letter country code set on new users (Microsoft requires one before a licence)"`
	M365BaseURL       string `envconfig:"M365_BASE_URL" scope:"serve,shell" provider:"m365" default:"https://graph.microsoft.com" desc:"base of Microsoft Graph (/v1.0/)"`
	M365LoginURL      string `envconfig:"M365_LOGIN_URL" scope:"serve,shell" provider:"m365" default:"https://login.microsoftonline.com" desc:"base of the token endpoint (/{tenant}/oauth2/v2.0/token)"`
}

// checks checks Microsoft 365's variables on their own.
func (m *M365) checks(c *Config) []check {
	return []check{
		{c.nameOf(&m.M365TenantID), checkTenant(m.M365TenantID)},
		{c.nameOf(&m.M365ClientID), checkClientID(m.M365ClientID)},
		{c.nameOf(&m.M365ClientSecret), checkBareToken(m.M365ClientSecret)},
		{c.nameOf(&m.M365License), checkLicense(m.M365License)},
		{c.nameOf(&m.M365UsageLocation), m.normaliseUsageLocation()},
		{c.nameOf(&m.M365BaseURL), checkURL(m.M365BaseURL)},
		{c.nameOf(&m.M365LoginURL), checkURL(m.M365LoginURL)},
	}
}

// The forms of M365_TENANT_ID and M365_CLIENT_ID, and of a licence,
// compiled on first use (a bounded repeat such as {1,64} compiles into as
// many copies: at start-up, before this, the package's initialisation
// allocated 109 KB).
var (
	guidForm = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	})
	tenantForm = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$`)
	})
	licenseForm = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_+-]{1,64}$`) })
)

// checkTenant checks M365_TENANT_ID: empty, a GUID or a domain name.
func checkTenant(v string) error {
	if v == "" || guidForm().MatchString(v) || tenantForm().MatchString(v) {
		return nil
	}
	return errors.New("is not a tenant ID (a GUID such as 00000000-0000-0000-0000-000000000000) or a domain such as contoso.onmicrosoft.com")
}

// checkClientID checks M365_CLIENT_ID: empty or a GUID.
func checkClientID(v string) error {
	if v == "" || guidForm().MatchString(v) {
		return nil
	}
	return errors.New("is not an application (client) ID, a GUID such as 00000000-0000-0000-0000-000000000000")
}

// checkLicense checks M365_LICENSE: empty, a SKU part number or a SKU ID.
func checkLicense(v string) error {
	if v == "" || licenseForm().MatchString(v) {
		return nil
	}
	return errors.New("is not a SKU part number (EXCHANGESTANDARD) or SKU ID")
}

// normaliseUsageLocation checks M365_USAGE_LOCATION and writes it in upper
// case.
func (m *M365) normaliseUsageLocation() error {
	if !m365.ValidUsageLocation(m.M365UsageLocation) {
		return fmt.Errorf("%q is not a two-letter country code such as US or DE", m.M365UsageLocation)
	}
	m.M365UsageLocation = strings.ToUpper(m.M365UsageLocation)
	return nil
}
