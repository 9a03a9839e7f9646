package googlesim_test

import (
	"io"
	"net/http"
	"slices"
	"testing"
)

const usersPath = "/admin/directory/v1/users"

// addUser inserts a user in example.com, a verified domain of the
// customer, and returns its id.
func (w *world) addUser(t *testing.T, tok, email string) string {
	t.Helper()
	a := w.do(t, "POST", usersPath, tok, map[string]any{"primaryEmail": email,
		"name": map[string]string{"givenName": "Ann", "familyName": "Lee"}, "password": "Passw0rd!"})
	id, _ := a.body["id"].(string)
	if a.status != 200 || id == "" {
		t.Fatalf("users.insert %s: %d %v", email, a.status, a.body)
	}
	return id
}

// deleteAlias sends users.aliases.delete and returns the status and the
// raw body.
func (w *world) deleteAlias(t *testing.T, tok, userKey, alias string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, w.url+usersPath+"/"+userKey+"/aliases/"+alias, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := w.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, body
}

func TestAliasesInsert(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	w.sim.AddDomain("example.com")
	annID := w.addUser(t, tok, "ann@example.com")
	w.addUser(t, tok, "bob@example.com")
	a := w.do(t, "POST", usersPath+"/ann@example.com/aliases", tok, map[string]string{"alias": "Sales@example.com"})
	if a.status != 200 || a.body["kind"] != "admin#directory#alias" || a.body["id"] != annID ||
		a.body["primaryEmail"] != "ann@example.com" || a.body["alias"] != "sales@example.com" || a.body["etag"] == "" {
		t.Fatalf("users.aliases.insert: %d %v; want the Alias {kind, id, etag, primaryEmail, alias}", a.status, a.body)
	}
	refused := []struct {
		what, userKey, alias string
		status               int
		reason               string
	}{
		{"an alias that exists, to another user", "bob@example.com", "sales@example.com", 409, "duplicate"},
		{"an alias that exists, to its user", "ann@example.com", "sales@example.com", 409, "duplicate"},
		{"a user's primary e-mail", "ann@example.com", "bob@example.com", 409, "duplicate"},
		{"a domain the customer lacks", "ann@example.com", "sales@other.example", 400, "invalid"},
		{"not an address", "ann@example.com", "sales", 400, "invalid"},
		{"an unknown user", "nobody@example.com", "jobs@example.com", 404, "notFound"},
	}
	for _, tc := range refused {
		got := w.do(t, "POST", usersPath+"/"+tc.userKey+"/aliases", tok, map[string]string{"alias": tc.alias})
		if r := googleError(t, got, tc.status); r != tc.reason {
			t.Errorf("%s: reason %q, want %q", tc.what, r, tc.reason)
		}
	}
	// A user cannot take an alias's address either.
	u := map[string]any{"primaryEmail": "sales@example.com", "name": map[string]string{"givenName": "S", "familyName": "S"}, "password": "Passw0rd!"}
	if r := googleError(t, w.do(t, "POST", usersPath, tok, u), 409); r != "duplicate" {
		t.Errorf("a user at an alias's address: reason %q, want duplicate", r)
	}
	if got := w.sim.Aliases("ann@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Errorf("the record of ann's aliases: %q", got)
	}
	if got := w.sim.Aliases("bob@example.com"); len(got) != 0 {
		t.Errorf("the record of bob's aliases: %q", got)
	}
}

func TestAliasesAsUserKeyAndList(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	w.sim.AddDomain("example.com")
	annID := w.addUser(t, tok, "ann@example.com")
	for _, alias := range []string{"sales@example.com", "info@example.com"} {
		if a := w.do(t, "POST", usersPath+"/"+annID+"/aliases", tok, map[string]string{"alias": alias}); a.status != 200 {
			t.Fatalf("insert %s by the user's id: %d %v", alias, a.status, a.body)
		}
	}
	a := w.do(t, "GET", usersPath+"/sales@example.com", tok, nil)
	if aliases, _ := a.body["aliases"].([]any); a.status != 200 || a.body["primaryEmail"] != "ann@example.com" || len(aliases) != 2 {
		t.Errorf("users.get by an alias: %d %v; want ann with aliases[] of two", a.status, a.body)
	}
	a = w.do(t, "GET", usersPath+"/info@example.com/aliases", tok, nil)
	list, _ := a.body["aliases"].([]any)
	var got []string
	for _, x := range list {
		m, _ := x.(map[string]any)
		if m["primaryEmail"] != "ann@example.com" || m["id"] != annID || m["kind"] != "admin#directory#alias" {
			t.Errorf("an entry of users.aliases.list: %v", m)
		}
		s, _ := m["alias"].(string)
		got = append(got, s)
	}
	if a.status != 200 || a.body["kind"] != "admin#directory#aliases" || len(got) != 2 || !slices.Contains(got, "sales@example.com") || !slices.Contains(got, "info@example.com") {
		t.Errorf("users.aliases.list by an alias: %d %v", a.status, a.body)
	}
	if r := googleError(t, w.do(t, "GET", usersPath+"/nobody@example.com/aliases", tok, nil), 404); r != "notFound" {
		t.Errorf("the aliases of an unknown user: reason %q", r)
	}
}

func TestAliasesDelete(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	tok := w.token(t)
	w.sim.AddDomain("example.com")
	w.addUser(t, tok, "ann@example.com")
	for _, alias := range []string{"sales@example.com", "info@example.com"} {
		w.do(t, "POST", usersPath+"/ann@example.com/aliases", tok, map[string]string{"alias": alias})
	}
	// The alias serves as the user key of its own delete.
	if status, body := w.deleteAlias(t, tok, "sales@example.com", "sales@example.com"); status != 204 || len(body) != 0 {
		t.Errorf("users.aliases.delete: %d %q; want 204 and no body", status, body)
	}
	if got := w.sim.Aliases("ann@example.com"); !slices.Equal(got, []string{"info@example.com"}) {
		t.Errorf("ann's aliases after the delete: %q", got)
	}
	for _, tc := range []struct{ what, userKey, alias string }{
		{"a second delete", "ann@example.com", "sales@example.com"},
		{"the old alias as user key", "sales@example.com", "sales@example.com"},
		{"an unknown user", "nobody@example.com", "info@example.com"},
	} {
		status, _ := w.deleteAlias(t, tok, tc.userKey, tc.alias)
		if status != 404 {
			t.Errorf("%s: %d, want 404", tc.what, status)
		}
	}
	if r := googleError(t, w.do(t, "DELETE", usersPath+"/ann@example.com/aliases/nobody@example.com", tok, nil), 404); r != "notFound" {
		t.Errorf("an alias the user lacks: reason %q", r)
	}
	// Once removed, the address is free again, for a user or an alias.
	if a := w.do(t, "POST", usersPath+"/ann@example.com/aliases", tok, map[string]string{"alias": "sales@example.com"}); a.status != 200 {
		t.Errorf("re-adding a removed alias: %d %v", a.status, a.body)
	}
}
