package pdd

import (
	"github.com/mailbot/mailbot/apiclient"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScrub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", `{"success":"error","error":"unknown"}`, `{"success":"error","error":"unknown"}`},
		{"string value", `{"password":"hunter2","x":1}`, `{"password":<redacted>,"x":1}`},
		{"any case", `{"PddToken":"abc","PASSWORD":"def"}`, `{"PddToken":<redacted>,"PASSWORD":<redacted>}`},
		{"object value", `{"secrets":{"name":"n1","content":"c1"},"ok":1}`, `{"secrets":<redacted>,"ok":1}`},
		{"array value", `{"token":["a","b"],"ok":1}`, `{"token":<redacted>,"ok":1}`},
		{"nested key", `{"a":{"b":{"content":"c1"}}}`, `{"a":{"b":{"content":<redacted>}}}`},
		{"spaces", `{ "name" : "n1" }`, `{ "name" : <redacted> }`},
		{"escaped quote inside", `{"password":"a\"b","x":1}`, `{"password":<redacted>,"x":1}`},
		{"unterminated string", `{"password":"hunter2`, `{"password":<redacted>`},
		{"unterminated object", `{"secrets":{"name":"n1","content":"c`, `{"secrets":<redacted>`},
		{"no colon", `{"password" "hunter2"}`, `{"password" <redacted>}`},
		{"single quotes", `{'token':'abc'}`, `{'token':<redacted>}`},
		{"form", `a=1&password=hunter2&b=2`, `a=1&password=<redacted>&b=2`},
		{"yaml", "token: abc\nnext: 1", "token: <redacted> next: 1"},
		{"number value", `{"token":12345,"x":1}`, `{"token":<redacted>,"x":1}`},
		{"key with a longer name", `{"secret_name":"n1","oauth_token":"t"}`, `{"secret_name":<redacted>,"oauth_token":<redacted>}`},
		{"string in a string", `{"e":"{\"password\":\"a\\\"b\"}","x":1}`, `{"e":"{\"password\":<redacted>}","x":1}`},
		{"long s folds to s", `{"ſecrets":{"name":"n1"}}`, `{"ſecrets":<redacted>}`},
		{"word without a value", `no_password, bad token`, `no_password, bad token`},
		{"json escape cuts", `{"p\u0061ssword":"hunter2"}`, `{"p…`},
		{"percent escape cuts", `p%61ssword=hunter2`, `p…`},
		{"html entity cuts", `p&#97;ssword=hunter2`, `p…`},
		{"html", "<title>502 Bad Gateway</title>", "<title>502 Bad Gateway</title>"},
	}
	for _, tc := range tests {
		if got := apiclient.Scrub(tc.in, 200); got != tc.want {
			t.Errorf("%s: apiclient.Scrub(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestCutCode(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ж", 3400)
	tests := []struct {
		name, in, want string
	}{
		{"known", "occupied", "occupied"},
		{"unknown, short", "quota-exceeded", "quota-exceeded"},
		{"exactly 100", strings.Repeat("x", 100), strings.Repeat("x", 100)},
		{"101", strings.Repeat("x", 101), strings.Repeat("x", 99) + "…"},
		{"3400 runes", long, strings.Repeat("ж", 99) + "…"},
		{"a token in it", "bad TOKEN2345ABCDEFG here", "bad <redacted> here"},
		{"a password field in it", "denied: password=abc", "denied: password=<redacted>"},
	}
	for _, tc := range tests {
		got := apiclient.CutCode(tc.in, fuzzSecrets)
		if string(got) != tc.want {
			t.Errorf("%s: cutCode = %q, want %q", tc.name, got, tc.want)
		}
		if n := utf8.RuneCountInString(string(got)); n > apiclient.MaxCodeLen {
			t.Errorf("%s: cutCode has %d characters, want at most %d", tc.name, n, apiclient.MaxCodeLen)
		}
	}
	a := fuzzAdapter()
	body := []byte(`{"success":"error","error":"` + long + `"}`)
	if msg := settled(a.decode(a.c, apiclient.OpAdd, &apiclient.Response{Status: 200, Body: body}, nil)).Error(); utf8.RuneCountInString(msg) > apiclient.MaxCodeLen+100 || !strings.Contains(msg, strings.Repeat("ж", 99)+"…") {
		t.Errorf("Error() of a 3400-character code = %q (%d characters), want the code cut", msg, utf8.RuneCountInString(msg))
	}
}

// secretKeys name the fields FuzzSecretsInErrors plants a secret under.
var secretKeys = []string{"secrets", "name", "content", "password", "passwd", "token", "PddToken", "secret_name", "oauth_token"}

// plantKey spells key in one of the ways a body may: as it is, in upper
// or mixed case, with a letter escaped for JSON or a form, or with a
// letter that folds to an ASCII one.
func plantKey(key string, form uint8) string {
	switch form % 6 {
	case 1:
		return strings.ToUpper(key)
	case 2:
		b := []byte(key)
		for i := 0; i < len(b); i += 2 {
			b[i] = strings.ToUpper(string(b[i]))[0]
		}
		return string(b)
	case 3:
		return fmt.Sprintf(`%s\u%04x%s`, key[:1], key[1], key[2:])
	case 4:
		return fmt.Sprintf("%s%%%02X%s", key[:1], key[1], key[2:])
	case 5:
		return strings.Replace(strings.Replace(key, "s", "ſ", 1), "k", "\u212a", 1)
	}
	return key
}

// jsonString encodes s as the inside of a JSON string, without escaping
// HTML characters (a server may or may not).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSpace(b.String())
	return out[1 : len(out)-1]
}

// plant returns key and secret in one of the shapes a body may hold them,
// the secret as that shape encodes it, and whether the shape can hold
// that secret.
func plant(key, secret string, shape uint8) (text, encoded string, ok bool) {
	js := jsonString(secret)
	switch shape % 8 {
	case 1:
		return `"` + key + `": {"a":"` + js + `","b":[1,2]}`, js, true
	case 2:
		return `"` + key + `":["x","` + js + `"]`, js, true
	case 3:
		return `"` + key + "\" \t:\n \"" + js + `"`, js, true
	case 4:
		sq := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(secret)
		return `'` + key + `':'` + sq + `'`, sq, true
	case 5:
		return key + "=" + url.QueryEscape(secret), url.QueryEscape(secret), true
	case 6:
		inner := `{"` + key + `":"` + js + `"}`
		return `"` + jsonString(inner) + `"`, jsonString(js), true
	case 7:
		if strings.ContainsAny(secret, " \t\r\n,;&<>\"'}])") {
			return "", "", false
		}
		return key + ": " + secret, secret, true
	}
	return `"` + key + `":"` + js + `"`, js, true
}

// errorTexts returns every text of err that may be logged or shown.
func errorTexts(err error) []string {
	texts := []string{err.Error()}
	var e *apiclient.Error
	if errors.As(err, &e) {
		texts = append(texts, e.Code, e.Message)
	}
	return texts
}

// answerErrors returns the errors the adapter returns for the body, for
// a register and an add (the decoder, then the reading of a success).
func answerErrors(status int, body []byte) []error {
	a := fuzzAdapter()
	res := &apiclient.Response{Status: status, Body: body}
	var errs []error
	var d domainAnswer
	err := settled(a.decode(a.c.WithSecrets(fuzzSecrets...), apiclient.OpRegister, res, &d))
	if err == nil {
		_, err = a.domainOf(apiclient.OpRegister, &d, "example.com")
	}
	if err != nil {
		errs = append(errs, err)
	}
	var m mailboxAnswer
	err = settled(a.decode(a.c.WithSecrets(fuzzSecrets...), apiclient.OpAdd, res, &m))
	if err == nil {
		form := url.Values{"domain": {"example.com"}, "login": {"u"}, "password": {fuzzSecrets[1]}}
		_, err = a.mailboxOf(apiclient.OpAdd, &m, form, apiclient.StateActive, fuzzSecrets...)
	}
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

// fuzzStatuses are the statuses FuzzSecretsInErrors answers with.
var fuzzStatuses = []int{200, 500, 502, 503, 404, 429, 400}

// FuzzSecretsInErrors plants a secret under a field named like a secret,
// in one of many shapes, anywhere in a body (after any prefix, before any
// suffix, the body possibly cut after the secret), answers it with a status,
// and checks that no piece of 8 bytes of the secret, as it is or as the
// body encodes it, appears in any text of the error that the body leads to. A piece that also appears in the
// same error when the secret is replaced by a filler, or elsewhere in the
// body, proves nothing and is not checked.
func FuzzSecretsInErrors(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzSecretsInErrors.
	f.Fuzz(func(t *testing.T, statusIdx uint8, before, secret, after string, keyIdx, keyForm, shape uint8, cut uint16) {
		if len(secret) < 8 || len(before)+len(after) > 4096 || len(secret) > 256 {
			return
		}
		status := fuzzStatuses[int(statusIdx)%len(fuzzStatuses)]
		key := plantKey(secretKeys[int(keyIdx)%len(secretKeys)], keyForm)
		planted, encoded, ok := plant(key, secret, shape)
		if !ok {
			return
		}
		filler := strings.Repeat("Q", len(secret)) // no character that ends a value
		fillerPlanted, _, _ := plant(key, filler, shape)
		body := before + planted + after
		control := before + fillerPlanted + after
		// Cut the body somewhere after the planted field's secret.
		if end := len(before) + len(planted); len(after) > 0 {
			n := int(cut) % (len(after) + 1)
			body, control = body[:end+n], control[:len(before)+len(fillerPlanted)+n]
		}
		var shown []string
		for _, err := range answerErrors(status, []byte(control)) {
			shown = append(shown, errorTexts(err)...)
		}
		elsewhere := control + "\x00" + strings.Join(shown, "\x00")
		for _, err := range answerErrors(status, []byte(body)) {
			for _, text := range errorTexts(err) {
				for _, form := range []string{secret, encoded} {
					for i := 0; i+8 <= len(form); i++ {
						piece := form[i : i+8]
						if strings.Contains(text, piece) && !strings.Contains(elsewhere, piece) {
							t.Fatalf("status %d, body %q: error text %q holds %q of the secret %q", status, body, text, piece, secret)
						}
					}
				}
			}
		}
	})
}

// BenchmarkExcerpt measures the excerpt of an error body: an nginx 502
// page, and a JSON answer with verification secrets at its start.
func BenchmarkExcerpt(b *testing.B) {
	bodies := map[string][]byte{
		"html_502":     []byte("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"),
		"json_secrets": []byte(`{"secrets":{"name":"0123456789ab","content":"ba9876543210"},"domain":"example.com","success":"error","error":"unknown"}`),
	}
	for name, body := range bodies {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				apiclient.Excerpt(body, apiclient.ExcerptLen, fuzzSecrets...)
			}
		})
	}
}
