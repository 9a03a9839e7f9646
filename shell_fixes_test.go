package main

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
	"github.com/mailbot/mailbot/providers"
)

// TestShellRealProviderIsRecorded: with the provider's credentials the
// shell says at start that it drives the real API, and with
// MAILBOT_DATABASE_URL what it does is in mailbot audit, as for serve.
func TestShellRealProviderIsRecorded(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	sim, url, token := startSim(t)
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url, "MAILBOT_DATABASE_URL": dsn}
	in := strings.NewReader("/maildomain register example.com\n/mailbox add alice@example.com onboarding\naudit\n")
	out, log, err := runShellCmd(t, env, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; output:\n%s\nlog:\n%s", err, out, log)
	}
	for _, want := range []string{
		"Driving the real PDD API at " + url + " with PDD_TOKEN",
		"Connecting to the database of MAILBOT_DATABASE_URL…",
		"The audit trail goes to the database of MAILBOT_DATABASE_URL",
		"Acting as USHELL (the shell's own user, an admin).",
		"Audit trail of this session: 2 entries",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, ok := sim.Mailbox("alice@example.com"); !ok {
		t.Fatal("the mailbox was not created")
	}
	var audit, auditLog testkit.Buffer
	if err := run(t.Context(), []string{"mailbot", "audit", "--json"}, envFrom(map[string]string{"MAILBOT_DATABASE_URL": dsn}),
		strings.NewReader(""), &audit, &auditLog); err != nil {
		t.Fatalf("run(audit) = %v; log:\n%s", err, auditLog.String())
	}
	re := regexp.MustCompile(`"actor":"USHELL".*"action":"add".*"mailbox":"alice@example.com".*"reason":"onboarding".*"outcome":"ok".*"source":"shell"`)
	if !re.MatchString(audit.String()) {
		t.Errorf("mailbot audit does not show the shell's add (want %s):\n%s", re, audit.String())
	}
	assertNotIn(t, "the audit trail", audit.String(), match(t, rePassword, out), token)
}

// TestShellSandboxKeepsOffTheDatabase: the sandbox's make-believe
// operations never reach the audit trail of MAILBOT_DATABASE_URL.
func TestShellSandboxKeepsOffTheDatabase(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	st, err := pgstore.Open(t.Context(), dsn, zap.NewNop()) // creates the schema: mailbot audit only reads
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, _, err := runShellCmd(t, map[string]string{"MAILBOT_DATABASE_URL": dsn}, strings.NewReader("/maildomain register example.com\n"))
	if err != nil || !strings.Contains(out, "embedded sandbox of the PDD API") || strings.Contains(out, "database") {
		t.Fatalf("run(shell) = %v; output (want the sandbox, no database):\n%s", err, out)
	}
	var audit, auditLog testkit.Buffer
	if err := run(t.Context(), []string{"mailbot", "audit", "--json"}, envFrom(map[string]string{"MAILBOT_DATABASE_URL": dsn}),
		strings.NewReader(""), &audit, &auditLog); err != nil {
		t.Fatalf("run(audit) = %v", err)
	}
	if audit.String() != "" {
		t.Errorf("the sandbox's operation is in the database's trail:\n%s", audit.String())
	}
}

// TestShellRoughEdges: approve without an ID, a bare command, help, and a
// failed operation each get a plain answer, and no log line over it.
func TestShellRoughEdges(t *testing.T) {
	t.Parallel()
	_, url, _ := startSim(t)
	env := map[string]string{"PDD_TOKEN": "not-a-token-of-the-sandbox", "PDD_BASE_URL": url}
	in := strings.NewReader("approve\ndeny  \n/mailbox\nhelp\n/maildomain register example.com\n")
	out, log, err := runShellCmd(t, env, in)
	if err != nil {
		t.Fatalf("run(shell) = %v", err)
	}
	for _, want := range []string{
		"Type approve and the request's ID, such as: approve abcdefghij",
		"Type deny and the request's ID",
		"The shell has no forms: type the command with its words.",
		"bad_token",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `No request ""`) || strings.Contains(out, "Open a form") {
		t.Errorf("output promises a form or names an empty request:\n%s", out)
	}
	if log != "" {
		t.Errorf("the failed register also logged, over its answer:\n%s", log)
	}
	slash, shellLines, ok := strings.Cut(out[strings.Index(out, "Slash commands, typed as in Slack:"):], "Shell lines:")
	if !ok {
		t.Fatalf("help has no section of shell lines:\n%s", out)
	}
	for _, usage := range []string{"/maildomain register <domain> [reason…]", "/maildomain check <domain>", "/mailbox add <user>@<domain> [reason…]"} {
		if !strings.Contains(slash, "  "+usage+"\n") {
			t.Errorf("help lacks the slash command %q in its first section:\n%s", usage, slash)
		}
	}
	for _, line := range []string{"approve <ID>", "deny <ID>", "cancel <ID>", "as <USER_ID>", "home", "audit", "exit"} {
		if strings.Contains(slash, line) || !strings.Contains(shellLines, "  "+line) {
			t.Errorf("help: %q is not in the section of shell lines alone:\n%s", line, out)
		}
	}
	if before, _, _ := strings.Cut(shellLines, "Cannot"); strings.Contains(before, "/") {
		t.Errorf("help mixes a slash command into the shell lines:\n%s", shellLines)
	}
}

// TestShellRealYandex360ChoosesTheOrganisation: with Yandex 360's
// credentials and Y360_ORG_ID empty, the shell checks the token at start
// as serve does, and so works in the one organisation the token sees
// (every command was refused as a credentials problem before).
func TestShellRealYandex360ChoosesTheOrganisation(t *testing.T) {
	t.Parallel()
	sb, err := providers.NewSandbox(apiclient.ProviderYandex360)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler)
	t.Cleanup(srv.Close)
	env := map[string]string{"MAILBOT_PROVIDER": apiclient.ProviderYandex360, "Y360_ORG_ID": ""}
	for _, kv := range sb.Vars(srv.URL) {
		if kv[0] != "Y360_ORG_ID" {
			env[kv[0]] = kv[1]
		}
	}
	in := strings.NewReader("/maildomain register example.com\n/mailbox list example.com\n")
	out, log, err := runShellCmd(t, env, in)
	if err != nil {
		t.Fatalf("run(shell) = %v; output:\n%s\nlog:\n%s", err, out, log)
	}
	for _, want := range []string{"Driving the real Yandex 360 at " + srv.URL, "Domain example.com registered", "Mailboxes of example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "credentials") {
		t.Errorf("a command was refused for its credentials:\n%s", out)
	}
}
