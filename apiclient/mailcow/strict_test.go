package mailcow_test

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
)

// An alias mailbot adds lets its mailbox send as it and shows in SOGo:
// mailcow reads a sender_allowed or sogo_visible left out as 0.
func TestAddAliasMailboxMaySendAsIt(t *testing.T) {
	e := setup(t)
	if _, err := e.c.AddAlias(t.Context(), "sales@example.com", "taken@example.com"); err != nil {
		t.Fatal(err)
	}
	got, ok := e.sim.Alias("sales@example.com")
	if !ok || got.SenderAllowed != 1 || got.SOGoVisible != 1 || got.Active != 1 {
		t.Errorf("the alias = %+v, %v; want active, sender_allowed 1 and sogo_visible 1", got, ok)
	}
}

// A new mailbox gets its domain's default quota, read from the domain:
// mailcow itself would give it the Default template's 0 (unlimited).
func TestAddMailboxGetsTheDomainDefaultQuota(t *testing.T) {
	e := setup(t)
	if _, err := e.c.RegisterDomain(t.Context(), "reg.example"); err != nil {
		t.Fatal(err)
	}
	e.sim.AddDomain("ui.example") // mailcow UI's defaults: defquota 3072 MiB
	for domain, want := range map[string]int64{"reg.example": mailcow.MailboxDefaultQuota, "ui.example": 3072, "example.com": 3072} {
		if _, err := e.c.AddMailbox(t.Context(), domain, "ann", password, false); err != nil {
			t.Fatalf("add at %s: %v", domain, err)
		}
		if got, _ := e.sim.QuotaMiB("ann@" + domain); got != want {
			t.Errorf("ann@%s has quota %d MiB, want the domain's default %d", domain, got, want)
		}
	}
}

// mailcow's codes is_alias, is_spam_alias, mailbox_quota_left_exceeded,
// unlimited_quota_acl and username_invalid reach the user in words, with
// their reason.
func TestMoreCodesInWords(t *testing.T) {
	e := setup(t)
	if _, err := e.c.AddAlias(t.Context(), "sales@example.com", "taken@example.com"); err != nil {
		t.Fatal(err)
	}
	e.sim.AddSpamAlias("tmp1@example.com")
	type refusal struct {
		name   string
		run    func() error
		reason apiclient.Reason
		code   string
	}
	cases := []refusal{
		{"a mailbox at an alias", func() error {
			_, err := e.c.AddMailbox(t.Context(), "example.com", "sales", password, false)
			return err
		},
			apiclient.ReasonExists, "is_alias"},
		{"a mailbox at a spam alias", func() error {
			_, err := e.c.AddMailbox(t.Context(), "example.com", "tmp1", password, false)
			return err
		},
			apiclient.ReasonExists, "is_spam_alias"},
		{"an alias at a spam alias", func() error { _, err := e.c.AddAlias(t.Context(), "tmp1@example.com", "taken@example.com"); return err },
			apiclient.ReasonExists, "is_spam_alias"},
	}
	for _, code := range []struct {
		code   string
		reason apiclient.Reason
	}{{"mailbox_quota_left_exceeded", apiclient.ReasonLimit}, {"unlimited_quota_acl", apiclient.ReasonNotAllowed}, {"username_invalid", apiclient.ReasonInvalid}} {
		cases = append(cases, refusal{code.code, func() error {
			e.atRequest(2, func() { e.sim.FailNextWith(1, code.code) })
			_, err := e.c.AddMailbox(t.Context(), "example.com", "fresh", password, false)
			return err
		}, code.reason, code.code})
	}
	for _, c := range cases {
		err := asError(t, c.run())
		if err.Class != apiclient.ClassRefused || err.Reason != c.reason || err.Code != c.code || err.Message == "" || err.Message == c.code {
			t.Errorf("%s: %+v, want refused, reason %q, code %q and words", c.name, err, c.reason, c.code)
		}
	}
}
