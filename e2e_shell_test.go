package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/internal/testkit"
)

// testE2EShell is the shell's lines from the binary, on its
// embedded sandbox with no database: cancel ID, home (for a requester and
// for an admin) and audit (the session's trail, oldest first, without the
// password).
func testE2EShell(t *testing.T, bin string) {
	p := startProc(t, bin, "shell", map[string]string{"MAILBOT_ADMINS": "UADMIN2", "MAILBOT_APPROVALS": "requests"}, "shell")
	off := 0
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
	}
	expect := func(re string) []string {
		t.Helper()
		var m []string
		m, off = waitOutput(t, p, regexp.MustCompile(re), off)
		return m
	}
	send("/maildomain register example.com")
	expect(`\[ops\] USHELL registered domain example.com`)
	send("as UBOB")
	send("/mailbox add bob@example.com onboarding")
	first := expect(`approve ([a-z2-7]{10})`)[1]
	send("cancel " + first)
	expect(`\[ops\] Request ` + first + ` \(cancelled\): Cancelled by the requester`)
	send("/mailbox add bob@example.com second try")
	second := expect(`approve ([a-z2-7]{10})`)[1]
	send("home")
	expect(`mailbot home for UBOB \(you may ask for operations; an admin decides\)\nYour pending requests: 1\n  ` + second + `  UBOB asks to add mailbox bob@example.com; reason: second try`)
	send("as UADMIN2")
	send("home")
	expect(`mailbot home for UADMIN2 \(you are a mailbot admin\)\nPending requests: 1\n  ` + second + ` `)
	send("approve " + second)
	pw := expect(`(?s)\[ops\] Request ` + second + ` \(done\): Approved by UADMIN2.*?\[to UBOB, only them\]\n.*?  Password: (\S+)\n`)[1]
	send("audit")
	m := expect(`Audit trail of this session: (\d+) entries\n((?:  .*\n){4})`)
	if err := p.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(e2eWait); code != 0 {
		t.Errorf("shell at end of input: exit status %d, want 0", code)
	}
	if m[1] != "4" {
		t.Errorf("the session's audit trail has %s entries, want 4: the register, the cancel, the approval and the add", m[1])
	}
	want := []*regexp.Regexp{
		regexp.MustCompile(`^  \S+ \S+  run  register example.com by USHELL: ok provider=pdd status=domain-activate( stage=\S+)? source=shell$`),
		regexp.MustCompile(`^  \S+ \S+  cancelled  add bob@example.com by UBOB.* provider=pdd source=shell request=` + first + `$`),
		regexp.MustCompile(`^  \S+ \S+  approved  add bob@example.com by UBOB, decided by UADMIN2 provider=pdd source=shell request=` + second + `$`),
		regexp.MustCompile(`^  \S+ \S+  run  add bob@example.com by UBOB, decided by UADMIN2: ok provider=pdd uid=\d+ source=shell request=` + second + `$`),
	}
	lines := strings.Split(strings.TrimSuffix(m[2], "\n"), "\n")
	for i, re := range want {
		if i >= len(lines) || !re.MatchString(lines[i]) {
			t.Errorf("audit line %d, oldest first, does not match %s; the trail:\n%s", i+1, re, m[2])
		}
	}
	if strings.Contains(m[2], pw) || strings.Contains(opsLines(p.stdout.String()), pw) {
		t.Errorf("the password shows in the audit trail or an ops line")
	}
}

// waitOutput waits until re matches p's stdout after offset from, or p
// exits, and returns the match and the offset after it.
func waitOutput(t *testing.T, p *proc, re *regexp.Regexp, from int) ([]string, int) {
	t.Helper()
	var m []string
	var end int
	testkit.Until(e2eWait, p.stdout.Written, func() bool {
		m, end = testkit.MatchAfter(p.stdout.String(), re, from)
		return m != nil || !p.running()
	})
	if m == nil {
		t.Fatalf("the shell's output never matched %s; after offset %d:\n%s", re, from, p.stdout.String()[from:])
	}
	return m, end
}
