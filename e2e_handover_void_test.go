package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// dmText is the new hire's direct message at ts as it reads now: its
// blocks.
func (w *world) dmText(ts string) string {
	for _, m := range w.fake.Messages(e2eNewHireDM) {
		if m.TS == ts {
			b, err := json.Marshal(m.Blocks)
			if err != nil {
				w.t.Fatal(err)
			}
			return string(b)
		}
	}
	return ""
}

// testE2EHandoverVoided: two replicas on one database. A hand-over offered
// on one replica is voided by a later reset for someone else on the
// other: its message says it was replaced, and its owner's click, on
// either replica, sets no password. A hand-over voided by a block is
// refused the same way, its message saying the mailbox was blocked.
func testE2EHandoverVoided(t *testing.T, bin string, cluster *pgtest.Cluster) {
	dsn := cluster.NewDatabase(t)
	w := handoverWorld(t, bin)
	ps := w.serveTogether(w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn}), "a", "b")
	a, b := w.fake.Via(ps[0].conn), w.fake.Via(ps[1].conn)
	id, _ := w.command(a, e2eAdmin1, "/mailbox", "add "+e2eHireAddr+" for <@"+e2eNewHire+">")
	w.result(id)
	ts, value := w.offer(1)
	id, _ = w.command(b, e2eAdmin1, "/mailbox", "reset "+e2eHireAddr+" for <@"+e2eAdmin2+"> taking over")
	w.result(id)
	edits := w.edits()
	for _, via := range []struct {
		name string
		p    int
	}{{"the offering replica", 0}, {"the other replica", 1}} {
		got := w.show(w.fake.Via(ps[via.p].conn), e2eNewHire, ts, value)
		if !strings.Contains(got, "replaced") || w.edits() != edits {
			t.Errorf("the first owner's click on %s after a reset for someone else: %d edits, answer:\n%s", via.name, w.edits()-edits, got)
		}
	}
	if text := w.dmText(ts); !strings.Contains(text, "replaced") {
		t.Errorf("the voided hand-over's message: %q; want it to say it was replaced", text)
	}
	id, _ = w.command(a, e2eAdmin1, "/mailbox", "reset "+e2eHireAddr+" for <@"+e2eNewHire+"> back again")
	w.result(id)
	ts, value = w.offer(2)
	id, _ = w.command(b, e2eAdmin1, "/mailbox", "block "+e2eHireAddr)
	w.result(id)
	edits = w.edits()
	if got := w.show(b, e2eNewHire, ts, value); !strings.Contains(got, "blocked") || w.edits() != edits {
		t.Errorf("a click after a block: %d edits, answer:\n%s", w.edits()-edits, got)
	}
	if text := w.dmText(ts); !strings.Contains(text, "blocked") {
		t.Errorf("the message of a hand-over voided by a block: %q", text)
	}
	// Voided: the first by the reset for someone else, theirs by the reset
	// back for the new hire, the new hire's second by the block.
	voided := func() float64 {
		return metric(ps[0], "mailbot_handovers_total", `event="voided"`) + metric(ps[1], "mailbot_handovers_total", `event="voided"`)
	}
	if err := w.fake.Wait(e2eWait, "the voided hand-overs counted", func() bool { return voided() == 3 }); err != nil {
		t.Errorf("mailbot_handovers_total{event=\"voided\"} on both replicas: %v, want 3", voided())
	}
	scanDatabase(t, dsn, w)
}
