package config

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/mailbot/mailbot/apiclient/google"
)

// Google is the variables of Google Workspace (MAILBOT_PROVIDER=google).
type Google struct {
	GoogleCredentials Secret `envconfig:"GOOGLE_CREDENTIALS" scope:"serve,shell" provider:"google" need:"serve" desc:"a Google Cloud service-account key (the JSON key file's content) whose client ID has domain-wide delegation of the Directory user and domain scopes and Site Verification (the shell uses its embedded sandbox without it and GOOGLE_ADMIN)"`
	GoogleAdmin       string `envconfig:"GOOGLE_ADMIN" scope:"serve,shell" provider:"google" need:"serve" desc:"the Workspace admin the service account acts as, admin@example.com"`
	GoogleCustomer    string `envconfig:"GOOGLE_CUSTOMER" scope:"serve,shell" provider:"google" default:"my_customer" desc:"the Workspace customer ID"`
	GoogleOrgUnit     string `envconfig:"GOOGLE_ORG_UNIT" scope:"serve,shell" provider:"google" default:"/" desc:"the organisational unit of new users, /Staff/New (another than / is checked at start, and needs the admin.directory.orgunit.readonly scope)"`
	GoogleBaseURL     string `envconfig:"GOOGLE_BASE_URL" scope:"serve,shell" provider:"google" default:"https://www.googleapis.com" desc:"base of the Directory API (/admin/directory/v1/) and the Site Verification API (/siteVerification/v1/)"`
}

// checks checks Google Workspace's variables on their own.
func (g *Google) checks(c *Config) []check {
	return []check{
		{c.nameOf(&g.GoogleCredentials), checkGoogleKey(g.GoogleCredentials)},
		{c.nameOf(&g.GoogleAdmin), checkEmail(g.GoogleAdmin)},
		{c.nameOf(&g.GoogleCustomer), matchAll(nonEmpty(g.GoogleCustomer), isGoogleCustomer, "a customer ID such as C01abc2de or my_customer")},
		{c.nameOf(&g.GoogleBaseURL), checkURL(g.GoogleBaseURL)},
		{c.nameOf(&g.GoogleOrgUnit), checkOrgUnit(g.GoogleOrgUnit)},
	}
}

// checkOrgUnit checks GOOGLE_ORG_UNIT: a path from the root, /Staff/New.
func checkOrgUnit(p string) error {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") || len(p) > 1 && strings.HasSuffix(p, "/") {
		return errors.New("is not an organisational unit's path such as / or /Staff/New")
	}
	return nil
}

// googleCustomerID is GOOGLE_CUSTOMER: my_customer, or a customer ID.
var googleCustomerID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(my_customer|C[0-9A-Za-z]{4,20})$`) })

// isGoogleCustomer reports whether s is a GOOGLE_CUSTOMER: the default,
// my_customer, is taken without compiling googleCustomerID, which every
// process would otherwise do at start whichever provider it drives.
func isGoogleCustomer(s string) bool {
	return s == "my_customer" || googleCustomerID().MatchString(s)
}

// checkGoogleKey checks GOOGLE_CREDENTIALS: empty, or a service-account
// key file's content.
func checkGoogleKey(key Secret) error {
	if key == "" {
		return nil
	}
	if err := google.CheckKey([]byte(key.Reveal())); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "google: ") + " (the value is not shown)")
	}
	return nil
}

// checkEmail checks an optional e-mail address: empty, or local@domain.
func checkEmail(v string) error {
	local, dom, ok := strings.Cut(v, "@")
	if v == "" || ok && local != "" && strings.Contains(dom, ".") && !strings.ContainsAny(v, " \t/?#") && !strings.Contains(dom, "@") {
		return nil
	}
	return errors.New("is not an e-mail address such as admin@example.com")
}
