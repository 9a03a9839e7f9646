package pdd_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/pdd"
)

// TestAddMailbox checks the success shapes of add over HTTP and HTTPS, and
// that a password full of form syntax arrives intact.
func TestAddMailbox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, domain, login, password string
		wantLogin                     string
	}{
		{"user name", "example.com", "ivan", "Secret-1", "ivan@example.com"},
		{"full address", "example.com", "olga@example.com", "Secret-1", "olga@example.com"},
		{"upper case", "Example.COM", "Petr.Ivanov", "Secret-1", "petr.ivanov@example.com"},
		{"form syntax in the password", "example.com", "amp", "a&b+c%d;e:f,", "amp@example.com"},
		{"percent escapes in the password", "example.com", "pct", "%26%2B%25%3B", "pct@example.com"},
		{"every symbol", "example.com", "sym", "!@#$%^&*()_-+:;,.", "sym@example.com"},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, tr.tls)
			for i, tc := range tests {
				got, err := e.c.AddMailbox(t.Context(), tc.domain, tc.login, tc.password)
				if err != nil {
					t.Errorf("%s: AddMailbox(%q, %q) = %v", tc.name, tc.domain, tc.login, err)
					continue
				}
				want := &pdd.Mailbox{Domain: "example.com", Login: tc.wantLogin, UID: 1_130_000_000_000_001 + int64(i)}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: mailbox (-want +got):\n%s", tc.name, diff)
				}
				if got.UID <= 1<<40 {
					t.Errorf("%s: UID = %d, want above 2^40", tc.name, got.UID)
				}
				if pw, ok := e.sim.Mailbox(tc.wantLogin); !ok || pw != tc.password {
					t.Errorf("%s: the sandbox holds %s with password %q (%t), want %q", tc.name, tc.wantLogin, pw, ok, tc.password)
				}
			}
		})
	}
}

// TestAddMailboxAnswers checks answers the sandbox never gives: uids past
// 2^53 stay exact, a missing domain or login is filled in from the request.
func TestAddMailboxAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       *pdd.Mailbox
	}{
		{"uid past 2^53", `{"domain":"example.com","login":"u@example.com","uid":9007199254740993,"success":"ok"}`,
			&pdd.Mailbox{Domain: "example.com", Login: "u@example.com", UID: 9007199254740993}},
		{"largest uid", `{"domain":"example.com","login":"u@example.com","uid":9223372036854775807,"success":"ok"}`,
			&pdd.Mailbox{Domain: "example.com", Login: "u@example.com", UID: 9223372036854775807}},
		{"uid as a string", `{"domain":"example.com","login":"u@example.com","uid":"1130000000000001","success":"ok"}`,
			&pdd.Mailbox{Domain: "example.com", Login: "u@example.com", UID: 1130000000000001}},
		{"no domain", `{"login":"u@example.com","uid":1130000000000001,"success":"ok"}`,
			&pdd.Mailbox{Domain: "example.com", Login: "u@example.com", UID: 1130000000000001}},
		{"more fields", `{"domain":"example.com","login":"u@example.com","uid":1130000000000001,"success":"ok","extra":{"a":[1,2]}}`,
			&pdd.Mailbox{Domain: "example.com", Login: "u@example.com", UID: 1130000000000001}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, tc.body)
			}))
			t.Cleanup(ts.Close)
			c, err := pdd.New(ts.URL, "T")
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.AddMailbox(t.Context(), "example.com", "u", "Secret-1")
			if err != nil {
				t.Fatalf("AddMailbox = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mailbox (-want +got):\n%s", diff)
			}
		})
	}
}
