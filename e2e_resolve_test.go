package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/bot/slackfake"
)

// e2eShared is a member whose confirmed Slack e-mail is a shared alias.
const e2eShared = "USHARED"

// testE2EResolve is, for each provider from the built binary over the
// fake Slack: no command given an alias changes the mailbox it delivers
// to or shows a password, and each refusal names that mailbox; an
// administrator's reset and block, and Google's reset of the account
// mailbot acts as, are refused with nothing changed; self-service by a
// member whose Slack e-mail is a shared alias is refused. PDD, which has
// neither aliases nor administrators, resets a plain mailbox after one
// resolve request.
func testE2EResolve(t *testing.T, bin string) {
	forEachProvider(t, bin, e2eProviders, func(t *testing.T, pw *providerWorld) {
		alias, alice := "sales@"+e2eOwnDomain, "alice@"+e2eOwnDomain
		pw.fake.SetUser(slackfake.User{ID: e2eShared, Email: alias, EmailConfirmed: true})
		p := pw.serve("mailbot", pw.env(map[string]string{"MAILBOT_SELF_SERVICE": "reset"}))
		for _, login := range []string{"alice", "bob", "carol"} {
			id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+login+"@"+e2eOwnDomain)
			pw.checkAdded(pw.result(id), login+"@"+e2eOwnDomain, e2eAdmin1)
		}
		if pw.provider == e2ePDD {
			if got := pw.answer("reset " + alice); !strings.Contains(got, "New password for "+alice) {
				t.Errorf("pdd: a plain mailbox's reset answered:\n%s", got)
			}
			if n := metric(p, "mailbot_provider_requests_total", `provider="pdd"`, `op="resolve"`, `outcome="ok"`); n != 1 {
				t.Errorf("pdd: %v resolve requests, want 1", n)
			}
			return
		}
		pw.makeAlias(alias, alice)
		before := pw.record(alice)
		for _, text := range []string{"reset " + alias + " for <@UBOB>", "reset " + alias, "block " + alias, "offboard " + alias} {
			got := pw.answer(text)
			if !strings.Contains(got, alias+" is an") || !strings.Contains(got, " of "+alice) || !strings.Contains(got, "Nothing was done") {
				t.Errorf("%s: %s answered:\n%s\nwant a refusal naming %s", pw.provider, text, got, alice)
			}
		}
		id, _ := pw.command(pw.fake.Via(0), e2eShared, "/mailbox", "reset")
		if got := pw.result(id).shown(); !strings.Contains(got, "No self-service reset") || !strings.Contains(got, " of "+alice) {
			t.Errorf("%s: self-service by a shared alias answered:\n%s", pw.provider, got)
		}
		if after := pw.record(alice); after != before {
			t.Errorf("%s: %s changed through its alias: %s, was %s", pw.provider, alice, after, before)
		}
		pw.adminRefused(t)
	})
}

// adminRefused makes carol an administrator where the provider has them
// and checks that her reset and block are refused with nothing changed;
// on Google, the account mailbot acts as too.
func (pw *providerWorld) adminRefused(t *testing.T) {
	carol := "carol@" + e2eOwnDomain
	targets := []string{carol}
	switch {
	case pw.google != nil:
		if err := pw.google.SetAdmin(carol, googlesim.RoleDelegated); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, pw.gAcct.Admin)
	case pw.y360 != nil:
		if err := pw.y360.SetAdmin(carol, true); err != nil {
			t.Fatal(err)
		}
	case pw.m365 != nil:
		if err := pw.m365.AddRole(carol, "User Administrator"); err != nil {
			t.Fatal(err)
		}
	default:
		return // mailcow's mailboxes are never administrators
	}
	for _, target := range targets {
		before := pw.record(target)
		for _, text := range []string{"reset " + target, "block " + target} {
			if got := pw.answer(text); !strings.Contains(got, target+" is ") || !strings.Contains(got, "change it in the provider's console") {
				t.Errorf("%s: %s answered:\n%s\nwant refused as an administrator", pw.provider, text, got)
			}
		}
		if after := pw.record(target); after != before {
			t.Errorf("%s: administrator %s changed: %s, was %s", pw.provider, target, after, before)
		}
	}
}

// makeAlias makes alias deliver to mailbox: through the bot where it
// adds aliases, in the sandbox where it does not (Microsoft 365).
func (pw *providerWorld) makeAlias(alias, mailbox string) {
	pw.t.Helper()
	if pw.m365 != nil {
		if err := pw.m365.AddProxyAddress(mailbox, "smtp:"+alias); err != nil {
			pw.t.Fatal(err)
		}
		return
	}
	if got := pw.answer("alias add " + alias + " " + mailbox); !strings.Contains(got, "added") {
		pw.t.Fatalf("%s: alias add answered:\n%s", pw.provider, got)
	}
}

// record is the sandbox's whole record of address (password, state,
// flags), to compare before and after.
func (pw *providerWorld) record(address string) string {
	var m any
	switch {
	case pw.google != nil:
		m, _ = pw.google.Mailbox(address)
	case pw.y360 != nil:
		m, _ = pw.y360.Mailbox(address)
	case pw.mailcow != nil:
		m, _ = pw.mailcow.Mailbox(address)
	case pw.m365 != nil:
		m, _ = pw.m365.Mailbox(address)
	}
	return fmt.Sprintf("%+v", m)
}
