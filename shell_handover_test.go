package main

import (
	"io"
	"regexp"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

var reShowID = regexp.MustCompile(`types show ([a-z2-7]{10})`)

// TestShellHandover: "for @U…" hands a new mailbox's credentials over;
// "show ID" as someone else is refused, as the owner prints the password
// (the one the provider stored) once, and a second "show" is refused.
// "email" gives the acting user a confirmed address, one person's only,
// and self-service resets that mailbox.
func TestShellHandover(t *testing.T) {
	t.Parallel()
	sim, url, token := startSim(t)
	env := map[string]string{"PDD_TOKEN": token, "PDD_BASE_URL": url, "MAILBOT_ADMINS": "UADMIN2", "MAILBOT_SELF_SERVICE": "reset"}
	inR, inW := io.Pipe()
	var out, log shellOutput
	done := make(chan error, 1)
	go func() {
		done <- run(t.Context(), []string{"mailbot", "shell", "--as", "UADMIN2"}, envFrom(env), inR, &out, &log)
	}()
	send := func(lines ...string) {
		t.Helper()
		for _, line := range lines {
			if _, err := io.WriteString(inW, line+"\n"); err != nil {
				t.Fatalf("write %q: %v", line, err)
			}
		}
	}
	send("/maildomain register example.com", "/mailbox add ada@example.com for @U0ADA first day")
	m, off := out.waitFor(t, reShowID, 0)
	_, off = out.waitFor(t, regexp.MustCompile(`Credentials for: U0ADA\n`), off)
	send("as U0BOB", "show "+m[1])
	_, off = out.waitFor(t, regexp.MustCompile(`Not yours`), off)
	if n := sim.Requests(pddsim.OpEditMailbox); n != 0 {
		t.Fatalf("someone else's show reached the API: %d edits", n)
	}
	send("as U0ADA", "show "+m[1])
	pw, off := out.waitFor(t, regexp.MustCompile(`Your password for ada@example.com\n(?:.*\n)*?  Password: (\S+)\n`), off)
	if stored, _ := sim.Mailbox("ada@example.com"); stored != pw[1] {
		t.Errorf("printed %q, the sandbox holds %q", pw[1], stored)
	}
	send("show " + m[1])
	_, off = out.waitFor(t, regexp.MustCompile(`Already used`), off)
	send("email ada@example.com", "/mailbox reset")
	_, off = out.waitFor(t, regexp.MustCompile(`\[ops\] Self-service: U0ADA reset the password of mailbox ada@example.com`), off)
	send("as U0BOB", "email ada@example.com")
	_, _ = out.waitFor(t, regexp.MustCompile(`ada@example.com is U0ADA's confirmed e-mail`), off)
	_ = inW.Close() // an io.Pipe writer's Close always returns nil
	if err := <-done; err != nil {
		t.Fatalf("run(shell) = %v", err)
	}
	if n := len(rePassword.FindAllString(out.String(), -1)); n != 1 {
		t.Errorf("%d passwords printed, want the one the owner's show printed", n)
	}
}
