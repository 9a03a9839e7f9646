package yandex360_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestAddNamedMailbox: a user created with a person's name carries it,
// given and family split on the last space; without a name, the login is
// both, as before.
func TestAddNamedMailbox(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := t.Context()
	for login, want := range map[string][2]string{"ada": {"Ada King", "Lovelace"}, "bob": {"bob", "bob"}, "cy": {"Cy", "Cy"}} {
		name := map[string]string{"ada": "Ada King Lovelace", "bob": "", "cy": "Cy"}[login]
		m, err := e.c.AddNamedMailbox(ctx, "example.org", login, apiclient.NameOf(name), "Secret-1234", false)
		if err != nil {
			t.Fatalf("AddNamedMailbox(%s, %q) = %v", login, name, err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/directory/v1/org/"+strconv.FormatInt(e.creds.OrgID, 10)+"/users/"+m.UID, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "OAuth "+e.creds.Token)
		resp, err := e.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var u struct {
			Name struct{ First, Last string } `json:"name"`
		}
		err = json.NewDecoder(resp.Body).Decode(&u)
		_ = resp.Body.Close()
		if err != nil || u.Name.First != want[0] || u.Name.Last != want[1] {
			t.Errorf("user %s created with %q: name %+v, %v; want %q %q", login, name, u.Name, err, want[0], want[1])
		}
	}
}
