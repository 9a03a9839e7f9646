package pdd_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
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
				got, err := e.c.AddMailbox(t.Context(), tc.domain, tc.login, tc.password, false)
				if err != nil {
					t.Errorf("%s: AddMailbox(%q, %q) = %v", tc.name, tc.domain, tc.login, err)
					continue
				}
				uid := 1_130_000_000_000_001 + int64(i) // above 2^40, as real uids are
				want := &apiclient.Mailbox{Address: tc.wantLogin, UID: strconv.FormatInt(uid, 10), State: apiclient.StateActive}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: mailbox (-want +got):\n%s", tc.name, diff)
				}
				if pw, ok := e.sim.Mailbox(tc.wantLogin); !ok || pw != tc.password {
					t.Errorf("%s: the sandbox holds %s with password %q (%t), want %q", tc.name, tc.wantLogin, pw, ok, tc.password)
				}
			}
		})
	}
}

// TestAddMailboxAnswers checks answers the sandbox never gives: uids past
// 2^53 stay exact, a missing domain is filled in from the request.
func TestAddMailboxAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		wantUID    string
	}{
		{"uid past 2^53", `{"domain":"example.com","login":"u@example.com","uid":9007199254740993,"success":"ok"}`, "9007199254740993"},
		{"largest uid", `{"domain":"example.com","login":"u@example.com","uid":9223372036854775807,"success":"ok"}`, "9223372036854775807"},
		{"uid as a string", `{"domain":"example.com","login":"u@example.com","uid":"1130000000000001","success":"ok"}`, "1130000000000001"},
		{"no domain", `{"login":"u@example.com","uid":1130000000000001,"success":"ok"}`, "1130000000000001"},
		{"more fields", `{"domain":"example.com","login":"u@example.com","uid":1130000000000001,"success":"ok","extra":{"a":[1,2]}}`, "1130000000000001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, tc.body)
			}))
			t.Cleanup(ts.Close)
			c, err := pdd.NewAdapter(ts.URL, "T")
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.AddMailbox(t.Context(), "example.com", "u", "Secret-1", false)
			if err != nil {
				t.Fatalf("AddMailbox = %v", err)
			}
			want := &apiclient.Mailbox{Address: "u@example.com", UID: tc.wantUID, State: apiclient.StateActive}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mailbox (-want +got):\n%s", diff)
			}
		})
	}
}
