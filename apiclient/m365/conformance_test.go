package m365_test

import (
	"context"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// sandbox adapts m365sim to the suite: its MailboxInfo has more fields.
type sandbox struct{ *m365sim.Server }

func (s sandbox) Mailbox(address string) (providertest.MailboxInfo, bool) {
	m, ok := s.Server.Mailbox(address)
	return providertest.MailboxInfo{Password: m.Password, State: m.State, ForcePasswordChange: m.ForcePasswordChange, UID: m.UID}, ok
}

// settings are the client settings of acct, for the sandbox at base.
func settings(acct m365sim.Account, base string) m365.Settings {
	return m365.Settings{TenantID: acct.TenantID, ClientID: acct.ClientID, ClientSecret: acct.ClientSecret,
		License: acct.License, LoginURL: base}
}

// harness serves a fresh m365sim. Connect proves the credentials as
// mailbot does at start (Check): the token and the licence's skuId are
// then known, so that the suite's counts of writes see the operations'
// calls alone. An add is two writes (the user, then its licence) and a
// block two (accountEnabled, then revokeSignInSessions).
var harness = providertest.Harness{New: func(t *testing.T) providertest.Env {
	sim := m365sim.New()
	acct := sim.NewAccount()
	return providertest.Env{
		Sandbox: sandbox{sim},
		Secrets: []string{acct.ClientSecret},
		Writes:  providertest.Writes{Add: 2, Block: 2},
		Connect: func(base string, valid bool, opts ...apiclient.Option) (commands.Provider, error) {
			s := settings(acct, base)
			if !valid {
				s.ClientSecret = "wrong" + acct.ClientSecret // AADSTS7000215
			}
			c, err := m365.New(base, s, opts...)
			if err != nil {
				return nil, err
			}
			if valid {
				if err := c.Check(context.Background()); err != nil {
					t.Errorf("Check: %v", err)
				}
			}
			return c, nil
		},
	}
}}

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, harness)
}
