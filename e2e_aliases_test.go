package main

import (
	"slices"
	"strings"
	"testing"
)

// testE2EAliases is, for each provider from the built binary over the
// fake Slack: an alias added, listed and removed where the provider has
// aliases (mailcow, Yandex 360, Google Workspace), then an offboarding that blocks a
// mailbox and hands its aliases to a successor with every step in the
// reply and the ops notice, and a second run that skips every step; PDD
// refuses the alias commands in words and still blocks at offboarding.
func testE2EAliases(t *testing.T, bin string) {
	forEachProvider(t, bin, e2eProviders, func(t *testing.T, pw *providerWorld) {
		p := pw.serve("mailbot", pw.env(nil))
		for _, login := range []string{"alice", "bob"} {
			id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+login+"@"+e2eOwnDomain)
			pw.checkAdded(pw.result(id), login+"@"+e2eOwnDomain, e2eAdmin1)
		}
		if pw.provider == e2ePDD {
			aliasesRefused(t, pw)
			return
		}
		if pw.provider == e2eM365 {
			aliasesReadOnly(t, pw)
			return
		}
		aliasRoundTrip(t, pw)
		offboardWithAliases(t, pw)
		// aliases: the read, then each offboarding's list.
		for op, n := range map[string]float64{"alias_add": 3, "alias_remove": 1, "aliases": 3, "alias_move": 2} {
			if got := metric(p, "mailbot_provider_requests_total", `provider="`+pw.provider+`"`, `op="`+op+`"`, `outcome="ok"`); got != n {
				t.Errorf("%s: mailbot_provider_requests_total{op=%q,outcome=\"ok\"} = %v, want %v", pw.provider, op, got, n)
			}
		}
	})
}

// answer runs /mailbox text as the first admin and returns the reply.
func (pw *providerWorld) answer(text string) string {
	pw.t.Helper()
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", text)
	return pw.result(id).shown()
}

// aliases are the sandbox's aliases of mailbox, as local parts.
func (pw *providerWorld) aliases(mailbox string) []string {
	var out []string
	switch {
	case pw.mailcow != nil:
		out = pw.mailcow.Aliases(mailbox)
	case pw.google != nil:
		out = pw.google.Aliases(mailbox)
	default:
		out = pw.y360.Aliases(mailbox)
	}
	for i, a := range out {
		out[i], _, _ = strings.Cut(a, "@")
	}
	slices.Sort(out)
	return out
}

func aliasRoundTrip(t *testing.T, pw *providerWorld) {
	bob := "bob@" + e2eOwnDomain
	if got := pw.answer("alias add sales@" + e2eOwnDomain + " " + bob + " new team"); !strings.Contains(got, "Alias sales@"+e2eOwnDomain+" added") {
		t.Fatalf("%s: alias add answered:\n%s", pw.provider, got)
	}
	if got := pw.aliases(bob); !slices.Equal(got, []string{"sales"}) {
		t.Errorf("%s: the sandbox's aliases of bob: %q", pw.provider, got)
	}
	pw.waitOpsNotice("added alias sales@" + e2eOwnDomain)
	if got := pw.answer("aliases " + bob); !strings.Contains(got, "sales@"+e2eOwnDomain) {
		t.Errorf("%s: aliases answered:\n%s", pw.provider, got)
	}
	if got := pw.answer("alias remove sales@" + e2eOwnDomain); !strings.Contains(got, "removed") || len(pw.aliases(bob)) != 0 {
		t.Errorf("%s: alias remove answered:\n%s\nand bob keeps %q", pw.provider, got, pw.aliases(bob))
	}
}

func offboardWithAliases(t *testing.T, pw *providerWorld) {
	alice, bob := "alice@"+e2eOwnDomain, "bob@"+e2eOwnDomain
	for _, a := range []string{"info", "jobs"} {
		if got := pw.answer("alias add " + a + "@" + e2eOwnDomain + " " + alice); !strings.Contains(got, "added") {
			t.Fatalf("%s: alias add answered:\n%s", pw.provider, got)
		}
	}
	got := pw.answer("offboard " + alice + " to " + bob + " left the company")
	for _, step := range []string{"Block " + alice + ": blocked", "Move alias info@", "Move alias jobs@", ": moved"} {
		if !strings.Contains(got, step) {
			t.Errorf("%s: the offboarding's reply lacks %q:\n%s", pw.provider, step, got)
		}
	}
	notice := pw.waitOpsNotice("offboarded mailbox " + alice)
	if !strings.Contains(notice, "steps: Block "+alice) || !strings.Contains(notice, "moved") {
		t.Errorf("%s: the ops notice lists not every step: %s", pw.provider, notice)
	}
	if got := pw.aliases(bob); !slices.Equal(got, []string{"info", "jobs"}) || len(pw.aliases(alice)) != 0 {
		t.Errorf("%s: after the offboarding bob has %q, alice %q", pw.provider, got, pw.aliases(alice))
	}
	again := pw.answer("offboard " + alice + " to " + bob)
	if !strings.Contains(again, "Nothing was left to do") || !strings.Contains(again, "skipped") {
		t.Errorf("%s: a second offboarding answered:\n%s", pw.provider, again)
	}
}

func aliasesRefused(t *testing.T, pw *providerWorld) {
	alice, bob := "alice@"+e2eOwnDomain, "bob@"+e2eOwnDomain
	for _, text := range []string{"alias add sales@" + e2eOwnDomain + " " + bob, "aliases " + bob, "offboard " + alice + " to " + bob} {
		_, ack := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", text) // a refusal is the ack itself
		if got := ack.shown(); !strings.Contains(got, "has no aliases") {
			t.Errorf("pdd: %s answered:\n%s", text, got)
		}
	}
	if got := pw.answer("offboard " + alice); !strings.Contains(got, "Block "+alice+": blocked") {
		t.Errorf("pdd: offboard without a successor answered:\n%s", got)
	}
}
