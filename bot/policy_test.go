package bot_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/internal/testkit"
)

const adminGroup = "SADMINS"

// TestGroupAdmins: the members of an admin user group are admins, and a
// member removed (subteam_members_changed) is not, without a restart.
func TestGroupAdmins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdmins(adminGroup))
	e.slack.SetGroup(slackfake.Group{ID: adminGroup, Handle: "mail-admins", Members: []string{"UGROUPIE"}})
	r := e.start()
	id, _ := e.command("UGROUPIE", "/maildomain", "register example.com")
	wantContains(t, "a member's register", e.result(id).shown(), "registered")
	_, ack := e.command(stranger, "/maildomain", "register example.org")
	wantContains(t, "a non-member's register", ackMessage(t, ack).shown(), "Not allowed")

	ev, err := e.slack.SubteamMembersChanged(adminGroup, nil, []string{"UGROUPIE"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.slack.Socket.WaitAck(ev, wait); err != nil {
		t.Fatal(err)
	}
	if _, err := e.slack.WaitCalls("usergroups.users.list", 2, wait); err != nil {
		t.Fatal(err)
	}
	if err := e.slack.Wait(wait, "the group read again", func() bool { return !r.core.IsAdmin("UGROUPIE") }); err != nil {
		t.Fatal(err)
	}
	_, ack = e.command("UGROUPIE", "/maildomain", "register example.net")
	wantContains(t, "a removed member's register", ackMessage(t, ack).shown(), "Not allowed")
	if n := e.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Errorf("the API saw %d registers, want 1 (the member's, before the change)", n)
	}
}

// TestUnreadableGroupStopsStart: a group that cannot be read stops the
// start with the reason, naming MAILBOT_ADMINS.
func TestUnreadableGroupStopsStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdmins(admin, adminGroup))
	e.slack.SetGroupError(adminGroup, "plan_upgrade_required")
	_, err := e.tryStart()
	var ge *bot.GroupError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "MAILBOT_ADMINS") || !strings.Contains(err.Error(), "plan_upgrade_required") {
		t.Errorf("start-up error %v, want a GroupError naming MAILBOT_ADMINS and plan_upgrade_required", err)
	}
}

// TestTwoApprovalsOverSlack: with two approvals required, the first
// updates the request message ("1 of 2"), the same admin again counts
// once, and the second admin's approval runs the operation once.
func TestTwoApprovalsOverSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withAdmins(admin, admin2, "UADMIN3"), withApprovalsRequired(2))
	h.ownDomain("example.com")
	_, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")

	wantContains(t, "first approval", decide(t, h.env, admin, req, approve).shown(), "Approval counted", "1 of 2")
	counted := h.waitUpdate(req, 1)
	if !counted.HasButtons() {
		t.Error("the request lost its buttons after one approval of two")
	}
	wantContains(t, "request after one approval", counted.shown(), "1 of 2 approvals: <@"+admin+">")
	wantContains(t, "same admin again", decide(t, h.env, admin, req, approve).shown(), "Already counted")
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Fatalf("%d email/add after one admin's approvals, want 0", n)
	}
	wantContains(t, "second admin", decide(t, h.env, admin2, req, approve).shown(), "Request approved")
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("%d email/add, want 1", n)
	}
	done := callMessage(t, h.updates(req)[len(h.updates(req))-1])
	wantContains(t, "request after the run", done.shown(), "Approved by <@"+admin+"> and <@"+admin2+">")
	if done.HasButtons() {
		t.Error("the request still offers buttons after the run")
	}
	wantContains(t, "a third approval", decide(t, h.env, "UADMIN3", req, approve).shown(), "Already decided")
}

// TestOneReminderPerRequest: a request still pending after the reminder
// delay gets one reply in its thread that mentions the admins, users and
// groups; a request decided in time gets none.
func TestOneReminderPerRequest(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(epoch)
	spy := &spyStore{Store: memstore.New(memstore.Options{})}
	e := newEnv(t, withStore(spy), withApprovals(commands.ApprovalsRequests), withAdmins(admin, adminGroup), withClock(clk.Now),
		withRemind(time.Hour), withSweep(20*time.Millisecond))
	e.slack.SetGroup(slackfake.Group{ID: adminGroup, Handle: "mail-admins", Members: []string{admin2}})
	e.start()
	_, forgotten := ask(t, e, stranger, "/maildomain", "register example.com")
	_, decided := ask(t, e, stranger, "/maildomain", "register example.org")
	decide(t, e, admin2, decided, deny)
	clk.Advance(time.Hour + time.Minute)
	if err := e.slack.Wait(wait, "a reminder", func() bool { return len(e.slack.Replies(ops, forgotten.call.TS)) > 0 }); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour) // more sweeps: nothing more
	swept := spy.claims.Load()
	if err := e.slack.Wait(wait, "two more whole sweeps", func() bool { return spy.claims.Load() >= swept+3 }); err != nil {
		t.Fatal(err)
	}
	replies := e.slack.Replies(ops, forgotten.call.TS)
	if len(replies) != 1 {
		t.Fatalf("%d replies in the request's thread, want 1", len(replies))
	}
	wantContains(t, "reminder", replies[0].Text, "<@"+admin+">", "<!subteam^"+adminGroup+">", "register domain example.com")
	if n := len(e.slack.Replies(ops, decided.call.TS)); n != 0 {
		t.Errorf("%d reminders for a request decided in time, want 0", n)
	}
}

// TestGroupRefreshedWithoutEvent: a membership change that no event told
// of takes effect at the next periodic reading of the group.
func TestGroupRefreshedWithoutEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withAdmins(adminGroup), withGroupRefresh(20*time.Millisecond))
	e.slack.SetGroup(slackfake.Group{ID: adminGroup, Handle: "mail-admins", Members: []string{"UGROUPIE"}})
	r := e.start()
	e.slack.SetGroupMembers(adminGroup, admin2)
	if err := e.slack.Wait(wait, "the group read again", func() bool { return r.core.IsAdmin(admin2) }); err != nil {
		t.Fatal(err)
	}
	_, ack := e.command("UGROUPIE", "/maildomain", "register example.com")
	wantContains(t, "a former member's register", ackMessage(t, ack).shown(), "Not allowed")
	id, _ := e.command(admin2, "/maildomain", "register example.com")
	wantContains(t, "a new member's register", e.result(id).shown(), "registered")
}
