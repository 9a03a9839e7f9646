package y360sim

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every call needs its permission: without it 403 PERMISSION_DENIED, with
// it (or the write permission that includes it) the call is carried out.
// GET /directory/v1/org needs directory:read_organization even for a token
// that knows its organisation.
func TestPermissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	user := f.must(t, http.MethodPost, f.orgPath("/users"), newUser("bob", "Secret-12"))
	id := user["id"].(string)
	calls := []struct {
		method, path string
		body         any
		need         string
	}{
		{http.MethodGet, "/directory/v1/org", nil, ReadOrganization},
		{http.MethodGet, f.orgPath("/users"), nil, ReadUsers},
		{http.MethodGet, f.orgPath("/users/" + id), nil, ReadUsers},
		{http.MethodPatch, f.orgPath("/users/" + id), map[string]bool{"isEnabled": true}, WriteUsers},
		{http.MethodPost, f.orgPath("/users"), newUser("carol", "Secret-12"), WriteUsers},
		{http.MethodPost, f.orgPath("/users/" + id + "/aliases"), map[string]string{"alias": "sales"}, WriteUsers},
		{http.MethodGet, f.orgPath("/domains"), nil, ReadDomains},
		{http.MethodGet, f.orgPath("/domains/example.org/status"), nil, ReadDomains},
		{http.MethodPost, f.orgPath("/domains"), map[string]string{"domain": "new.example"}, WriteDomains},
	}
	for _, c := range calls {
		others := []string{}
		for _, p := range AllPermissions {
			if p != c.need && implies(p) != c.need {
				others = append(others, p)
			}
		}
		without, err := f.sim.NewAccountWith(others...)
		if err != nil {
			t.Fatal(err)
		}
		status, _, body := f.call(t, c.method, c.path, without.Token, c.body)
		if status != http.StatusForbidden || !cmp.Equal(body["code"], num(7)) {
			t.Errorf("%s %s without %s: HTTP %d %v, want 403 PERMISSION_DENIED", c.method, c.path, c.need, status, body)
		}
		with, _ := f.sim.NewAccountWith(c.need)
		if status, _, body := f.call(t, c.method, c.path, with.Token, c.body); status != http.StatusOK {
			t.Errorf("%s %s with %s alone: HTTP %d %v, want 200", c.method, c.path, c.need, status, body)
		}
	}
	writer, _ := f.sim.NewAccountWith(WriteUsers)
	if status, _, _ := f.call(t, http.MethodGet, f.orgPath("/users"), writer.Token, nil); status != http.StatusOK {
		t.Errorf("GET users with directory:write_users: HTTP %d, want 200 (write includes read)", status)
	}
	if _, err := f.sim.NewAccountWith("directory:everything"); err == nil {
		t.Error("NewAccountWith accepted an unknown permission")
	}
}

// /sim/account?permissions= gives a token those permissions alone.
func TestAccountControlPermissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	res, err := http.PostForm(f.url+"/sim/account", url.Values{"permissions": {ReadUsers + "," + ReadDomains}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got := decode(t, res.Body)
	tok, _ := got["token"].(string)
	if status, _, _ := f.call(t, http.MethodGet, f.orgPath("/domains"), tok, nil); status != http.StatusOK {
		t.Errorf("GET domains with read_domains: HTTP %d", status)
	}
	if status, _, _ := f.call(t, http.MethodGet, "/directory/v1/org", tok, nil); status != http.StatusForbidden {
		t.Errorf("GET org without read_organization: HTTP %d, want 403", status)
	}
	res, err = http.PostForm(f.url+"/sim/account", url.Values{"permissions": {"nope"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Header.Get("Content-Type"), "json") {
		t.Errorf("an unknown permission: HTTP %d, want 400", res.StatusCode)
	}
}
