package bot_test

// Tests of the approval policy (docs/approvals.md): admins kept in
// a Slack user group, N-of-M approvals on two replicas sharing a
// PostgreSQL database, and reminders.

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack/slackevents"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/internal/testkit"
)

// The admin user group of the tests and people in and out of it.
const (
	mailAdmins = "SMAILADMINS"
	admin3     = "UADMIN3"
	member     = "UALICE" // in the group from the start
	leaver     = "UBOB"   // in the group, then removed
	joiner     = "UCAROL" // added to the group later
)

// groupEnv is an env whose replicas take their admins from mailAdmins
// (and admin), with members in it; it starts no replica.
func groupEnv(t testing.TB, members []string, opts ...option) *env {
	t.Helper()
	e := newEnv(t, append([]option{withApprovals(commands.ApprovalsRequests), withAdmins(admin, mailAdmins)}, opts...)...)
	e.slack.SetGroup(slackfake.Group{ID: mailAdmins, Handle: "mail-admins", Name: "Mail admins", Members: members})
	return e
}

// groupReads is how many times the group was read (usergroups.users.list).
func (e *env) groupReads() int { return len(e.slack.Calls("usergroups.users.list")) }

// waitGroupRead waits for a reading of the group after the first n, then
// until cond, which tells that the reading took effect, holds.
func (e *env) waitGroupRead(n int, what string, cond func() bool) {
	e.t.Helper()
	if err := e.slack.Wait(wait, "usergroups.users.list", func() bool { return e.groupReads() > n }); err != nil {
		e.t.Fatal(err)
	}
	if err := e.slack.Wait(wait, what, cond); err != nil {
		e.t.Fatal(err)
	}
}

// counter returns the value of a counter of reg with the given label value
// (any label), or 0.
func counter(t testing.TB, reg *metrics.Registry, name, label string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if label == "" || l.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
			if label == "" {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestGroupMembersAreAdmins(t *testing.T) {
	t.Parallel()
	e := groupEnv(t, []string{member})
	e.start()
	reads := e.groupReads()

	id, _ := e.command(member, "/maildomain", "register member.example.com")
	wantContains(t, "a member's command", e.result(id).shown(), "member.example.com", "domain-activate")
	if n := len(e.approvalRequests()); n != 0 {
		t.Errorf("a member's command posted %d approval requests, want 0: members are admins", n)
	}
	_, req := ask(t, e, leaver, "/maildomain", "register other.example.com")
	wantContains(t, "a non-member's click", decide(t, e, leaver, req, approve).shown(), "Not allowed")
	wantContains(t, "a stranger's click", decide(t, e, stranger, req, approve).shown(), "Not allowed")
	wantContains(t, "a member's click", decide(t, e, member, req, approve).shown(), "Request approved")
	if n := e.sim.Requests(pddsim.OpRegisterDomain); n != 2 {
		t.Errorf("sandbox saw %d registers, want 2 (the member's command and the approved request)", n)
	}
	if n := e.groupReads(); n != reads {
		t.Errorf("%d readings of the group while deciding, want none: membership comes from memory", n-reads)
	}
}

// TestGroupMembershipChange changes the group's members and tells mailbot
// with subteam_members_changed, in the shape slack-go parses and in the
// documentation's shape (counts as strings), which slack-go cannot parse:
// both are acknowledged, and the next clicks follow the new members
// without a restart. Without an event, the periodic reading does it.
func TestGroupMembershipChange(t *testing.T) {
	t.Parallel()
	unparsable := `{"type":"subteam_members_changed","subteam_id":"` + mailAdmins + `","team_id":"` + slackfake.TeamID +
		`","date_previous_update":1446670362,"date_update":1492906952,"added_users":["` + joiner + `"],"added_users_count":"1",` +
		`"removed_users":["` + leaver + `"],"removed_users_count":"1","event_ts":"1492906952.000000"}`
	if _, err := slackevents.ParseEvent(json.RawMessage(`{"type":"event_callback","event":`+unparsable+`}`), slackevents.OptionNoVerifyToken()); err == nil {
		t.Fatal("slack-go parses the string-counts event: the test would not test what it says")
	}
	for name, tc := range map[string]struct {
		send  func(e *env) (string, error)
		every time.Duration // the periodic reading
	}{
		"parsed": {send: func(e *env) (string, error) {
			return e.slack.SubteamMembersChanged(mailAdmins, []string{joiner}, []string{leaver})
		}},
		"unparsable": {send: func(e *env) (string, error) {
			e.slack.SetGroupMembers(mailAdmins, member, joiner)
			return e.slack.RawEvent(unparsable)
		}},
		"no event, the periodic reading": {every: 20 * time.Millisecond, send: func(e *env) (string, error) {
			e.slack.SetGroupMembers(mailAdmins, member, joiner)
			return "", nil
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := groupEnv(t, []string{member, leaver}, withGroupRefresh(cmp.Or(tc.every, time.Hour)))
			r := e.start()
			_, req := ask(t, e, stranger, "/maildomain", "register example.com")
			reads := e.groupReads()

			id, err := tc.send(e)
			if err != nil {
				t.Fatal(err)
			}
			if id != "" {
				waitAckFrom(t, e, r, id)
			}
			e.waitGroupRead(reads, "the new members in effect", func() bool { return r.core.IsAdmin(joiner) && !r.core.IsAdmin(leaver) })

			wantContains(t, "the removed member's click", decide(t, e, leaver, req, approve).shown(), "Not allowed")
			if n := e.sim.Requests(""); n != 0 {
				t.Errorf("the removed member's click reached the PDD API (%d requests)", n)
			}
			wantContains(t, "the added member's click", decide(t, e, joiner, req, approve).shown(), "Request approved")
			if n := e.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
				t.Errorf("sandbox saw %d registers, want 1", n)
			}
			if !r.bot.Ready() {
				t.Error("the bot is not ready after the event")
			}
		})
	}
}

// TestGroupUnreadableAtStart: a group that cannot be read stops start-up
// with one line naming MAILBOT_ADMINS, the group and the reason.
func TestGroupUnreadableAtStart(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"plan_upgrade_required", "missing_scope", "no_such_subteam"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withAdmins(admin, mailAdmins))
			if code != "no_such_subteam" {
				e.slack.SetGroup(slackfake.Group{ID: mailAdmins, Handle: "mail-admins", Members: []string{member}})
				e.slack.SetGroupError(mailAdmins, code)
			}
			_, err := e.tryStart()
			if err == nil {
				t.Fatal("start-up succeeded with a group it cannot read")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "MAILBOT_ADMINS") {
				t.Errorf("start-up error %q, want one line that starts with MAILBOT_ADMINS", msg)
			}
			wantContains(t, "start-up error", msg, mailAdmins, code)
			if n := e.slack.Socket.Connects(); n != 0 {
				t.Errorf("%d Socket Mode connections, want none: mailbot must not start", n)
			}
		})
	}
}

// TestGroupRefreshFailureKeepsMembers: a reading that fails after start
// keeps the last known members and counts the failure; the next good
// reading takes effect.
func TestGroupRefreshFailureKeepsMembers(t *testing.T) {
	t.Parallel()
	e := groupEnv(t, []string{member})
	r := e.start()
	_, first := ask(t, e, stranger, "/maildomain", "register first.example.com")
	_, second := ask(t, e, stranger, "/maildomain", "register second.example.com")
	const failures = "mailbot_usergroup_refresh_total"

	e.slack.SetGroupError(mailAdmins, "internal_error")
	reads := e.groupReads()
	if _, err := e.slack.SubteamMembersChanged(mailAdmins, nil, []string{member}); err != nil {
		t.Fatal(err)
	}
	e.waitGroupRead(reads, "the failure counted", func() bool { return counter(t, r.reg, failures, "failed") == 1 })
	wantContains(t, "a kept member's click", decide(t, e, member, first, approve).shown(), "Request approved")
	if n := e.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Errorf("sandbox saw %d registers, want 1", n)
	}

	e.slack.SetGroupError(mailAdmins, "")
	reads = e.groupReads()
	if _, err := e.slack.SubteamMembersChanged(mailAdmins, nil, nil); err != nil {
		t.Fatal(err)
	}
	e.waitGroupRead(reads, "the good reading counted", func() bool { return counter(t, r.reg, failures, "ok") == 1 })
	wantContains(t, "the removed member's click", decide(t, e, member, second, approve).shown(), "Not allowed")
	if n := e.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Errorf("sandbox saw %d registers after the removed member's click, want 1", n)
	}
}

// quorum starts two replicas on one database that need two approvals of
// three admins.
func quorum(t *testing.T) *replicas {
	return newReplicas(t, pgtest.NewDatabase(t), withApprovals(commands.ApprovalsRequests),
		withAdmins(admin, admin2, admin3), withApprovalsRequired(2))
}

// TestQuorumTwoApprovals: the first approval updates the message and runs
// nothing, the same admin again (on the other replica) counts once, and a
// second admin's approval runs the operation.
func TestQuorumTwoApprovals(t *testing.T) {
	t.Parallel()
	rs := quorum(t)
	_, req := ask(t, rs.env, stranger, "/maildomain", "register example.com")
	wantContains(t, "request message", req.msg.shown(), "2 different admins")

	// The same admin on both replicas at once, then again: counted once.
	var answers []string
	for _, id := range clickAll(t, rs.env, req, approve, clicker{rs.r1, admin}, clicker{rs.r2, admin}) {
		answers = append(answers, rs.result(id).shown())
	}
	slices.Sort(answers) // "Already counted" < "Approval counted"
	wantContains(t, "one of the first approvals", answers[0], "Already counted", "1 of 2 approvals")
	wantContains(t, "the other first approval", answers[1], "Approval counted", "1 of 2 approvals")
	counted := rs.waitUpdate(req, 1)
	wantContains(t, "the message after one approval", counted.shown(), "1 of 2 approvals: <@"+admin+">")
	if !counted.HasButtons() {
		t.Error("the message lost its buttons after one approval of two")
	}
	wantContains(t, "the same admin again", decideVia(t, rs.env, clicker{rs.r2, admin}, req, approve), "Already counted", "1 of 2 approvals")
	if n, u := rs.sim.Requests(""), len(rs.updates(req)); n != 0 || u != 1 {
		t.Errorf("before the second admin: %d PDD requests (want 0), %d updates (want 1)", n, u)
	}

	wantContains(t, "the second admin", decideVia(t, rs.env, clicker{rs.r2, admin2}, req, approve), "Request approved")
	if n := rs.sim.Requests(pddsim.OpRegisterDomain); n != 1 {
		t.Errorf("sandbox saw %d registers, want 1", n)
	}
	final := rs.waitUpdate(req, 2)
	if final.HasButtons() || len(rs.updates(req)) != 2 {
		t.Errorf("%d updates, the last with buttons %v; want 2, the last without", len(rs.updates(req)), final.HasButtons())
	}
	wantContains(t, "the message after the run", final.shown(), "Approved by <@"+admin+"> and <@"+admin2+">", "domain-activate")
	st := rs.stores[0]
	for ev, want := range map[commands.Event]int{commands.EventApproval: 1, commands.EventApproved: 1, commands.EventRun: 1} {
		if n := auditCount(t, st, ev, "", "example.com"); n != want {
			t.Errorf("%d %s entries in the audit trail, want %d", n, ev, want)
		}
	}
}

// TestQuorumDenyAfterOneApproval: one Deny ends a request that has one
// approval of two.
func TestQuorumDenyAfterOneApproval(t *testing.T) {
	t.Parallel()
	rs := quorum(t)
	_, req := ask(t, rs.env, stranger, "/maildomain", "register example.com")
	wantContains(t, "the first approval", decideVia(t, rs.env, clicker{rs.r1, admin}, req, approve), "Approval counted")

	wantContains(t, "the deny", decideVia(t, rs.env, clicker{rs.r2, admin2}, req, deny), "Request denied")
	denied := rs.waitUpdate(req, 2)
	if denied.HasButtons() {
		t.Error("the denied request still offers buttons")
	}
	wantContains(t, "the denied request", denied.shown(), "Denied by <@"+admin2+">")
	wantContains(t, "the requester's news", callMessage(t, rs.waitEphemeral(stranger, 1)).shown(), "denied")
	wantContains(t, "a later approval", decideVia(t, rs.env, clicker{rs.r1, admin3}, req, approve), "Already decided", "denied")
	if n, u := rs.sim.Requests(""), len(rs.updates(req)); n != 0 || u != 2 {
		t.Errorf("after the deny: %d PDD requests (want 0), %d updates (want 2)", n, u)
	}
}

// TestQuorumConcurrentLastApprovals: after one approval, two more admins
// approve at once on the two replicas; the operation runs once. Repeated
// on three requests to give the race its chances.
func TestQuorumConcurrentLastApprovals(t *testing.T) {
	t.Parallel()
	rs := quorum(t)
	for _, d := range []string{"q1.example.com", "q2.example.com", "q3.example.com"} {
		_, req := ask(t, rs.env, stranger, "/maildomain", "register "+d)
		wantContains(t, "the first approval", decideVia(t, rs.env, clicker{rs.r2, admin}, req, approve), "Approval counted")
		oneApproved(t, rs.env, clickAll(t, rs.env, req, approve, clicker{rs.r1, admin2}, clicker{rs.r2, admin3}))
		if n := auditCount(t, rs.stores[0], commands.EventRun, "", d); n != 1 {
			t.Errorf("%s: %d runs in the audit trail, want 1", d, n)
		}
		if final := rs.waitUpdate(req, 2); final.HasButtons() || len(rs.updates(req)) != 2 {
			t.Errorf("%s: %d updates, the last with buttons %v; want 2, the last without", d, len(rs.updates(req)), final.HasButtons())
		}
	}
	if n := rs.sim.Requests(pddsim.OpRegisterDomain); n != 3 {
		t.Errorf("sandbox saw %d registers, want 3 (one per request)", n)
	}
}

// TestRemindOncePerRequest: with two replicas sweeping, a request pending
// past the reminder time gets one reply in its thread mentioning the
// admins (users and the group); one denied before then gets none.
func TestRemindOncePerRequest(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	clk := testkit.NewClock(epoch)
	sp1, sp2 := &sweepSpy{Store: openStore(t, dsn)}, &sweepSpy{Store: openStore(t, dsn)}
	e := groupEnv(t, []string{member}, withStore(sp1), withClock(clk.Now), withRemind(time.Hour), withSweep(20*time.Millisecond))
	r1, r2 := e.start(), e.start(withStore(sp2))
	_, late := ask(t, e, stranger, "/maildomain", "register late.example.com")
	_, decided := ask(t, e, stranger, "/maildomain", "register decided.example.com")
	wantContains(t, "the deny", decideVia(t, e, clicker{r2, admin}, decided, deny), "Request denied")
	reminders := func(s *sweepSpy) int64 { return s.reminders.Load() }
	clk.Advance(time.Hour - time.Second)
	waitSweeps(t, e, 2, reminders, sp1, sp2)
	if n := len(e.slack.Replies(ops, late.call.TS)); n != 0 {
		t.Fatalf("%d replies in the thread before the reminder time, want 0", n)
	}

	clk.Advance(time.Second)
	if err := e.slack.Wait(wait, "the reminder", func() bool { return len(e.slack.Replies(ops, late.call.TS)) > 0 }); err != nil {
		t.Fatal(err)
	}
	waitSweeps(t, e, 3, reminders, sp1, sp2)
	replies := e.slack.Replies(ops, late.call.TS)
	if len(replies) != 1 {
		t.Fatalf("%d replies in the thread of the request, want 1", len(replies))
	}
	wantContains(t, "the reminder", replies[0].Text, "<@"+admin+">", "<!subteam^"+mailAdmins+">", "late.example.com")
	if n := len(e.slack.Replies(ops, decided.call.TS)); n != 0 {
		t.Errorf("%d replies in the thread of the denied request, want 0", n)
	}
	if n := len(e.slack.Messages(ops)); n != 2 {
		t.Errorf("%d top-level messages in the ops channel, want 2 (the requests): the reminder goes in the thread", n)
	}
	if n := counter(t, r1.reg, "mailbot_reminders_total", "") + counter(t, r2.reg, "mailbot_reminders_total", ""); n != 1 {
		t.Errorf("mailbot_reminders_total: %v over both replicas, want 1", n)
	}
}
