package y360sim

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A user's aliases are local parts on the user object: POST …/aliases
// answers the user with aliases[], a name in use in the organisation is
// 409, DELETE answers {alias, removed} and 404 for an alias the user does
// not have.
func TestAliases(t *testing.T) {
	f := newFixture(t)
	u := f.must(t, http.MethodPost, f.orgPath("/users"), newUser("bob", "Secret-12"))
	f.must(t, http.MethodPost, f.orgPath("/users"), newUser("carol", "Secret-12"))
	id := u["id"].(string)
	got := f.must(t, http.MethodPost, f.orgPath("/users/"+id+"/aliases"), map[string]string{"alias": "Sales"})
	if !cmp.Equal(got["aliases"], []any{"sales"}) {
		t.Fatalf("the user after adding an alias: aliases %v, want [sales]", got["aliases"])
	}
	for _, alias := range []string{"sales", "carol"} {
		status, _, body := f.call(t, http.MethodPost, f.orgPath("/users/"+id+"/aliases"), f.creds.Token, map[string]string{"alias": alias})
		if status != http.StatusConflict || !cmp.Equal(body["code"], num(6)) {
			t.Errorf("alias %q in use: HTTP %d %v, want 409 ALREADY_EXISTS", alias, status, body)
		}
	}
	status, _, _ := f.call(t, http.MethodPost, f.orgPath("/users/"+id+"/aliases"), f.creds.Token, map[string]string{"alias": "a@b.com"})
	if status != http.StatusBadRequest {
		t.Errorf("an alias with @domain: HTTP %d, want 400", status)
	}
	if got := f.must(t, http.MethodGet, f.orgPath("/users/"+id), nil); !cmp.Equal(got["aliases"], []any{"sales"}) {
		t.Errorf("GET user: aliases %v", got["aliases"])
	}
	del := f.must(t, http.MethodDelete, f.orgPath("/users/"+id+"/aliases/sales"), nil)
	if !cmp.Equal(del, map[string]any{"alias": "sales", "removed": true}) {
		t.Errorf("DELETE alias = %v", del)
	}
	status, _, body := f.call(t, http.MethodDelete, f.orgPath("/users/"+id+"/aliases/sales"), f.creds.Token, nil)
	if status != http.StatusNotFound || !cmp.Equal(body["code"], num(5)) {
		t.Errorf("DELETE of an alias the user does not have: HTTP %d %v, want 404", status, body)
	}
}
