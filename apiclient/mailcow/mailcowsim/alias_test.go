package mailcowsim

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The alias calls answer as mailcow's record says: add/alias
// ["alias_added", address, id]; {} for a domain without aliases;
// is_alias_or_mailbox for an address in use; delete/alias takes an array
// of ids and answers one entry per id, access_denied for an unknown one,
// in one array beside the successes; edit/alias re-points by id.
func TestAliases(t *testing.T) {
	f := newFixture(t)
	if got := f.read(t, "alias/all/example.com"); !cmp.Equal(got, map[string]any{}) {
		t.Fatalf("get/alias/all of a domain without aliases = %v, want {}", got)
	}
	_, data := f.do(t, http.MethodPost, "/api/v1/add/alias", f.rw, map[string]any{"address": "sales@example.com", "goto": "taken@example.com", "active": 1})
	if want := `"msg":["alias_added","sales@example.com",1]`; !strings.Contains(string(data), want) {
		t.Fatalf("add/alias = %s, want a msg %s", data, want)
	}
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"address": "sales@example.com", "goto": "taken@example.com"}, "danger:is_alias_or_mailbox"},
		{map[string]any{"address": "taken@example.com", "goto": "taken@example.com"}, "danger:is_alias_or_mailbox"},
		{map[string]any{"address": "x@nowhere.org", "goto": "taken@example.com"}, "danger:domain_not_found"},
		{map[string]any{"address": "x@example.com", "goto": "not an address"}, "danger:goto_invalid"},
		{map[string]any{"address": "bad address@example.com", "goto": "taken@example.com"}, "danger:alias_invalid"},
	} {
		if got := f.write(t, "add/alias", tc.body); !cmp.Equal(got, []string{tc.want}) {
			t.Errorf("add/alias %v = %v, want %s", tc.body, got, tc.want)
		}
	}
	list, ok := f.read(t, "alias/all/example.com").([]any)
	if !ok || len(list) != 1 || list[0].(map[string]any)["goto"] != "taken@example.com" || list[0].(map[string]any)["id"] == nil {
		t.Fatalf("get/alias/all/example.com = %v, want the one alias with its id and goto", list)
	}
	f.mustWrite(t, "edit/alias", map[string]any{"items": []string{"1"}, "attr": map[string]any{"goto": "bob@example.com"}}, "alias_modified")
	if got := f.write(t, "edit/alias", map[string]any{"items": []string{"99"}, "attr": map[string]any{"goto": "bob@example.com"}}); !cmp.Equal(got, []string{"danger:alias_invalid"}) {
		t.Errorf("edit/alias of an unknown id = %v", got)
	}
	if got := f.sim.Aliases("bob@example.com"); !cmp.Equal(got, []string{"sales@example.com"}) {
		t.Errorf("after the edit, bob's aliases = %v", got)
	}
	if got := f.write(t, "delete/alias", []string{"1", "99"}); !cmp.Equal(got, []string{"success:alias_removed", "danger:access_denied"}) {
		t.Errorf("delete/alias [1, 99] = %v, want a success and access_denied in one array", got)
	}
	if got := f.read(t, "alias/all/example.com"); !cmp.Equal(got, map[string]any{}) {
		t.Errorf("get/alias/all after the removal = %v, want {}", got)
	}
}
