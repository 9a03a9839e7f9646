package yandex360_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/providertest"
)

// sandbox adapts y360sim to the suite: its seeding returns errors (a
// failed test here), and its MailboxInfo carries JSON tags.
type sandbox struct {
	*y360sim.Server
	t *testing.T
}

// AddDomain adds name to the first organisation, whose default domain the
// suite's own domain is already: a user's address is at the default domain.
func (s sandbox) AddDomain(name string) {
	if name == providertest.Domain {
		return
	}
	if err := s.Server.AddDomain(name); err != nil {
		s.t.Errorf("y360sim AddDomain: %v", err)
	}
}

func (s sandbox) AddMailboxes(domain string, n int) {
	if err := s.Server.AddMailboxes(domain, n); err != nil {
		s.t.Errorf("y360sim AddMailboxes: %v", err)
	}
}

func (s sandbox) Mailbox(address string) (providertest.MailboxInfo, bool) {
	m, ok := s.Server.Mailbox(address)
	return providertest.MailboxInfo(m), ok
}

// harness serves a fresh y360sim whose first organisation is the client's.
var harness = providertest.Harness{New: func(t *testing.T) providertest.Env {
	sim := y360sim.New(y360sim.WithDefaultDomain(providertest.Domain))
	creds := sim.NewAccount()
	return providertest.Env{
		Sandbox: sandbox{sim, t},
		Secrets: []string{creds.Token},
		Connect: func(base string, valid bool, opts ...apiclient.Option) (commands.Provider, error) {
			token := creds.Token
			if !valid {
				token = y360sim.New().NewAccount().Token // a token of another sandbox: HTTP 401
			}
			return yandex360.New(base, token, yandex360.Settings{OrgID: creds.OrgID}, opts...)
		},
	}
}}

func TestConformance(t *testing.T) {
	t.Parallel()
	providertest.Run(t, harness)
}
