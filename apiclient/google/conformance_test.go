package google_test

import (
	"context"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// sandbox adapts googlesim to the suite: its MailboxInfo carries JSON
// tags.
type sandbox struct{ *googlesim.Server }

func (s sandbox) Mailbox(address string) (providertest.MailboxInfo, bool) {
	m, ok := s.Server.Mailbox(address)
	return providertest.MailboxInfo{Password: m.Password, State: m.State, ForcePasswordChange: m.ForcePasswordChange, UID: m.UID}, ok
}

// harness serves a fresh googlesim. Connect proves the credentials as
// mailbot does at start (Check): the token is then fetched, so that the
// suite's counts of writes see the API's calls alone (the token endpoint's
// own requests are counted in this package's tests).
var harness = providertest.Harness{New: func(t *testing.T) providertest.Env {
	sim := googlesim.New()
	acct := sim.NewAccount()
	return providertest.Env{
		Sandbox: sandbox{sim},
		Secrets: []string{acct.PrivateKeyPEM(), acct.PrivateKeyID},
		ActsAs:  acct.Admin,
		Connect: func(base string, valid bool, opts ...apiclient.Option) (commands.Provider, error) {
			key := acct.KeyFile(base)
			if !valid {
				key = googlesim.New().NewAccount().KeyFile(base) // a key this sandbox does not know: invalid_grant
			}
			c, err := google.New(base, key, acct.Admin, google.Settings{}, opts...)
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
