package main

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestShellLineOfAnyLength: a line too long to be a command (2 MiB here)
// is answered as invalid, and the shell reads on: the next line runs.
func TestShellLineOfAnyLength(t *testing.T) {
	t.Parallel()
	in := strings.NewReader("/mailbox list " + strings.Repeat("a", 2<<20) + "\n/maildomain register example.com\n")
	out, log, err := runShellCmd(t, nil, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; log:\n%s", err, log)
	}
	for _, want := range []string{"too long to be a command", "example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%.2000s", want, out)
		}
	}
	if !strings.Contains(out, "Domain example.com") && !strings.Contains(out, "registered") {
		t.Errorf("the line after the long one did not run:\n%.2000s", out)
	}
	if strings.Contains(out, strings.Repeat("a", 200)) {
		t.Errorf("the answer repeats the long line")
	}
}

// TestShellUsageOffersNoForm: the shell's usage and help, whatever brings
// them up, never offer to open a form; a mistyped sub-command gets a
// "did you mean".
func TestShellUsageOffersNoForm(t *testing.T) {
	t.Parallel()
	in := strings.NewReader("/mailbox lsit example.com\n/mailbox help\n/maildomain nope\n/maildomain regster example.com\n/mailbox\n")
	out, log, err := runShellCmd(t, nil, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; log:\n%s", err, log)
	}
	if strings.Contains(out, "Open a form") || strings.Contains(out, "form to") {
		t.Errorf("the shell offers a form:\n%s", out)
	}
	for _, want := range []string{"Did you mean /mailbox list?", "Did you mean /maildomain register?"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Did you mean /maildomain nope") || strings.Count(out, "Did you mean") != 2 {
		t.Errorf("a guess for a word that is nothing like a sub-command:\n%s", out)
	}
}

// TestShellUserNameRules: each provider's own rule of user names, the same
// for add as for the commands on an existing mailbox: mailcow takes "_",
// digits first and 64 characters; PDD does not; neither takes "..".
func TestShellUserNameRules(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 64)
	lines := "/maildomain register example.com\n/mailbox add 123@example.com\n/mailbox add john_doe@example.com\n" +
		"/mailbox add " + long + "@example.com\n/mailbox add bad..name@example.com\n/mailbox block bad..name@example.com\n/mailbox block john_doe@example.com\n"
	for provider, created := range map[string]bool{apiclient.ProviderMailcow: true, apiclient.ProviderPDD: false} {
		out, log, err := runShellCmd(t, map[string]string{"MAILBOT_PROVIDER": provider}, strings.NewReader(lines))
		if err != nil {
			t.Fatalf("%s: run(shell) = %v; log:\n%s", provider, err, log)
		}
		for _, name := range []string{"123", "john_doe", long} {
			if got := strings.Contains(out, "Mailbox "+name+"@example.com created"); got != created {
				t.Errorf("%s: add %s created %v, want %v:\n%s", provider, name, got, created, out)
			}
		}
		if got := strings.Contains(out, "Mailbox john_doe@example.com blocked"); got != created {
			t.Errorf("%s: block john_doe blocked %v, want %v:\n%s", provider, got, created, out)
		}
		if n := strings.Count(out, `"bad..name" is not a valid user name`); n != 2 {
			t.Errorf("%s: bad..name refused %d times, want by add and block alike:\n%s", provider, n, out)
		}
	}
}

// TestShellReadWording: the status of a domain the account does not have
// reads as such on every provider: not as mailcow's "{}" shown as a code,
// nor as PDD's "not the domain administrator".
func TestShellReadWording(t *testing.T) {
	t.Parallel()
	for provider, want := range map[string]string{apiclient.ProviderMailcow: "not on the mailcow server", apiclient.ProviderPDD: "not in this account"} {
		out, log, err := runShellCmd(t, map[string]string{"MAILBOT_PROVIDER": provider}, strings.NewReader("/maildomain status unknown-domain.example\n"))
		if err != nil {
			t.Fatalf("%s: run(shell) = %v; log:\n%s", provider, err, log)
		}
		if !strings.Contains(out, want) || strings.Contains(out, "{}") || strings.Contains(out, "administrator") {
			t.Errorf("%s: status of an unknown domain, want %q, without {} or administrator:\n%s", provider, want, out)
		}
	}
}

// TestShellRegisterAgain: a register of a domain the account already has
// says it already was, with its status, and the ops notice says nothing
// changed: on Yandex 360 (which answers 409), mailcow (domain_exists) and
// PDD, which answers a repeat as a first register while the domain is
// still unverified (domain-activate), so the status read before it tells.
func TestShellRegisterAgain(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{apiclient.ProviderYandex360, apiclient.ProviderMailcow, apiclient.ProviderPDD} {
		in := strings.NewReader("/maildomain register again.example\n/maildomain register again.example\n")
		out, log, err := runShellCmd(t, map[string]string{"MAILBOT_PROVIDER": provider}, in)
		if err != nil {
			t.Fatalf("%s: run(shell) = %v; log:\n%s", provider, err, log)
		}
		if !strings.Contains(out, "Domain again.example was registered already") || !strings.Contains(out, "nothing changed") ||
			strings.Count(out, "Domain again.example registered") != 1 {
			t.Errorf("%s: a second register of a domain the account has:\n%s", provider, out)
		}
	}
}
