package commands_test

import (
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// TestImportResumeOfAnUnsentRowHandsNoExistingMailbox: a row claimed by a
// runner that stopped before it sent the row's add (no audit entry of
// the add was begun) is run, not looked up: its mailbox, existing before
// the import, counts as already existing and is handed to nobody. Looked
// up, it counted as created and its owner got a Show button that set and
// showed the existing mailbox's password.
func TestImportResumeOfAnUnsentRowHandsNoExistingMailbox(t *testing.T) {
	api := newMailboxes("ceo@example.com")
	e := importEnv(t, api, commands.Config{})
	d, errs := e.importRows(admin1, "ceo@example.com,UADA\nnew@example.com,UADA\n", "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	is := e.store.(commands.ImportStore)
	ctx := t.Context()
	if err := is.SaveImport(ctx, *d.Import); err != nil {
		t.Fatal(err)
	}
	id := d.Import.ID
	now := e.clk.Now()
	if _, ok, err := is.LeaseImport(ctx, id, "dead", now, now.Add(-time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if st, err := is.ClaimRow(ctx, id, 0, "dead"); st != commands.RowNew || err != nil {
		t.Fatal(st, err)
	}
	e.clk.Advance(time.Minute)
	e.core.Sweep(ctx)
	rec, _, _ := is.GetImport(ctx, id)
	if rec.State != commands.ImportDone {
		t.Fatalf("import %s after the sweep", rec.State)
	}
	if got := rec.States[0].State; got != commands.RowExisting {
		t.Errorf("the existing ceo@example.com, claimed but never sent: row %s, want %s", got, commands.RowExisting)
	}
	if got := rec.States[1].State; got != commands.RowCreated {
		t.Errorf("new@example.com: row %s, want %s", got, commands.RowCreated)
	}
	for _, o := range e.msgr.handoverCalls("offer") {
		if o.View.Handover.Target() == "ceo@example.com" {
			t.Errorf("the existing ceo@example.com was offered to %s", o.View.Handover.Owner)
		}
	}
}
