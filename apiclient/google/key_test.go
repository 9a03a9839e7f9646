package google

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	oauthgoogle "golang.org/x/oauth2/google"
	"golang.org/x/oauth2/jwt"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// TestParseKeyAsTheLibrary: parseKey reads a service-account key file into
// the same JWT configuration as golang.org/x/oauth2/google's
// JWTConfigFromJSON, with and without token_uri, and refuses what that
// function refuses (another type of credentials).
func TestParseKeyAsTheLibrary(t *testing.T) {
	t.Parallel()
	acct := googlesim.New().NewAccount()
	withURI := acct.KeyFile("https://oauth2.example.net/token")
	withoutURI := []byte(`{"type":"service_account","client_email":"bot@p.iam.gserviceaccount.com","private_key_id":"k1","private_key":` +
		jsonString(t, withURI, "private_key") + `}`)
	for name, key := range map[string][]byte{"token_uri": withURI, "no token_uri": withoutURI} {
		want, err := oauthgoogle.JWTConfigFromJSON(key, Scopes...)
		if err != nil {
			t.Fatalf("%s: the library: %v", name, err)
		}
		got, err := parseKey(key)
		if err != nil {
			t.Fatalf("%s: parseKey: %v", name, err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(jwt.Config{})); diff != "" {
			t.Errorf("%s: parseKey (-library +parseKey):\n%s", name, diff)
		}
	}
	user := []byte(`{"type":"authorized_user","client_id":"x","client_secret":"y","refresh_token":"z"}`)
	if _, err := oauthgoogle.JWTConfigFromJSON(user, Scopes...); err == nil {
		t.Fatal("the library read an authorized_user file as a service account")
	}
	if _, err := parseKey(user); err == nil {
		t.Error("parseKey read an authorized_user file as a service account")
	}
}

// jsonString is the field name of the JSON object in doc, as a JSON string.
func jsonString(t *testing.T, doc []byte, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil || m[name] == nil {
		t.Fatalf("no %s in the key file: %v", name, err)
	}
	return string(m[name])
}
