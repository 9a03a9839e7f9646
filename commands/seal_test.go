package commands

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// referenceSeal is a seal written out with the standard library alone:
// the payload is the JSON an encoder without HTML escaping writes, less
// its newline, and the MAC is a fresh HMAC-SHA256 of "<kind>.<payload>".
func referenceSeal(t *testing.T, key []byte, kind string, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	head := kind + "." + base64.RawURLEncoding.EncodeToString(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	m := hmac.New(sha256.New, key)
	m.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// TestSealWireBytes checks that every sealed value is byte for byte the
// value written out with the standard library, whatever was sealed
// before it (the scratch and the keyed hashes are reused), also from
// several goroutines at once.
func TestSealWireBytes(t *testing.T) {
	c := newCore(t, &fakeAPI{}, Config{SigningKey: []byte("seal-test-key")})
	values := []struct {
		kind string
		v    any
	}{
		{checkKind, wireCheck{Domain: "example.com"}},
		{checkKind, wireCheck{Domain: "xn--e1afmkfd.xn--p1ai", Record: &apiclient.Record{Type: "CNAME", Name: "yamail-3c8a", Value: "mail.yandex.ru"}}},
		{encodingVersion, wirePending{ID: "abc", Requester: "U1", Action: ActionRegisterDomain, Domain: "example.com",
			Reason: "<b>&amp; \"quoted\" ünïcödé \u2028", Created: 1772366400000, Expires: 1772452800000}},
		{formKind, wireForm{Channel: "C1", Action: ActionAddMailbox}},
		{moreKind, map[string]string{"d": string(bytes.Repeat([]byte("a"), 5000))}}, // longer than the scratch kept
		{checkKind, wireCheck{Domain: "example.org"}},
	}
	check := func(t *testing.T) {
		for _, x := range values {
			if got, want := c.seal(x.kind, x.v), referenceSeal(t, []byte("seal-test-key"), x.kind, x.v); got != want {
				t.Errorf("seal(%s, %+v):\n got %s\nwant %s", x.kind, x.v, got, want)
			}
		}
	}
	check(t)
	check(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { check(t) })
	}
	wg.Wait()
}
