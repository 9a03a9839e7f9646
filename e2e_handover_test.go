package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// The new hire of the hand-over scenarios, and their direct message with
// the bot as the fake's conversations.open names it.
const (
	e2eNewHire   = "UNEWHIRE"
	e2eNewHireDM = "DNEWHIRE"
	e2eHireAddr  = "newhire@example.com"
)

// handoverWorld is a world where the new hire is a member with a
// confirmed e-mail, and example.com is the bot's.
func handoverWorld(t *testing.T, bin string) *world {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	w.fake.SetUser(slackfake.User{ID: e2eNewHire, Email: "NewHire@example.com", EmailConfirmed: true})
	return w
}

// offer waits for the nth direct message with Show my password to the new
// hire (from 1) and returns its ts and the button's value.
func (w *world) offer(n int) (ts, value string) {
	w.t.Helper()
	err := w.fake.Wait(e2eWait, "the hand-over's direct message", func() bool {
		seen := 0
		for _, c := range w.fake.Calls("chat.postMessage") {
			if c.Form.Get("channel") != e2eNewHireDM || !w.fake.HasMessage(e2eNewHireDM, c.TS) {
				continue
			}
			if v, ok := callMsg(c).Button("mailbot_handover", "show"); ok {
				seen++
				if seen == n {
					ts, value = c.TS, v
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return ts, value
}

// show clicks Show my password as user through via and returns the answer.
func (w *world) show(via slackfake.Sender, user, ts, value string) string {
	w.t.Helper()
	id, err := via.Click(user, e2eNewHireDM, ts, "mailbot_handover", "show", value)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(id, e2eWait); err != nil {
		w.t.Fatal(err)
	}
	return w.result(id).shown()
}

// edits is how many email/edit requests (resets) reached the sandbox.
func (w *world) edits() int { return w.sim.Requests(pddsim.OpEditMailbox) }

// testE2EHandover: from the built binary without a database, a new
// mailbox's password goes to the new hire alone: the admin's reply and
// the ops channel say whom it went to; a stranger's click and a second
// click change nothing; after a restart the message read back refuses the
// click. With self-service on, the new hire resets their own password,
// once in ten minutes; a stranger's reset of their mailbox is refused.
func testE2EHandover(t *testing.T, bin string) {
	w := handoverWorld(t, bin)
	env := w.env(map[string]string{"MAILBOT_SELF_SERVICE": "reset", "MAILBOT_HANDOVER_TTL": "1h"})
	p := w.serve("mailbot", env)
	id, _ := w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "add "+e2eHireAddr+" for <@"+e2eNewHire+"|new.hire> first day")
	if got := w.result(id).shown(); !strings.Contains(got, "Credentials for") {
		t.Fatalf("the admin's reply:\n%s", got)
	}
	created, _ := w.sim.Mailbox(e2eHireAddr)
	ts, value := w.offer(1)
	if got := w.show(w.fake.Via(0), e2eUser, ts, value); !strings.Contains(got, "Not yours") || w.edits() != 0 {
		t.Fatalf("a stranger's click: %d edits, answer:\n%s", w.edits(), got)
	}
	if got := w.show(w.fake.Via(0), e2eNewHire, ts, value); !strings.Contains(got, "Your password for "+e2eHireAddr) {
		t.Fatalf("the new hire's click:\n%s", got)
	}
	pw, _ := w.sim.Mailbox(e2eHireAddr)
	w.seenOnlyBy("the handed-over password", pw, e2eNewHire)
	if v := w.fake.Texts(); countContaining(append(v.Private, v.Public...), created) != 0 {
		t.Error("the password set at creation was shown to someone")
	}
	if got := w.show(w.fake.Via(0), e2eNewHire, ts, value); !strings.Contains(got, "Already used") || w.edits() != 1 {
		t.Errorf("a second click: %d edits, answer:\n%s", w.edits(), got)
	}
	if err := w.fake.Wait(e2eWait, "the hand-over metrics", func() bool {
		return metric(p, "mailbot_handovers_total", `event="offered"`) == 1 && metric(p, "mailbot_handovers_total", `event="shown"`) == 1 &&
			metric(p, "mailbot_handovers_total", `event="refused"`) == 2
	}); err != nil {
		t.Errorf("hand-over metrics: offered %v, shown %v, refused %v; want 1, 1 and 2", metric(p, "mailbot_handovers_total", `event="offered"`),
			metric(p, "mailbot_handovers_total", `event="shown"`), metric(p, "mailbot_handovers_total", `event="refused"`))
	}
	p.term()
	p.wait(e2eWait)
	p2 := w.serve("restarted", env)
	if got := w.show(w.fake.Via(p2.conn), e2eNewHire, ts, value); !strings.Contains(got, "Already used") || w.edits() != 1 {
		t.Errorf("a click after a restart: %d edits, answer:\n%s", w.edits(), got)
	}
	handoverSelfService(t, w, p2)
}

// handoverSelfService: the new hire resets their own password and alone
// sees it; a second try within ten minutes and a stranger's reset of their
// mailbox are refused without a provider call.
func handoverSelfService(t *testing.T, w *world, p *proc) {
	id, _ := w.command(w.fake.Via(p.conn), e2eNewHire, "/mailbox", "reset")
	if got := w.result(id).shown(); !strings.Contains(got, "Show my password") {
		t.Fatalf("self-service reset:\n%s", got)
	}
	ts, value := w.offer(2)
	if got := w.show(w.fake.Via(p.conn), e2eNewHire, ts, value); !strings.Contains(got, "Your password for "+e2eHireAddr) {
		t.Fatalf("the self-service click:\n%s", got)
	}
	pw, _ := w.sim.Mailbox(e2eHireAddr)
	w.seenOnlyBy("the self-service password", pw, e2eNewHire)
	edits := w.edits()
	id, _ = w.command(w.fake.Via(p.conn), e2eNewHire, "/mailbox", "reset")
	if got := w.result(id).shown(); !strings.Contains(got, "Too soon") {
		t.Errorf("a second self-service reset within ten minutes:\n%s", got)
	}
	id, _ = w.command(w.fake.Via(p.conn), e2eUser, "/mailbox", "reset "+e2eHireAddr)
	if got := w.result(id).shown(); !strings.Contains(got, "Not allowed") {
		t.Errorf("a stranger's reset of the new hire's mailbox:\n%s", got)
	}
	if w.edits() != edits {
		t.Errorf("refused self-service reached the sandbox: %d edits", w.edits()-edits)
	}
}

// testE2EHandoverReplicas: two replicas on one database; the new hire's
// Show clicked at once on both, with a stranger's on both, sets one
// password, shown once, to the new hire alone; the trail says who got
// the credentials; no table holds a password.
func testE2EHandoverReplicas(t *testing.T, bin string, cluster *pgtest.Cluster) {
	dsn := cluster.NewDatabase(t)
	w := handoverWorld(t, bin)
	env := w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn})
	ps := w.serveTogether(env, "a", "b")
	id, _ := w.command(w.fake.Via(ps[0].conn), e2eAdmin1, "/mailbox", "add "+e2eHireAddr+" for <@"+e2eNewHire+">")
	w.result(id)
	ts, value := w.offer(1)
	answers := make([]string, 4)
	clickers := []struct {
		user string
		p    *proc
	}{{e2eNewHire, ps[0]}, {e2eNewHire, ps[1]}, {e2eUser, ps[0]}, {e2eUser, ps[1]}}
	var fns []func()
	for i, c := range clickers {
		fns = append(fns, func() { answers[i] = w.show(w.fake.Via(c.p.conn), c.user, ts, value) })
	}
	concurrently(fns...)
	shown := 0
	for i, a := range answers {
		if strings.Contains(a, "Your password for") {
			shown++
			if clickers[i].user != e2eNewHire {
				t.Errorf("%s was shown the password", clickers[i].user)
			}
		}
	}
	if shown != 1 || w.edits() != 1 {
		t.Fatalf("concurrent clicks on two replicas: shown %d times, %d edits; want 1 and 1\n%q", shown, w.edits(), answers)
	}
	pw, _ := w.sim.Mailbox(e2eHireAddr)
	w.seenOnlyBy("the handed-over password", pw, e2eNewHire)
	if got := w.show(w.fake.Via(ps[1].conn), e2eNewHire, ts, value); !strings.Contains(got, "Already used") || w.edits() != 1 {
		t.Errorf("a later click: %d edits, answer:\n%s", w.edits(), got)
	}
	out := auditCLI(t, w, dsn, "--since", "1h")
	if !strings.Contains(out, "handover_shown") || !strings.Contains(out, "handed_to="+e2eNewHire) {
		t.Errorf("mailbot audit does not show the hand-over:\n%s", out)
	}
	if events := checkEveryEntryNamed(t, w, dsn, "pdd", "slack"); !slices.Contains(events, "handover_shown") {
		t.Errorf("mailbot audit --json: events %q, want a handover_shown", events)
	}
	scanDatabase(t, dsn, w)
}
