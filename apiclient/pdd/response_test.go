package pdd_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
)

// TestBadAnswers checks answers that are not PDD answers: each is an
// *apiclient.Error without a code, with the status and a reason; only a
// status other than 200 gets a short excerpt of the body after the reason
// (a 200 body may hold secrets).
func TestBadAnswers(t *testing.T) {
	t.Parallel()
	ops := map[pdd.Op]apiclient.Op{pdd.OpRegisterDomain: apiclient.OpRegister, pdd.OpAddMailbox: apiclient.OpAdd}
	huge := `{"success":"ok","domain":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name       string
		op         pdd.Op
		status     int
		body       string
		wantReason string
		wantExcpt  string // the excerpt, exactly
	}{
		{"oversized", pdd.OpRegisterDomain, 200, huge, "larger than 1048576 bytes", ""},
		{"oversized error page", pdd.OpRegisterDomain, 503, huge, "larger than 1048576 bytes", ""},
		{"html", pdd.OpRegisterDomain, 200, "<html><body>Service Unavailable</body></html>", "not JSON", ""},
		{"plain text", pdd.OpAddMailbox, 200, "OK", "not JSON", ""},
		{"empty", pdd.OpRegisterDomain, 200, "", "truncated", ""},
		{"truncated", pdd.OpRegisterDomain, 200, `{"domain":"example.com","success":"o`, "truncated", ""},
		{"truncated secrets", pdd.OpRegisterDomain, 200, `{"domain":"example.com","secrets":{"name":"0123456789ab","content":"ba98`, "truncated", ""},
		{"trailing garbage", pdd.OpRegisterDomain, 200, `{"status":"added","success":"ok"}garbage`, "trailing data", ""},
		{"two objects", pdd.OpRegisterDomain, 200, `{"success":"ok"} {"success":"ok"}`, "trailing data", ""},
		{"null", pdd.OpRegisterDomain, 200, `null`, `no "success"`, ""},
		{"array", pdd.OpRegisterDomain, 200, `[{"success":"ok"}]`, "not a JSON object", ""},
		{"number", pdd.OpRegisterDomain, 200, `42`, "not a JSON object", ""},
		{"wrong field type", pdd.OpRegisterDomain, 200, `{"success":true}`, "not a JSON object", ""},
		{"no success", pdd.OpRegisterDomain, 200, `{"domain":"example.com","status":"added"}`, `no "success"`, ""},
		{"odd success", pdd.OpRegisterDomain, 200, `{"success":"maybe"}`, `no "success"`, ""},
		{"error without code", pdd.OpRegisterDomain, 200, `{"success":"error"}`, `no "success"`, ""},
		{"HTTP 500 with JSON", pdd.OpAddMailbox, 500, `{"success":"error","error":"unknown"}`, "unexpected HTTP status", `{"success":"error","error":"unknown"}`},
		{"HTTP 500 with secrets", pdd.OpRegisterDomain, 500, `{"secrets":{"name":"0123456789ab","content":"ba9876543210"},"success":"error","error":"unknown"}`,
			"unexpected HTTP status", `{"secrets":<redacted>,"success":"error","error":"unknown"}`},
		{"HTTP 502 page", pdd.OpRegisterDomain, 502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n",
			"unexpected HTTP status", "<html>  <head><title>502 Bad Gateway</title></head>  <body>  <ce…"},
		{"HTTP 503 with a form echo", pdd.OpAddMailbox, 503, "busy: domain=example.com&login=u&password=other-Secret1&x=1", "unexpected HTTP status", "busy: domain=example.com&login=u&password=<redacted>&x=1"},
		{"HTTP 404", pdd.OpAddMailbox, 404, `not found`, "unexpected HTTP status", "not found"},
		{"HTTP 401", pdd.OpRegisterDomain, 401, ``, "unexpected HTTP status", ""},
		{"unknown status", pdd.OpRegisterDomain, 200, `{"domain":"example.com","status":"verified","success":"ok"}`, `unknown domain status "verified"`, ""},
		{"no status", pdd.OpRegisterDomain, 200, `{"domain":"example.com","success":"ok"}`, `unknown domain status ""`, ""},
		{"domain-activate without secrets", pdd.OpRegisterDomain, 200, `{"domain":"example.com","status":"domain-activate","stage":"owner-check","success":"ok"}`, "without verification secrets", ""},
		{"domain-activate with empty secrets", pdd.OpRegisterDomain, 200, `{"domain":"example.com","status":"domain-activate","secrets":{"name":"","content":""},"success":"ok"}`, "without verification secrets", ""},
		{"no uid", pdd.OpAddMailbox, 200, `{"domain":"example.com","login":"u@example.com","success":"ok"}`, `no valid uid ""`, ""},
		{"negative uid", pdd.OpAddMailbox, 200, `{"domain":"example.com","login":"u@example.com","uid":-1,"success":"ok"}`, `no valid uid "-1"`, ""},
		{"fractional uid", pdd.OpAddMailbox, 200, `{"domain":"example.com","login":"u@example.com","uid":1.5,"success":"ok"}`, `no valid uid "1.5"`, ""},
		{"uid past int64", pdd.OpAddMailbox, 200, `{"domain":"example.com","login":"u@example.com","uid":9223372036854775808,"success":"ok"}`, "no valid uid", ""},
		{"uid not a number", pdd.OpAddMailbox, 200, `{"domain":"example.com","login":"u@example.com","uid":"abc","success":"ok"}`, "not a JSON object", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			t.Cleanup(ts.Close)
			c, err := pdd.NewAdapter(ts.URL, "TOKEN", apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
			if err != nil {
				t.Fatal(err)
			}
			if tc.op == pdd.OpRegisterDomain {
				_, err = c.RegisterDomain(t.Context(), "example.com")
			} else {
				_, err = c.AddMailbox(t.Context(), "example.com", "u", password, false)
			}
			var re *apiclient.Error
			if !errors.As(err, &re) || re.Code != "" {
				t.Fatalf("error = %v (%T), want an *apiclient.Error without a code", err, err)
			}
			reason, excerpt, _ := strings.Cut(re.Message, ": ")
			if reason != "unexpected HTTP status" {
				reason, excerpt = re.Message, ""
			}
			if re.Op != ops[tc.op] || re.HTTPStatus != tc.status || !strings.Contains(reason, tc.wantReason) {
				t.Errorf("error = {%s %d %q}, want {%s %d %q}", re.Op, re.HTTPStatus, reason, ops[tc.op], tc.status, tc.wantReason)
			}
			if excerpt != tc.wantExcpt {
				t.Errorf("excerpt = %q, want %q", excerpt, tc.wantExcpt)
			}
			if n := utf8.RuneCountInString(excerpt); n > 65 {
				t.Errorf("excerpt of %d runes, want at most 64 and an ellipsis", n)
			}
			if !strings.Contains(err.Error(), reason) {
				t.Errorf("error text %q, want the reason", err)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			checkNoSecrets(t, err, "TOKEN", password)
		})
	}
}

// TestNoSecretsInErrors has a server put the token and the password, as
// they are and encoded, wherever an error might show them.
func TestNoSecretsInErrors(t *testing.T) {
	t.Parallel()
	const token = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST"
	pw := password
	jsonPW := strings.NewReplacer("&", `\u0026`).Replace(pw)
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"echo of the request in a 502", 502, token + " " + url.Values{"password": {pw}}.Encode()},
		{"password at the start of a page", 200, pw + " was received, " + token},
		{"query-escaped password", 200, url.QueryEscape(pw) + url.PathEscape(pw)},
		{"json-escaped password", 200, `{"success":"` + jsonPW + `"}`},
		{"token as the error code", 200, `{"success":"error","error":"` + token + `"}`},
		{"password in the error code", 200, `{"success":"error","error":"bad ` + jsonPW + `"}`},
		{"token as the domain status", 200, `{"success":"ok","domain":"example.com","status":"` + token + `"}`},
		{"password as the uid", 200, `{"success":"ok","domain":"example.com","login":"u@example.com","uid":"` + jsonPW + `"}`},
		{"long page, secrets inside", 500, strings.Repeat("x", 40) + token + pw + strings.Repeat("y", 100)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			t.Cleanup(ts.Close)
			c, err := pdd.NewAdapter(ts.URL, token, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
			if err != nil {
				t.Fatal(err)
			}
			_, regErr := c.RegisterDomain(t.Context(), "example.com")
			_, addErr := c.AddMailbox(t.Context(), "example.com", "u", pw, false)
			if regErr == nil || addErr == nil {
				t.Fatalf("errors = %v, %v; want two", regErr, addErr)
			}
			checkNoSecrets(t, regErr, token)
			checkNoSecrets(t, addErr, token, pw, jsonPW, url.PathEscape(pw))
		})
	}
}
