package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// newM365Sandbox makes the Microsoft 365 sandbox with an app registration
// and returns its variables (M365_LOGIN_URL, the sandbox's own address, is
// set by newProviderWorld). The client secret joins the secrets that must
// never show.
func (pw *providerWorld) newM365Sandbox() map[string]string {
	sim := m365sim.New()
	pw.m365, pw.mAcct = sim, sim.NewAccount()
	pw.rec.keep(pddSecret{value: pw.mAcct.ClientSecret, kind: "client secret", target: "M365_CLIENT_SECRET"})
	pw.sim = e2eSandbox{faulter: sim, ownDomain: func(n string) error { sim.AddDomain(n); return nil },
		stored: func(a string) (string, bool) {
			m, ok := sim.Mailbox(a)
			return m.Password, ok
		}}
	return map[string]string{"M365_TENANT_ID": pw.mAcct.TenantID, "M365_CLIENT_ID": pw.mAcct.ClientID,
		"M365_CLIENT_SECRET": pw.mAcct.ClientSecret, "M365_LICENSE": pw.mAcct.License}
}

// testE2EM365 is Microsoft 365 from the binary over the fake Slack:
// serve warns that the licence has no free seat (and starts); register
// gives the requester alone the MS=ms… TXT record; once DNS
// carries it, status verifies the domain; a mailbox added there is
// licensed and the reply says when it appears; it is listed; a block says
// that mail is still received and ends the sessions; without the User
// Administrator role a reset names it.
func testE2EM365(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2eM365)
	dns := dnstest.NewServer(t, "www.example.com. A 192.0.2.1\n")
	if err := pw.m365.SetSeats(m365sim.SKUExchange, 0); err != nil {
		t.Fatal(err)
	}
	p := pw.serve("mailbot", pw.env(map[string]string{"MAILBOT_DNS_RESOLVER": dns.Addr()}))
	if !testkit.Until(e2eWait, nil, func() bool { return strings.Contains(p.stderr.String(), "has no free seat") }) { // through a pipe
		t.Errorf("serve with no free seat of M365_LICENSE logged no warning:\n%s", p.stderr.String())
	}
	if err := pw.m365.SetSeats(m365sim.SKUExchange, 10); err != nil {
		t.Fatal(err)
	}
	const domain = "proven-domain.com"
	m365Verify(t, pw, dns, domain)
	dns.Add(t, domain+". MX 0 proven-domain-com.mail.protection.outlook.com.\n"+domain+`. TXT "v=spf1 include:spf.protection.outlook.com -all"`+"\n")
	check := pw.say("/maildomain", "check "+domain)
	for _, want := range []string{"proven-domain-com.mail.protection.outlook.com", "autodiscover." + domain, "selector1._domainkey." + domain, "selector2._domainkey." + domain} {
		if !strings.Contains(check, want) {
			t.Errorf("the DNS checklist does not name %s:\n%s", want, check)
		}
	}
	address := "first@" + domain
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
	res := pw.result(id)
	pw.checkAdded(res, address, e2eAdmin1)
	if m, _ := pw.m365.Mailbox(address); !m.Licensed || !strings.Contains(res.shown(), "within a few minutes") {
		t.Errorf("add: licensed %v; answered:\n%s", m.Licensed, res.shown())
	}
	m365Say(t, pw, "/mailbox", "list "+domain, address)
	m365Say(t, pw, "/mailbox", "block "+address, "keeps accepting mail")
	if m, _ := pw.m365.Mailbox(address); m.State != "blocked" || m.Revoked != 1 {
		t.Errorf("after block the sandbox holds %+v, want blocked with the sessions revoked once", m)
	}
	if err := pw.m365.SetPermissions(pw.mAcct.ClientID, false, m365sim.Permissions...); err != nil {
		t.Fatal(err)
	}
	m365Say(t, pw, "/mailbox", "reset "+address, "User Administrator")
}

// m365Verify registers domain and proves it, as m365Verify's caller
// describes.
func m365Verify(t *testing.T, pw *providerWorld, dns *dnstest.Server, domain string) {
	t.Helper()
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/maildomain", "register "+domain)
	res := pw.result(id)
	txt := pw.m365.VerificationRecord(domain)
	pw.rec.keep(pddSecret{value: txt, kind: "verification code", target: domain})
	if txt == "" || !strings.Contains(res.shown(), domain+`. TXT "`+txt+`"`) {
		t.Fatalf("register did not give the requester the TXT record %q to publish:\n%s", txt, res.shown())
	}
	if notice := pw.waitOpsNotice(domain); strings.Contains(notice, txt) {
		t.Errorf("the ops notice shows the verification record: %s", notice)
	}
	m365Say(t, pw, "/maildomain", "status "+domain, "not yet")
	dns.Add(t, domain+`. TXT "`+txt+`"`+"\n")
	pw.m365.PublishTXT(domain)
	m365Say(t, pw, "/maildomain", "status "+domain, "verified now")
	if _, verified := pw.m365.DomainVerified(domain); !verified {
		t.Fatal("status did not verify the domain")
	}
}

// m365Say runs the command as an admin and checks that its result says
// want.
func m365Say(t *testing.T, pw *providerWorld, cmd, text, want string) {
	t.Helper()
	if got := pw.say(cmd, text); !strings.Contains(got, want) {
		t.Errorf("%s %s: want %q in:\n%s", cmd, text, want, got)
	}
}

// say runs the command as an admin and returns what it answered: the
// acknowledgement of a refusal, else the result (after an
// acknowledgement that says it is on its way: "Working on it…").
func (pw *providerWorld) say(cmd, text string) string {
	pw.t.Helper()
	id, ack := pw.command(pw.fake.Via(0), e2eAdmin1, cmd, text)
	if got := ack.shown(); strings.TrimSpace(got) != "" && !strings.Contains(got, "…") {
		return got
	}
	return pw.result(id).shown()
}

// aliasesReadOnly: Microsoft 365's aliases (proxy addresses) are listed,
// while alias add and remove and offboard … to are refused in words
// naming the Exchange admin center, with nothing sent; offboard without
// a successor blocks.
func aliasesReadOnly(t *testing.T, pw *providerWorld) {
	alice, bob := "alice@"+e2eOwnDomain, "bob@"+e2eOwnDomain
	if err := pw.m365.AddProxyAddress(bob, "smtp:sales@"+e2eOwnDomain); err != nil {
		t.Fatal(err)
	}
	m365Say(t, pw, "/mailbox", "aliases "+bob, "sales@"+e2eOwnDomain)
	mark := pw.mark()
	for _, text := range []string{"alias add info@" + e2eOwnDomain + " " + bob, "alias remove sales@" + e2eOwnDomain, "offboard " + alice + " to " + bob} {
		m365Say(t, pw, "/mailbox", text, "the Exchange admin center")
	}
	if sent := pw.since(mark); len(sent) != 0 {
		t.Errorf("m365: the alias refusals sent %q", opsOf(sent))
	}
	m365Say(t, pw, "/mailbox", "offboard "+alice, "Block "+alice+": blocked")
}

// testE2EM365Refused is each refusal of Microsoft 365's settings at start,
// one line naming what to fix: a secret Entra refuses (from a file:
// M365_CLIENT_SECRET_FILE), an unknown tenant, an unknown client, a
// missing permission, a licence the tenant does not have, and a
// MAILBOT_PASSWORD_LENGTH shorter than Microsoft's 8.
func testE2EM365Refused(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2eM365)
	path := t.TempDir() + "/secret"
	const wrong = "wrong8Q~NotTheSandboxSecret"
	pw.extra = append(pw.extra, wrong)
	if err := os.WriteFile(path, []byte(wrong+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := m365sim.New()
	noOrg := pw.m365.NewAccount()
	if err := pw.m365.SetPermissions(noOrg.ClientID, true, m365sim.PermUsers, m365sim.PermDomains, m365sim.PermPassword); err != nil {
		t.Fatal(err)
	}
	pw.rec.keep(pddSecret{value: noOrg.ClientSecret, kind: "client secret", target: "another app"})
	for _, tc := range []struct {
		name  string
		env   map[string]string
		names []string
	}{
		{"wrong secret", map[string]string{"M365_CLIENT_SECRET": "", "M365_CLIENT_SECRET_FILE": path}, []string{"M365_CLIENT_SECRET_FILE", path}},
		{"unknown tenant", map[string]string{"M365_TENANT_ID": other.TenantID()}, []string{"M365_TENANT_ID"}},
		{"unknown client", map[string]string{"M365_CLIENT_ID": "00000000-0000-0000-0000-000000000000"}, []string{"M365_CLIENT_ID"}},
		{"no permission", map[string]string{"M365_CLIENT_ID": noOrg.ClientID, "M365_CLIENT_SECRET": noOrg.ClientSecret}, []string{"M365_CLIENT_ID", "Organization.Read.All"}},
		{"unknown licence", map[string]string{"M365_LICENSE": "SPE_E5"}, []string{"M365_LICENSE", "EXCHANGESTANDARD"}},
		{"short passwords", map[string]string{"MAILBOT_PASSWORD_LENGTH": "7"}, []string{"MAILBOT_PASSWORD_LENGTH", "Microsoft 365", "8"}},
	} {
		p := pw.start(strings.ReplaceAll(tc.name, " ", "-"), pw.env(tc.env), "serve")
		if code := p.wait(e2eWait); code != 1 {
			t.Errorf("%s: exit status %d, want 1", tc.name, code)
		}
		lines := p.reasonLines()
		for _, want := range tc.names {
			if len(lines) != 1 || !strings.Contains(lines[0], want) {
				t.Errorf("%s: reason %q, want one line naming %s", tc.name, lines, want)
			}
		}
	}
	if pw.fake.Socket.Connects() != 0 {
		t.Error("serve connected to Slack with refused Microsoft 365 settings")
	}
}
