package commands

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// stdJSON is v as encoding/json writes it without HTML escaping.
func stdJSON(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// TestWireCheckJSON holds the written-out JSON of a "Check DNS" button's
// value to encoding/json's, byte for byte, and the sealed value to the
// standard library's seal; it fails when apiclient.Record or MXRecord
// gains a field or a JSON method of its own, which appendJSON would not
// know.
func TestWireCheckJSON(t *testing.T) {
	if got, want := fieldNames(apiclient.Record{}), []string{"Purpose", "Type", "Name", "MX", "Value", "Match", "Secret", "Advice", "Label"}; !slices.Equal(got, want) {
		t.Fatalf("apiclient.Record's fields are %v; appendJSON writes %v", got, want)
	}
	if got, want := fieldNames(apiclient.MXRecord{}), []string{"Pref", "Host"}; !slices.Equal(got, want) {
		t.Fatalf("apiclient.MXRecord's fields are %v; appendMXJSON writes %v", got, want)
	}
	for _, v := range []any{apiclient.Record{}, apiclient.MXRecord{}, apiclient.Match(0), wireCheck{}} {
		if _, ok := v.(json.Marshaler); ok {
			t.Fatalf("%T marshals itself", v)
		}
		if _, ok := v.(encoding.TextMarshaler); ok {
			t.Fatalf("%T marshals itself as text", v)
		}
	}
	c := newCore(t, &fakeAPI{}, Config{SigningKey: []byte("json-test-key")})
	for _, w := range []wireCheck{
		{Domain: "example.com"},
		{Domain: "b001.example.com", Record: &apiclient.Record{Purpose: apiclient.PurposeVerification, Type: apiclient.TypeCNAME,
			Name: "yamail-3c8a1f2e9b7d", Value: "mail.yandex.ru", Secret: true}},
		{Domain: "example.org", Record: &apiclient.Record{Purpose: "mx", Type: "MX", MX: []apiclient.MXRecord{{Pref: 10, Host: "mx.yandex.net"}, {Pref: 65535, Host: "b"}},
			Match: apiclient.Match(3), Advice: true, Label: `Lab "el" \ <b>&amp;</b>`}},
		{Domain: "example.net", Record: &apiclient.Record{MX: []apiclient.MXRecord{}, Value: "v=spf1 include:_spf.google.com ~all", Match: apiclient.Match(-1)}},
		{Domain: "пример.рф\u2028\u2029\x00\x1f\t\n\x7f", Record: &apiclient.Record{Name: "bad\xffutf8", Value: "\"quoted\"", Label: "\u00e9"}},
	} {
		if got, want := string(w.appendJSON(nil)), stdJSON(t, w); got != want {
			t.Errorf("appendJSON:\n got %s\nwant %s", got, want)
		}
		if got, want := c.sealCheck(w), referenceSeal(t, []byte("json-test-key"), checkKind, w); got != want {
			t.Errorf("sealCheck(%+v):\n got %s\nwant %s", w, got, want)
		}
	}
}

// fieldNames lists the fields of v's struct type, in order.
func fieldNames(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		out = append(out, f.Name)
	}
	return out
}

// FuzzWireCheckJSON holds appendJSON to encoding/json for any strings.
func FuzzWireCheckJSON(f *testing.F) {
	f.Add("example.com", "verification", "CNAME", "yamail-x", "mail.yandex.ru", "", "mx.yandex.net", uint16(10), 0, true)
	f.Add("a\"b", "<&>", "\\", "\u2028", "\xff", "é", "", uint16(0), -7, false)
	f.Fuzz(func(t *testing.T, domain, purpose, typ, name, value, label, host string, pref uint16, match int, secret bool) {
		w := wireCheck{Domain: domain, Record: &apiclient.Record{Purpose: purpose, Type: typ, Name: name, Value: value,
			Label: label, Match: apiclient.Match(match), Secret: secret, Advice: !secret}}
		if host != "" {
			w.Record.MX = []apiclient.MXRecord{{Pref: pref, Host: host}}
		}
		for _, w := range []wireCheck{w, {Domain: domain}} {
			if got, want := string(w.appendJSON(nil)), stdJSON(t, w); got != want {
				t.Fatalf("appendJSON:\n got %s\nwant %s", got, want)
			}
		}
	})
}
