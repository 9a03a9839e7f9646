package mailcow

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJudge(t *testing.T) {
	cases := []struct {
		name, body string
		want       result
		decodeErr  bool
	}{
		{"success", `[{"type":"success","log":["mailbox","add"],"msg":["mailbox_added","a@b.c"]}]`, result{done: true}, false},
		{"partial success", `[{"type":"success","msg":["domain_added","b.c"]},{"type":"warning","msg":"domain_added_sogo_failed"}]`,
			result{done: true, notes: []string{"domain_added_sogo_failed"}}, false},
		{"failure beside a success", `[{"type":"danger","msg":"access_denied"},{"type":"success","msg":["mailbox_modified","a@b.c"]}]`,
			result{done: true, notes: []string{"access_denied"}}, false},
		{"warning alone", `[{"type":"warning","msg":["quota_adjusted","1"]}]`, result{done: true, notes: []string{"quota_adjusted"}}, false},
		{"refusal", `[{"type":"danger","msg":["object_exists","a@b.c"]},{"type":"error","msg":"later"}]`, result{failure: "object_exists"}, false},
		{"single error object", `{"type":"error","msg":"Cannot find attributes in post data"}`, result{failure: "Cannot find attributes in post data"}, false},
		{"msg neither text nor list", `[{"type":"danger","msg":{"x":1}}]`, result{failure: `{"x":1}`}, false},
		{"unknown type", `[{"type":"info","msg":"x"}]`, result{unspoken: true}, false},
		{"empty array", `[]`, result{}, true},
		{"empty object", `{}`, result{}, true},
		{"html", `<html>502</html>`, result{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries, err := decodeEntries([]byte(c.body))
			if (err != nil) != c.decodeErr {
				t.Fatalf("decodeEntries error %v, want an error: %v", err, c.decodeErr)
			}
			if err != nil {
				return
			}
			if got := judge(entries); !cmp.Equal(got, c.want, cmp.AllowUnexported(result{})) {
				t.Errorf("judge = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestDecodeRead(t *testing.T) {
	cases := []struct {
		name, body string
		found      bool
		want       mailboxJSON
		err        error
	}{
		{"nothing", ` {} `, false, mailboxJSON{}, nil},
		{"numbers as text", `{"username":"a@b.c","active":"2","attributes":{"force_pw_update":"1"}}`, true,
			mailboxJSON{Username: "a@b.c", Active: 2, Attributes: attributes{ForcePasswordUpdate: 1}}, nil},
		{"numbers, attributes as PHP's empty array", `{"username":"a@b.c","active":0,"attributes":[]}`, true,
			mailboxJSON{Username: "a@b.c"}, nil},
		{"null and float", `{"username":"a@b.c","active":1.0,"attributes":{"force_pw_update":null}}`, true,
			mailboxJSON{Username: "a@b.c", Active: 1}, nil},
		{"an error entry", `{"type":"error","msg":"route not found"}`, false, mailboxJSON{}, errRefusal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got mailboxJSON
			found, err := decodeRead([]byte(c.body), &got)
			if found != c.found || !errors.Is(err, c.err) || got != c.want {
				t.Errorf("decodeRead = %v, %+v, %v; want %v, %+v, %v", found, got, err, c.found, c.want, c.err)
			}
		})
	}
	var got mailboxJSON
	if _, err := decodeRead([]byte(`{"username":"a@b.c","active":"yes"}`), &got); err == nil || strings.Contains(err.Error(), "yes") {
		t.Errorf("a word for a number: %v, want an error that does not quote it", err)
	}
}

// FuzzDecode feeds any body to the decoders of writes and reads: they
// never panic, a write's answer is judged one way only, a read that found
// something has no error, and no decoding error quotes the body.
func FuzzDecode(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzDecode.
	f.Fuzz(func(t *testing.T, body []byte) {
		if entries, err := decodeEntries(body); err == nil {
			if len(entries) == 0 {
				t.Fatal("no entries and no error")
			}
			r := judge(entries)
			if r.done && r.unspoken || r.done && r.failure != "" {
				t.Fatalf("judged two ways: %+v", r)
			}
		}
		var one mailboxJSON
		var list []mailboxJSON
		for _, v := range []any{&one, &list, &domainJSON{}, &dkimJSON{}} {
			found, err := decodeRead(body, v)
			if found && err != nil {
				t.Fatalf("found and %v", err)
			}
			if err != nil && len(body) >= 8 && strings.Contains(err.Error(), string(body)) {
				t.Fatalf("the error %q quotes the body", err)
			}
		}
	})
}
