package commands_test

import (
	"context"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// TestImportBundleFollowsLaterOwner: the requester's Show button of an
// import's rows without an owner sets no password on a row's mailbox
// that was handed to someone else, reset, blocked or offboarded after
// the import: its credentials follow the mailbox's latest owner, as a
// hand-over of one mailbox does.
func TestImportBundleFollowsLaterOwner(t *testing.T) {
	api := newMailboxes()
	e := importEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests})
	d, errs := e.importRows(user1, "bob@example.com\ncarl@example.com\ndora@example.com", "new office")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if label := e.core.Execute(t.Context(), commands.Route{User: user1, Channel: "C1"}, d); label != commands.LabelRequested {
		t.Fatalf("import by a member: %q", label)
	}
	post, _ := e.msgr.last("post")
	e.click(commands.ButtonApprove, *d.Pending, admin1, post.Ref)
	var bundle commands.HandoverView
	for _, o := range e.msgr.handoverCalls("offer") {
		if o.View.Handover.Owner == user1 {
			bundle = o.View
		}
	}
	if bundle.Value == "" {
		t.Fatal("no hand-over of the rows without an owner to the requester")
	}
	// Later, an admin hands bob's mailbox to its person and resets carl's.
	if _, label := e.typed(admin1, "/mailbox reset bob@example.com for <@"+newHire+">"); label == commands.LabelError {
		t.Fatalf("hand-over of bob: %q", label)
	}
	if _, label := e.typed(admin1, "/mailbox reset carl@example.com"); label == commands.LabelError {
		t.Fatalf("reset of carl: %q", label)
	}
	api.mu.Lock()
	before := map[string]int{"bob@example.com": api.sets["bob@example.com"], "carl@example.com": api.sets["carl@example.com"], "dora@example.com": api.sets["dora@example.com"]}
	api.mu.Unlock()
	mark := e.msgr.mark()
	e.core.Click(t.Context(), commands.Click{Kind: commands.ButtonShow, Value: bundle.Value, User: user1, Route: commands.Route{User: user1, Channel: "D1"}})
	shown := map[string]bool{}
	for _, c := range e.msgr.since(mark) {
		for _, f := range c.Reply.Fields {
			if f.Label == "Address" {
				shown[f.Value] = true
			}
		}
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, a := range []string{"bob@example.com", "carl@example.com"} {
		if shown[a] || api.sets[a] != before[a] {
			t.Errorf("the import's requester was given %s (shown %v, passwords set %d→%d) after it changed hands", a, shown[a], before[a], api.sets[a])
		}
	}
	if !shown["dora@example.com"] || api.sets["dora@example.com"] != before["dora@example.com"]+1 {
		t.Errorf("dora@example.com, untouched since the import, was not shown to its requester (shown %v)", shown["dora@example.com"])
	}
}

// hookedMailboxes is mailboxes that calls during, once, as it adds the
// mailbox at.
type hookedMailboxes struct {
	*mailboxes
	at     string
	during func()
}

func (h *hookedMailboxes) AddMailbox(ctx context.Context, domain, login, pw string, force bool) (*apiclient.Mailbox, error) {
	if login+"@"+domain == h.at && h.during != nil {
		f := h.during
		h.during = nil
		f()
	}
	return h.mailboxes.AddMailbox(ctx, domain, login, pw, force)
}

// TestImportBundleChangedWhileImportRuns: a row's mailbox handed to its
// person while the import still runs (after the row, before the
// requester's Show button is offered) is not set and shown by that
// button either.
func TestImportBundleChangedWhileImportRuns(t *testing.T) {
	api := &hookedMailboxes{mailboxes: newMailboxes(), at: "dora@example.com"}
	e := importEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ImportConcurrency: 1})
	api.during = func() {
		e.clk.Advance(time.Minute)
		if _, label := e.typed(admin1, "/mailbox reset bob@example.com for <@"+newHire+">"); label == commands.LabelError {
			t.Errorf("hand-over of bob during the import: %q", label)
		}
		e.clk.Advance(time.Minute)
	}
	d, errs := e.importRows(user1, "bob@example.com\ncarl@example.com\ndora@example.com", "new office")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	e.core.Execute(t.Context(), commands.Route{User: user1, Channel: "C1"}, d)
	post, _ := e.msgr.last("post")
	e.click(commands.ButtonApprove, *d.Pending, admin1, post.Ref)
	var bundle commands.HandoverView
	for _, o := range e.msgr.handoverCalls("offer") {
		if o.View.Handover.Owner == user1 {
			bundle = o.View
		}
	}
	if bundle.Value == "" {
		t.Fatal("no hand-over of the rows without an owner to the requester")
	}
	mark := e.msgr.mark()
	e.core.Click(t.Context(), commands.Click{Kind: commands.ButtonShow, Value: bundle.Value, User: user1, Route: commands.Route{User: user1, Channel: "D1"}})
	shown := map[string]bool{}
	for _, c := range e.msgr.since(mark) {
		for _, f := range c.Reply.Fields {
			if f.Label == "Address" {
				shown[f.Value] = true
			}
		}
	}
	if shown["bob@example.com"] {
		t.Error("bob@example.com, handed to its person while the import ran, was shown to the import's requester")
	}
	if !shown["carl@example.com"] || !shown["dora@example.com"] {
		t.Errorf("rows untouched since the import not shown: %v", shown)
	}
}
