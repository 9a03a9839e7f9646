package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
)

// The forms of M365_TENANT_ID and M365_CLIENT_ID, and of a licence.
var (
	guidForm    = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	tenantForm  = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$`)
	licenseForm = regexp.MustCompile(`^[A-Za-z0-9_+-]{1,64}$`)
)

// checkTenant checks M365_TENANT_ID: empty, a GUID or a domain name.
func checkTenant(v string) error {
	if v == "" || guidForm.MatchString(v) || tenantForm.MatchString(v) {
		return nil
	}
	return errors.New("is not a tenant ID (a GUID such as 00000000-0000-0000-0000-000000000000) or a domain such as contoso.onmicrosoft.com")
}

// checkClientID checks M365_CLIENT_ID: empty or a GUID.
func checkClientID(v string) error {
	if v == "" || guidForm.MatchString(v) {
		return nil
	}
	return errors.New("is not an application (client) ID, a GUID such as 00000000-0000-0000-0000-000000000000")
}

// checkLicense checks M365_LICENSE: empty, a SKU part number or a SKU ID.
func checkLicense(v string) error {
	if v == "" || licenseForm.MatchString(v) {
		return nil
	}
	return errors.New("is not a SKU part number (EXCHANGESTANDARD) or SKU ID")
}

// normaliseUsageLocation checks M365_USAGE_LOCATION and writes it in upper
// case.
func (c *Config) normaliseUsageLocation() error {
	if !m365.ValidUsageLocation(c.M365UsageLocation) {
		return fmt.Errorf("%q is not a two-letter country code such as US or DE", c.M365UsageLocation)
	}
	c.M365UsageLocation = strings.ToUpper(c.M365UsageLocation)
	return nil
}

// m365PasswordCheck refuses generated passwords shorter than Microsoft
// 365 takes.
func (c *Config) m365PasswordCheck() []check {
	if c.Provider != apiclient.ProviderM365 || c.PasswordLength <= 0 || c.PasswordLength >= m365.MinPasswordLen {
		return nil
	}
	return []check{{c.nameOf(&c.PasswordLength), fmt.Errorf(
		"is %d, but Microsoft 365 (MAILBOT_PROVIDER=m365) requires passwords of at least %d characters: set %d or more",
		c.PasswordLength, m365.MinPasswordLen, m365.MinPasswordLen)}}
}
