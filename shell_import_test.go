package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// TestShellImport: "import FILE" refuses a file with a bad row and runs
// nothing; a good file creates every row once against the sandbox, hands
// the owner's rows over, and prints each ownerless row's password once,
// the one the sandbox holds.
func TestShellImport(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	good := filepath.Join(dir, "good.csv")
	var rows []string
	rows = append(rows, "address,owner,given,family")
	for i := range 12 {
		owner := ""
		if i%3 == 0 {
			owner = "U0ADA"
		}
		rows = append(rows, fmt.Sprintf("p%02d@example.com,%s", i, owner))
	}
	if err := os.WriteFile(good, []byte(strings.Join(rows, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("ok@example.com\nnot an address\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url, "MAILBOT_ADMINS": "UADMIN2"}
	inR, inW := io.Pipe()
	var out, log shellOutput
	done := make(chan error, 1)
	go func() {
		done <- run(t.Context(), []string{"mailbot", "shell", "--as", "UADMIN2"}, envFrom(env), inR, &out, &log)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
	}
	send("/maildomain register example.com")
	send("import " + bad)
	_, off := out.waitFor(t, regexp.MustCompile(`Import refused; nothing was done:\n  bad.csv, line 2: `), 0)
	if n := sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Fatalf("a refused import reached the sandbox: %d adds", n)
	}
	send("import " + good)
	_, off = out.waitFor(t, regexp.MustCompile(`Import \w+ done: 12 created, 0 already existing, 0 failed`), off)
	_, _ = out.waitFor(t, regexp.MustCompile(`Passwords of import`), off)
	_ = inW.Close() // an io.Pipe writer's Close always returns nil
	if err := <-done; err != nil {
		t.Fatalf("run(shell) = %v", err)
	}
	if n := sim.Requests(pddsim.OpAddMailbox); n != 12 {
		t.Errorf("%d adds for 12 rows", n)
	}
	printed := regexp.MustCompile(`Address: (p\d\d@example.com)\n\s+Password: (\S+)\n`).FindAllStringSubmatch(out.String(), -1)
	if len(printed) != 8 {
		t.Fatalf("%d passwords printed, want the 8 rows without an owner:\n%s", len(printed), out.String())
	}
	for _, p := range printed {
		if stored, _ := sim.Mailbox(p[1]); stored != p[2] {
			t.Errorf("%s: printed %q, the sandbox holds %q", p[1], p[2], stored)
		}
	}
	if n := strings.Count(out.String(), "[direct message to U0ADA"); n != 4 {
		t.Errorf("%d direct messages to U0ADA, want one per owned row (4)", n)
	}
}

// TestShellImportAsPeopleHaveThem: the shell imports the Google Admin
// console's bulk-user file as it is, with a byte-order mark, and a
// ';'-separated spreadsheet export: every row created, nothing refused.
func TestShellImportAsPeopleHaveThem(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	dir := t.TempDir()
	google := filepath.Join(dir, "google.csv")
	semi := filepath.Join(dir, "semi.csv")
	if err := os.WriteFile(google, []byte("\uFEFFFirst Name [Required],Last Name [Required],Email Address [Required],Password [Required],Org Unit Path [Required]\r\n"+
		"Nina,van der Berg,nina@example.com,Secret-123,/\r\nAda,Lovelace,ada@example.com,Secret-456,/\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(semi, []byte("E-Mail;Slack User;Surname\ncarl@example.com;;Meyer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url, "MAILBOT_ADMINS": "UADMIN2"}
	in := strings.NewReader("/maildomain register example.com\nimport " + google + "\nimport " + semi + "\n")
	out, _, err := runShellCmd(t, env, in, "--as", "UADMIN2")
	if err != nil {
		t.Fatalf("run(shell) = %v", err)
	}
	if !regexp.MustCompile(`Import \w+ done: 2 created, 0 already existing, 0 failed`).MatchString(out) ||
		!regexp.MustCompile(`Import \w+ done: 1 created, 0 already existing, 0 failed`).MatchString(out) {
		t.Errorf("the imports did not create every row:\n%s", out)
	}
	for _, a := range []string{"nina@example.com", "ada@example.com", "carl@example.com"} {
		if _, ok := sim.Mailbox(a); !ok {
			t.Errorf("%s was not created", a)
		}
	}
}
