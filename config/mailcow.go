package config

import (
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/mailbot/mailbot/commands"
)

// Mailcow is the variables of mailcow (MAILBOT_PROVIDER=mailcow).
type Mailcow struct {
	MailcowURL    string `envconfig:"MAILCOW_URL" scope:"serve,shell" provider:"mailcow" need:"serve" desc:"the mailcow server, https://mail.example.com (the shell uses its embedded sandbox without it and MAILCOW_API_KEY)"`
	MailcowAPIKey Secret `envconfig:"MAILCOW_API_KEY" scope:"serve,shell" provider:"mailcow" need:"serve" desc:"a read-write mailcow API key (X-API-Key)"`
	MailcowMX     string `envconfig:"MAILCOW_MX" scope:"serve,shell" provider:"mailcow" desc:"the MX host the DNS checklist expects; empty: the host of MAILCOW_URL (required when that is an IP address)"`
}

// checks checks mailcow's variables on their own (and sets MAILCOW_MX
// from MAILCOW_URL when it is empty).
func (m *Mailcow) checks(c *Config) []check {
	return []check{
		{c.nameOf(&m.MailcowURL), checkOptionalURL(m.MailcowURL)},
		{c.nameOf(&m.MailcowAPIKey), checkBareToken(m.MailcowAPIKey)},
		{c.nameOf(&m.MailcowMX), m.normaliseMailcowMX()},
	}
}

// normaliseMailcowMX checks MAILCOW_MX and, when it is empty, sets it to
// the host of MAILCOW_URL, which must then be a name, not an IP address.
func (m *Mailcow) normaliseMailcowMX() error {
	if m.MailcowMX != "" {
		mx, err := commands.NormalizeDomain(m.MailcowMX)
		if err != nil {
			return err
		}
		m.MailcowMX = mx
		return nil
	}
	u, err := url.Parse(m.MailcowURL)
	if m.MailcowURL == "" || err != nil || u.Hostname() == "" {
		return nil // MAILCOW_URL's own check says what is wrong with it
	}
	if net.ParseIP(u.Hostname()) != nil {
		return errors.New("required when the host of MAILCOW_URL is an IP address: the MX host name the DNS checklist expects")
	}
	m.MailcowMX = strings.ToLower(u.Hostname())
	return nil
}
