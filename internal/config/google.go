package config

import (
	"errors"
	"regexp"
	"strings"

	"github.com/mailbot/mailbot/apiclient/google"
)

// googleCustomerID is GOOGLE_CUSTOMER: my_customer, or a customer ID.
var googleCustomerID = regexp.MustCompile(`^(my_customer|C[0-9A-Za-z]{4,20})$`)

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
