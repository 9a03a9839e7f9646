package pgstore_test

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// The secret scan. The Store interface has no parameter that could carry
// a password, a verification secret or a token: requests hold the
// operation (action, domain, login, reason), people's IDs and the outcome
// in words; audit entries hold the same plus the API's status, stage, uid
// and error code. The flow keeps the secrets in the requester's reply
// alone. This test holds realistic secrets on the side while it drives
// the stores as the flow does, then dumps every table and looks for them.

// secrets are what mailbot handles and must never store: a generated
// mailbox password and a domain's verification secret, as the PDD API
// returns them.
type secrets struct {
	password, verification string
}

func newSecrets() secrets {
	return secrets{password: "Kx7#q" + rand.Text()[:11], verification: "yandex-verification: " + strings.ToLower(rand.Text())}
}

// drive runs a realistic session against s as the flow does: requests
// approved, run and audited, denied, reminded, expired.
func drive(t *testing.T, s commands.Store) {
	ctx, now := t.Context(), time.Now()
	for i, op := range []commands.Operation{
		{Action: commands.ActionAddMailbox, Domain: "example.com", Login: "ada.lovelace", Reason: "new hire"},
		{Action: commands.ActionRegisterDomain, Domain: "example.org", Reason: "the new brand"},
		{Action: commands.ActionAddMailbox, Domain: "example.com", Login: "grace.hopper", Reason: "contractor"},
	} {
		p := commands.Pending{ID: fmt.Sprintf("req-%d", i), Requester: "U0REQUESTER", Channel: "C0HELPDESK",
			Op: op, Created: now, Expires: now.Add(time.Hour)}
		must(t, s.Submit(ctx, p))
		must(t, s.Attach(ctx, p.ID, commands.MessageRef{Channel: "C0OPS", TS: fmt.Sprintf("1712345678.00010%d", i)}))
		_, _, err := s.Approve(ctx, p, "U0ADA", 1, now)
		must(t, err)
		must(t, s.AppendAudit(ctx, commands.AuditEntry{RequestID: p.ID, Event: commands.EventApproved, Actor: p.Requester,
			Deciders: []string{"U0ADA"}, Action: op.Action, Domain: op.Domain, Login: op.Login, Reason: op.Reason}))
		id, err := s.Begin(ctx, commands.AuditEntry{RequestID: p.ID, Event: commands.EventRun, Actor: p.Requester,
			Deciders: []string{"U0ADA"}, Action: op.Action, Domain: op.Domain, Login: op.Login, Reason: op.Reason})
		must(t, err)
		// The API answered; its password or verification secret went into
		// the requester's reply, and this is what the trail gets.
		result := commands.AuditEntry{Outcome: commands.OutcomeOK, UID: strconv.FormatInt(1130000000000000+int64(i), 10)}
		if op.Action == commands.ActionRegisterDomain {
			result = commands.AuditEntry{Outcome: commands.OutcomeOK, Status: "domain-not-verified", Stage: "owner-check"}
		}
		must(t, s.Complete(ctx, id, result))
		must(t, s.Finish(ctx, p.ID, commands.StateDone, "done: "+string(op.Action)+" "+op.Domain, now))
	}
	denied := commands.Pending{ID: "req-denied", Requester: "U0REQUESTER", Op: commands.Operation{
		Action: commands.ActionAddMailbox, Domain: "example.com", Login: "mallory"}, Created: now, Expires: now.Add(time.Hour)}
	_, _, err := s.End(ctx, denied, commands.StateDenied, "U0BOB", now)
	must(t, err)
	_, err = s.ClaimReminders(ctx, now, now, 0)
	must(t, err)
	_, err = s.ClaimExpired(ctx, now.Add(2*time.Hour), 0)
	must(t, err)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dump returns every row of every table of the database as JSON text.
func dump(t *testing.T, dsn string) []string {
	t.Helper()
	var rows []string
	for _, table := range query(t, dsn, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`) {
		rows = append(rows, query(t, dsn, "SELECT row_to_json(t)::text FROM "+table+" t")...)
	}
	return rows
}

func TestNoSecretInAnyTable(t *testing.T) {
	sec := newSecrets()
	dsn := pgtest.NewDatabase(t)
	drive(t, open(t, dsn))
	session := strings.Join(dump(t, dsn), "\n")
	for _, want := range []string{"ada.lovelace", "domain-not-verified", "1130000000000002", "U0ADA", "req-denied"} {
		if !strings.Contains(session, want) {
			t.Fatalf("the dump lacks %q, which was stored: the scan does not see the tables\n%s", want, session)
		}
	}
	scanForSecrets(t, sec, dsn)
}

// scanForSecrets fails t if a column of a database is named for a secret
// or a row holds one of sec.
func scanForSecrets(t *testing.T, sec secrets, dsns ...string) {
	t.Helper()
	forbidden := regexp.MustCompile(`(?i)password|passwd|secret|token|verification`)
	for _, d := range dsns {
		for _, col := range query(t, d, `SELECT table_name || '.' || column_name FROM information_schema.columns
			WHERE table_schema = 'public'`) {
			if forbidden.MatchString(col) {
				t.Errorf("column %s is named for a secret", col)
			}
		}
		for _, row := range dump(t, d) {
			for _, s := range []string{sec.password, sec.verification, "yandex-verification"} {
				if strings.Contains(row, s) {
					t.Errorf("a row holds a secret: %s", row)
				}
			}
		}
	}
}
