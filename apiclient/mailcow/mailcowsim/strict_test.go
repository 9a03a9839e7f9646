package mailcowsim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// add/mailbox without a quota takes the Default template's quota, 0
// (unlimited), not the domain's default; a quota sent is kept; one past
// what the domain has left is mailbox_quota_left_exceeded.
func TestAddMailboxQuota(t *testing.T) {
	f := newFixture(t)
	f.mustWrite(t, "add/domain", map[string]any{"domain": "q.example", "mailboxes": 10, "quota": 3000, "maxquota": 2000, "defquota": 1000}, "domain_added")
	add := func(local string, quota any) []string {
		body := map[string]any{"local_part": local, "domain": "q.example", "password": "Secret-1", "password2": "Secret-1"}
		if quota != nil {
			body["quota"] = quota
		}
		return f.write(t, "add/mailbox", body)
	}
	if got := add("none", nil); !cmp.Equal(got, []string{"success:mailbox_added"}) {
		t.Fatalf("add without a quota = %v", got)
	}
	if q, ok := f.sim.QuotaMiB("none@q.example"); !ok || q != 0 {
		t.Errorf("a mailbox added without a quota has %d MiB, want 0 (unlimited, the Default template's)", q)
	}
	if got := add("given", "1500"); !cmp.Equal(got, []string{"success:mailbox_added"}) {
		t.Fatalf("add with quota 1500 = %v", got)
	}
	if q, _ := f.sim.QuotaMiB("given@q.example"); q != 1500 {
		t.Errorf("quota %d MiB, want 1500", q)
	}
	if got := add("more", 1600); !cmp.Equal(got, []string{"danger:mailbox_quota_left_exceeded"}) {
		t.Errorf("a quota past what the domain has left = %v, want mailbox_quota_left_exceeded", got)
	}
	if got := add("big", 2001); !cmp.Equal(got, []string{"danger:mailbox_quota_exceeded"}) {
		t.Errorf("a quota past the mailbox maximum = %v, want mailbox_quota_exceeded", got)
	}
}

// A key without the unlimited-quota permission may not add a mailbox of
// quota 0, sent or by the template.
func TestAddMailboxUnlimitedQuotaACL(t *testing.T) {
	f := newFixture(t, WithoutUnlimitedQuota())
	for _, quota := range []any{nil, 0} {
		body := map[string]any{"local_part": "u", "domain": "example.com", "password": "Secret-1", "password2": "Secret-1"}
		if quota != nil {
			body["quota"] = quota
		}
		if got := f.write(t, "add/mailbox", body); !cmp.Equal(got, []string{"danger:unlimited_quota_acl"}) {
			t.Errorf("quota %v without the permission = %v, want unlimited_quota_acl", quota, got)
		}
	}
}

// An address that is an alias or a temporary (spam) alias is refused as a
// mailbox (is_alias, is_spam_alias) and a spam alias as an alias too.
func TestAddOverAliases(t *testing.T) {
	f := newFixture(t)
	f.mustWrite(t, "add/alias", map[string]any{"address": "sales@example.com", "goto": "taken@example.com", "active": 1}, "alias_added")
	f.sim.AddSpamAlias("spam1@example.com")
	for local, want := range map[string]string{"sales": "danger:is_alias", "spam1": "danger:is_spam_alias"} {
		got := f.write(t, "add/mailbox", map[string]any{"local_part": local, "domain": "example.com", "quota": 10, "password": "Secret-1", "password2": "Secret-1"})
		if !cmp.Equal(got, []string{want}) {
			t.Errorf("add/mailbox %s = %v, want %s", local, got, want)
		}
	}
	got := f.write(t, "add/alias", map[string]any{"address": "spam1@example.com", "goto": "taken@example.com", "active": 1})
	if !cmp.Equal(got, []string{"danger:is_spam_alias"}) {
		t.Errorf("add/alias of a spam alias = %v, want is_spam_alias", got)
	}
}

// add/alias reads active, sender_allowed and sogo_visible as integers: a
// missing one is 0; get/alias shows them.
func TestAddAliasFlags(t *testing.T) {
	f := newFixture(t)
	f.mustWrite(t, "add/alias", map[string]any{"address": "bare@example.com", "goto": "taken@example.com", "active": 1}, "alias_added")
	f.mustWrite(t, "add/alias", map[string]any{"address": "full@example.com", "goto": "taken@example.com", "active": 1, "sender_allowed": 1, "sogo_visible": "1"}, "alias_added")
	if got, _ := f.sim.Alias("bare@example.com"); got != (AliasInfo{Goto: "taken@example.com", Active: 1}) {
		t.Errorf("an alias added with address, goto and active alone = %+v, want sender_allowed and sogo_visible 0", got)
	}
	if got, _ := f.sim.Alias("full@example.com"); got != (AliasInfo{Goto: "taken@example.com", Active: 1, SenderAllowed: 1, SOGoVisible: 1}) {
		t.Errorf("an alias added with both flags = %+v", got)
	}
	list, _ := f.read(t, "alias/all/example.com").([]any)
	if len(list) != 2 {
		t.Fatalf("get/alias = %v", list)
	}
	first := list[0].(map[string]any)
	if first["address"] != "bare@example.com" || first["sender_allowed"] != float64(0) || first["sogo_visible"] != float64(0) {
		t.Errorf("get/alias shows %v", first)
	}
}

// edit/mailbox refuses an item that is not an address as username_invalid.
func TestEditMailboxUsernameInvalid(t *testing.T) {
	f := newFixture(t)
	got := f.write(t, "edit/mailbox", map[string]any{"items": []string{"not an address"}, "attr": map[string]any{"active": 2}})
	if !cmp.Equal(got, []string{"danger:username_invalid"}) {
		t.Errorf("edit/mailbox of a non-address = %v, want username_invalid", got)
	}
}
