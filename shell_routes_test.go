package main

import (
	"strings"
	"testing"
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
