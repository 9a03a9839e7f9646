package config

import (
	"strings"
	"testing"
)

// m365Env is a shell's environment that selects Microsoft 365 with every
// credential set.
func m365Env(extra map[string]string) map[string]string {
	env := map[string]string{"MAILBOT_PROVIDER": "m365", "M365_TENANT_ID": "contoso.onmicrosoft.com",
		"M365_CLIENT_ID": "11111111-2222-3333-4444-555555555555", "M365_CLIENT_SECRET": "abc8Q~secret", "M365_LICENSE": "EXCHANGESTANDARD"}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

func TestM365Variables(t *testing.T) {
	providers := testProviders
	c, err := Load(envFrom(m365Env(map[string]string{"M365_USAGE_LOCATION": "de"})), "shell", providers)
	if err != nil {
		t.Fatal(err)
	}
	if c.M365UsageLocation != "DE" || c.M365BaseURL != "https://graph.microsoft.com" || c.CredentialsVar() != "M365_CLIENT_SECRET" {
		t.Errorf("usage location %q, base %q, credentials %q", c.M365UsageLocation, c.M365BaseURL, c.CredentialsVar())
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"short passwords": {map[string]string{"MAILBOT_PASSWORD_LENGTH": "7"}, "MAILBOT_PASSWORD_LENGTH: is 7, but Microsoft 365 (MAILBOT_PROVIDER=m365) requires passwords of at least 8"},
		"tenant":          {map[string]string{"M365_TENANT_ID": "not a tenant"}, "M365_TENANT_ID: is not a tenant ID"},
		"client":          {map[string]string{"M365_CLIENT_ID": "app"}, "M365_CLIENT_ID: is not an application (client) ID"},
		"location":        {map[string]string{"M365_USAGE_LOCATION": "USA"}, "M365_USAGE_LOCATION: \"USA\" is not a two-letter country code"},
		"login URL":       {map[string]string{"M365_LOGIN_URL": "http://login.example"}, "M365_LOGIN_URL"},
		"part set":        {map[string]string{"M365_LICENSE": ""}, "M365_LICENSE: not set, but"},
	} {
		_, err := Load(envFrom(m365Env(tc.env)), "shell", providers)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "abc8Q~secret") {
			t.Errorf("%s: the error shows the secret", name)
		}
	}
}
