package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
)

// With MAILBOT_ROUTES the shell starts every provider's sandbox and each
// command goes to its domain's: a first try of a migration needs no
// account.
func TestShellRoutesStartEverySandbox(t *testing.T) {
	t.Parallel()
	in := strings.NewReader("/maildomain register old.example\n/mailbox add alice@old.example\n/maildomain register example.com\n/mailbox list old.example\n")
	out, _, err := runShellCmd(t, map[string]string{"MAILBOT_ROUTES": "old.example=mailcow"}, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; output:\n%s", err, out)
	}
	for _, want := range []string{
		"embedded sandbox of the PDD API at http://127.0.0.1:",
		"embedded sandbox of mailcow at http://127.0.0.1:",
		"mailcow does not verify who owns a domain", // old.example went to mailcow
		"Mailbox alice@old.example created",
		"http://example.com/", // example.com went to PDD, which verifies ownership by a file or a CNAME
		"alice@old.example",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the shell's output has no %q:\n%s", want, out)
		}
	}
}

// A route to a provider that is not in the table stops the shell,
// naming the variable.
func TestShellRoutesRefuseUnknownProvider(t *testing.T) {
	t.Parallel()
	_, _, err := runShellCmd(t, map[string]string{"MAILBOT_ROUTES": "old.example=exchange"}, strings.NewReader(""))
	if err == nil || !strings.Contains(err.Error(), `MAILBOT_ROUTES: old.example=exchange: unknown provider "exchange"`) {
		t.Errorf("run(shell) = %v", err)
	}
}

// A routed provider that cannot start stops serve before Slack is
// asked, naming the provider and its variable.
func TestServeRoutedProviderThatCannotStart(t *testing.T) {
	t.Parallel()
	cow := mailcowsim.New()
	srv := httptest.NewServer(cow)
	t.Cleanup(srv.Close)
	cow.NewAccount()
	env := map[string]string{"SLACK_APP_TOKEN": "xapp-1-A-1", "SLACK_BOT_TOKEN": "xoxb-1-1", "SLACK_API_URL": "http://127.0.0.1:1/api/",
		"PDD_TOKEN": "pdd-token", "MAILBOT_ADMINS": "UADMIN1", "MAILBOT_HTTP_ADDR": "",
		"MAILBOT_ROUTES": "old.example=mailcow", "MAILCOW_URL": srv.URL, "MAILCOW_API_KEY": "not-the-key", "MAILCOW_MX": cow.Hostname()}
	var out, log shellOutput
	err := run(t.Context(), []string{"mailbot", "serve"}, envFrom(env), strings.NewReader(""), &out, &log)
	if err == nil || !strings.Contains(err.Error(), "provider mailcow") || !strings.Contains(err.Error(), "MAILCOW_API_KEY") {
		t.Errorf("serve with a refused mailcow key = %v", err)
	}
	if strings.Contains(err.Error(), "not-the-key") {
		t.Error("the error shows the key")
	}
}
