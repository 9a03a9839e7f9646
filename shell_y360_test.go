package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
)

// y360Shell starts a Yandex 360 sandbox whose organisation has the
// domains example.org (its default) and b.example, and the user
// user0001 (user0001@example.org). run drives the shell against it with
// MAILBOT_DOMAINS set to allow; writes counts the calls that change
// something.
func y360Shell(t *testing.T) (sim *y360sim.Server, writes *atomic.Int64, run func(allow, lines string) string) {
	t.Helper()
	sim = y360sim.New()
	creds := sim.NewAccount()
	if err := sim.AddDomain("b.example"); err != nil {
		t.Fatal(err)
	}
	if err := sim.AddMailboxes("example.org", 1); err != nil {
		t.Fatal(err)
	}
	writes = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writes.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return sim, writes, func(allow, lines string) string {
		env := map[string]string{"MAILBOT_PROVIDER": apiclient.ProviderYandex360, "Y360_BASE_URL": srv.URL, "Y360_TOKEN": creds.Token,
			"Y360_ORG_ID": strconv.FormatInt(creds.OrgID, 10), "MAILBOT_DOMAINS": allow}
		out, log, err := runShellCmd(t, env, strings.NewReader(lines))
		if err != nil {
			t.Fatalf("run(shell) = %v; output:\n%s\nlog:\n%s", err, out, log)
		}
		return out
	}
}

// TestShellYandex360OwnAddress: a user's nickname at another domain of the
// organisation is only another name of the user: a block or reset by it
// is refused naming the user's own address, with no write, whatever the
// allow-list; by the own address it runs, and replies never name an
// address the provider does not give.
func TestShellYandex360OwnAddress(t *testing.T) {
	t.Parallel()
	sim, writes, run := y360Shell(t)
	out := run("b.example", "/mailbox block user0001@b.example\n/mailbox reset user0001@b.example\n")
	if n := writes.Load(); n != 0 {
		t.Errorf("%d write calls for a user named by another domain's name:\n%s", n, out)
	}
	if m, _ := sim.Mailbox("user0001@example.org"); m.State != "active" {
		t.Errorf("user0001 is %s, want active", m.State)
	}
	if got := strings.Count(out, "user0001@b.example is another name of user0001@example.org"); got != 2 {
		t.Errorf("the refusals do not name the user's own address:\n%s", out)
	}
	out = run("b.example, example.org", "/mailbox block user0001@b.example\n/mailbox block user0001@example.org\n/mailbox add bob@b.example\n")
	if strings.Contains(out, "bob@b.example") || !strings.Contains(out, "another name of user0001@example.org") {
		t.Errorf("a reply names an address Yandex 360 does not give the user, or the block by another name was not refused:\n%s", out)
	}
	for _, want := range []string{"Mailbox user0001@example.org blocked", "Mailbox bob@example.org created"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if m, _ := sim.Mailbox("user0001@example.org"); m.State != "blocked" {
		t.Errorf("user0001 is %s, want blocked", m.State)
	}
}

// TestShellYandex360AddOwnAddress: Yandex 360 gives a new user its
// nickname at the organisation's default domain, whatever domain was
// typed; an add whose new address the allow-list does not have is refused
// before anything is created, naming that address.
func TestShellYandex360AddOwnAddress(t *testing.T) {
	t.Parallel()
	sim, writes, run := y360Shell(t)
	out := run("b.example", "/mailbox add carol@b.example\n")
	if n := writes.Load(); n != 0 {
		t.Errorf("%d write calls for a new user whose address is outside the allow-list:\n%s", n, out)
	}
	if _, ok := sim.Mailbox("carol@example.org"); ok {
		t.Errorf("carol was created:\n%s", out)
	}
	if !strings.Contains(out, "carol@example.org") || !strings.Contains(out, "not in the list of allowed domains") {
		t.Errorf("the refusal does not name the new user's own address and the allow-list:\n%s", out)
	}
}
