package commands_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/commands"
)

// m365World is the Microsoft 365 sandbox over HTTPS with the verified
// domain example.com and the users alice (alias sales@example.com) and
// bob, and a real client of it.
func m365World(t *testing.T) (*m365sim.Server, *m365.Client) {
	t.Helper()
	sim := m365sim.New()
	ts := httptest.NewTLSServer(sim)
	t.Cleanup(ts.Close)
	a := sim.NewAccount()
	c, err := m365.New(ts.URL, m365.Settings{TenantID: a.TenantID, ClientID: a.ClientID, ClientSecret: a.ClientSecret,
		License: a.License, LoginURL: ts.URL}, apiclient.WithHTTPClient(ts.Client()), aliasRetry)
	if err != nil {
		t.Fatal(err)
	}
	sim.AddDomain("example.com")
	for _, login := range []string{"alice", "bob"} {
		if _, err := c.AddMailbox(t.Context(), "example.com", login, "Secret-12", false); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.AddProxyAddress("alice@example.com", "smtp:sales@example.com"); err != nil {
		t.Fatal(err)
	}
	return sim, c
}

// Microsoft Graph reads aliases (proxyAddresses) but cannot change them:
// /mailbox aliases lists them; alias add and remove, and offboard … to,
// are refused in words naming the Exchange admin center before any call.
func TestAliasesOnM365ReadOnly(t *testing.T) {
	sim, api := m365World(t)
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/mailbox aliases alice@example.com")
	if r := e.msgr.lastTo(admin1); r.Error || !strings.Contains(r.PlainText(), "sales@example.com") {
		t.Errorf("aliases of alice:\n%s", r.PlainText())
	}
	before := sim.Requests()
	for _, line := range []string{
		"/mailbox alias add info@example.com alice@example.com",
		"/mailbox alias remove sales@example.com",
		"/mailbox offboard alice@example.com to bob@example.com",
	} {
		d, _ := e.typed(admin1, line)
		r := e.msgr.lastTo(admin1)
		if d.Step != commands.StepReply || !strings.Contains(r.Text, "the Exchange admin center") || !strings.Contains(r.Text, "Nothing was sent") {
			t.Errorf("%s: verdict %v, reply %q", line, d.Step, r.Text)
		}
	}
	if n := sim.Requests() - before; n != 0 {
		t.Errorf("the refusals sent %d requests", n)
	}
	if len(e.audit()) != 0 {
		t.Errorf("refusals were audited: %+v", e.audit())
	}
}
