package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// testE2EDatabase runs the PostgreSQL scenarios on one throwaway cluster
// (a database each), stopped when they have all ended. Without PostgreSQL
// they skip, or fail with MAILBOT_TEST_POSTGRES=required.
func testE2EDatabase(t *testing.T, bin string) {
	cluster := pgtest.Shared(t)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, bin string, cluster *pgtest.Cluster)
	}{
		{"Replicas", testE2EReplicas},
		{"QuorumRemindExpire", testE2EQuorumRemindExpire},
		{"Outage", testE2EOutage},
		{"FailedRunReopens", testE2EFailedRunReopens},
		{"OwnRole", testE2EOwnRole},
		{"AuditReadOnly", testE2EAuditReadOnly},
		{"BlipWhilePosting", testE2EBlipWhilePosting},
		{"ProviderAudit", testE2EProviderAudit},
		{"LifecycleAudit", testE2ELifecycleAudit},
		{"HandoverReplicas", testE2EHandoverReplicas},
		{"HandoverVoided", testE2EHandoverVoided},
		{"Routes", testE2ERoutes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, bin, cluster)
		})
	}
}

// testE2EReplicas is replicas on one database (docs/state.md) from the binary: two serve processes on one
// database and one Slack app. A form opened by one is submitted to the
// other; the Home tab of the other replica shows a request one replica
// took. Approve clicked at once on both sockets by
// both admins runs the add once and the requester alone gets the
// password; SIGTERM closes the socket before the work in flight ends and
// exits 0; after a restart a stale click runs nothing; `mailbot audit`
// prints the run and the decisions, and no table holds a secret.
func testE2EReplicas(t *testing.T, bin string, cluster *pgtest.Cluster) {
	dsn := cluster.NewDatabase(t)
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn, "MAILBOT_APPROVALS": "requests"})
	a := w.serve("a", env)
	b := w.serve("b", env)

	id, _ := w.command(w.fake.Via(b.conn), e2eAdmin1, "/maildomain", "register direct-domain.com")
	w.result(id)
	formOnOtherReplica(t, w, a, b)
	formed := w.sim.Requests(pddsim.OpAddMailbox) // the form's
	w.command(w.fake.Via(a.conn), e2eUser, "/mailbox", "add bob@example.com onboarding")
	req := w.waitRequest(1)
	if n := w.sim.Requests(pddsim.OpAddMailbox) - formed; n != 0 {
		t.Fatalf("a request reached the PDD API before any approval (%d adds)", n)
	}
	ev, err := w.fake.Via(b.conn).AppHomeOpened(e2eAdmin2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(ev, e2eWait); err != nil {
		t.Fatal(err)
	}
	if home, err := w.fake.WaitHome(e2eAdmin2, 1, e2eWait); err != nil || homeButtonBlock(home, e2eApprove) == "" || !strings.Contains(viewText(home), "bob@example.com") {
		t.Errorf("the Home tab published by the replica that did not take the request (%v) does not offer it:\n%s", err, viewText(home))
	}
	clickers := []struct {
		user string
		conn int
	}{{e2eAdmin1, a.conn}, {e2eAdmin2, b.conn}, {e2eAdmin2, a.conn}, {e2eAdmin1, b.conn}}
	ids, errs := make([]string, len(clickers)), make([]error, len(clickers))
	var fns []func()
	for i, c := range clickers {
		fns = append(fns, func() {
			ids[i], errs[i] = w.fake.Via(c.conn).Click(c.user, e2eOps, req.ts, e2eApprovalBlock, e2eApprove, req.value)
		})
	}
	concurrently(fns...)
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		w.result(id) // every click is answered
	}
	if upd := w.waitUpdate(req.ts, "Approved by"); upd.HasButtons() {
		t.Errorf("the approved request message still offers buttons")
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox) - formed; n != 1 {
		t.Errorf("four concurrent Approve clicks on two replicas: %d adds, want 1", n)
	}
	pw, ok := w.sim.Mailbox("bob@example.com")
	if err := w.fake.Wait(e2eWait, "the requester's result", func() bool { return ok && w.deliveredTo(e2eUser, pw) > 0 }); err != nil {
		t.Fatal(err)
	}
	w.seenOnlyBy("the approved password", pw, e2eUser)

	stopWithWorkInFlight(t, w, a)
	a2 := w.serve("a2", env)
	answer := w.result(w.click(w.fake.Via(a2.conn), e2eAdmin2, req, e2eApprove))
	if !strings.Contains(answer.shown(), "Already decided") || strings.Contains(answer.shown(), "is running") {
		// Seen before 2fa25cc: the run's end never reached the database,
		// which still said "running" (see testE2EFailedRunReopens).
		t.Errorf("a stale Approve after the restart, the run long finished, is answered:\n%s", answer.shown())
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox) - formed; n != 1 {
		t.Errorf("a stale Approve after a restart ran the request again: %d adds, want 1", n)
	}

	checkAuditCLI(t, w, dsn, []auditWant{
		{event: "run", action: "register", target: "direct-domain.com", actor: e2eAdmin1, outcome: "ok"},
		{event: "run", action: "add", target: "formed@example.com", actor: e2eAdmin1, outcome: "ok", uid: true},
		{event: "approved", action: "add", target: "bob@example.com", actor: e2eUser, deciders: 1},
		{event: "run", action: "add", target: "bob@example.com", actor: e2eUser, deciders: 1, outcome: "ok", uid: true},
		{event: "run", action: "register", target: "inflight-domain.com", actor: e2eAdmin1, outcome: "ok"},
	})
	scanDatabase(t, dsn, w)
}

// formOnOtherReplica: a form opened by one replica and submitted to the
// other runs there, its result in the channel the command was typed in.
func formOnOtherReplica(t *testing.T, w *world, opener, submitter *proc) {
	t.Helper()
	w.command(w.fake.Via(opener.conn), e2eAdmin1, "/mailbox", "")
	modal, err := w.fake.WaitModal(e2eAdmin1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.fake.Via(submitter.conn).SubmitView(e2eAdmin1, slackfake.Submission{ViewID: modal.ID, Values: []slackfake.Value{
		slackfake.Text(e2eFormUser, e2eFormValue, "formed"), slackfake.Text(e2eFormDomain, e2eFormValue, "example.com")}})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := w.fake.Socket.WaitAck(id, e2eWait); err != nil || jsonField(ack.Payload, "response_action") != "clear" {
		t.Fatalf("a form submitted to the other replica: ack %s (%v), want response_action clear", ack.Payload, err)
	}
	if err := w.fake.Wait(e2eWait, "the form's result from the other replica", func() bool {
		pw, ok := w.sim.Mailbox("formed@example.com")
		return ok && w.deliveredTo(e2eAdmin1, pw) > 0
	}); err != nil {
		t.Error(err)
	}
}

// stopWithWorkInFlight sends SIGTERM to p while a register it took is held
// in the sandbox: p closes its socket first (the fake sees the connection
// go while p still runs), then finishes the register, answers it and
// exits 0.
func stopWithWorkInFlight(t *testing.T, w *world, p *proc) {
	t.Helper()
	held, arrived := make(chan struct{}), make(chan struct{}, 1)
	release := sync.OnceFunc(func() { close(held) })
	t.Cleanup(release)
	w.sim.OnRequest(func(op pddsim.Op) {
		if op == pddsim.OpRegisterDomain {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-held
		}
	})
	defer w.sim.OnRequest(nil)
	id, _ := w.command(w.fake.Via(p.conn), e2eAdmin1, "/maildomain", "register inflight-domain.com")
	select {
	case <-arrived:
	case <-time.After(e2eWait):
		t.Fatal("the register never reached the sandbox")
	}
	p.term()
	if err := w.fake.Wait(e2eWait, p.name+"'s socket closed", func() bool {
		for _, c := range w.fake.Socket.ConnIDs() {
			if c == p.conn {
				return false
			}
		}
		return true
	}); err != nil {
		t.Error(err)
	}
	if !p.running() {
		t.Errorf("%s exited before its work in flight finished", p.name)
	}
	release()
	if code := p.wait(e2eWait); code != 0 {
		t.Errorf("%s: exit status %d after SIGTERM, want 0", p.name, code)
	}
	if res := w.result(id); !strings.Contains(res.shown(), "inflight-domain.com") || !strings.Contains(res.shown(), "registered") {
		t.Errorf("the register in flight at SIGTERM got:\n%s", res.shown())
	}
}

// e2eExpiredText is in the message that tells a requester that their
// request expired (and in no other).
const e2eExpiredText = "no admin decided it in time"

// testE2EQuorumRemindExpire is N-of-M, reminders and expiry, swept on two
// replicas: with MAILBOT_APPROVALS_REQUIRED=2 one admin approving twice
// counts once and a second admin runs the add once; requests nobody
// decides get one reminder each (mentioning the admins) and expire
// without a click: one update and one message to the requester each. The
// first request's expiry is checked after the second's, so both replicas
// swept several times after it. The replicas start together on a fresh
// database, so that their migrations race.
func testE2EQuorumRemindExpire(t *testing.T, bin string, cluster *pgtest.Cluster) {
	dsn := cluster.NewDatabase(t)
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn, "MAILBOT_APPROVALS": "requests",
		"MAILBOT_APPROVALS_REQUIRED": "2", "MAILBOT_APPROVAL_TTL": "6s", "MAILBOT_APPROVAL_REMIND": "2s"})
	replicas := w.serveTogether(env, "a", "b") // on a fresh database: both migrate at once
	a, b := replicas[0], replicas[1]

	w.command(w.fake.Via(a.conn), e2eUser, "/mailbox", "add quorum@example.com two-person rule")
	q := w.waitRequest(1)
	w.result(w.click(w.fake.Via(a.conn), e2eAdmin1, q, e2eApprove))
	w.waitUpdate(q.ts, "1 of 2 approvals")
	w.result(w.click(w.fake.Via(b.conn), e2eAdmin1, q, e2eApprove))
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Errorf("one admin approving twice ran the request (%d adds)", n)
	}
	w.result(w.click(w.fake.Via(b.conn), e2eAdmin2, q, e2eApprove))
	w.waitUpdate(q.ts, "Approved by")
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("two admins' approvals: %d adds, want 1", n)
	}

	const late1, late2 = "ULATE1", "ULATE2"
	id1, _ := w.command(w.fake.Via(a.conn), late1, "/mailbox", "add forgotten1@example.com nobody looks")
	r1 := w.waitRequest(2)
	if err := w.fake.Wait(e2eWait, "a reminder", func() bool { return len(w.fake.Replies(e2eOps, r1.ts)) > 0 }); err != nil {
		t.Fatal(err)
	}
	id2, _ := w.command(w.fake.Via(b.conn), late2, "/mailbox", "add forgotten2@example.com nobody looks either")
	r2 := w.waitRequest(3)
	w.waitUpdate(r1.ts, "Expired")
	w.waitUpdate(r2.ts, "Expired")
	for _, c := range []struct {
		req        e2eRequest
		user, envl string
	}{{r2, late2, id2}, {r1, late1, id1}} {
		if err := w.fake.Wait(e2eWait, "the expiry told to "+c.user, func() bool { return w.deliveredTo(c.user, e2eExpiredText, c.envl) > 0 }); err != nil {
			t.Error(err)
		}
		if n := w.deliveredTo(c.user, e2eExpiredText, c.envl); n != 1 {
			t.Errorf("%s was told %d times that the request expired, want once", c.user, n)
		}
		if ups := w.updates(c.req.ts); len(ups) != 1 || ups[0].HasButtons() {
			t.Errorf("%s's request message was updated %d times (want once, without buttons)", c.user, len(ups))
		}
		replies := w.fake.Replies(e2eOps, c.req.ts)
		if len(replies) != 1 {
			t.Errorf("%s's request got %d reminders, want 1", c.user, len(replies))
			continue
		}
		if text := replies[0].Text + " " + decodeMsgBlocks(replies[0].Blocks); !strings.Contains(text, "<@"+e2eAdmin1+">") || !strings.Contains(text, "<@"+e2eAdmin2+">") {
			t.Errorf("the reminder does not mention the admins: %q", text)
		}
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("%d adds, want 1: expired requests ran", n)
	}
	scanDatabase(t, dsn, w)
}

// testE2EOutage is a database outage while running (docs/state.md), through a proxy in
// front of PostgreSQL that the test cuts: mailbot stays connected, refuses
// a command with "mailbot cannot reach its database; nothing was done"
// and a click runs nothing, without a PDD call; once the database is back
// both work, once.
func testE2EOutage(t *testing.T, bin string, cluster *pgtest.Cluster) {
	proxy := pgtest.NewProxy(t, cluster.NewDatabase(t))
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	p := w.serve("mailbot", w.env(map[string]string{"MAILBOT_DATABASE_URL": proxy.DSN(), "MAILBOT_APPROVALS": "requests"}))
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add dave@example.com before the outage")
	req := w.waitRequest(1)
	if up := metric(p, "mailbot_database_up"); up != 1 {
		t.Errorf("mailbot_database_up before the outage = %v, want 1", up)
	}

	proxy.Cut()
	id, _ := w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "add carol@example.com")
	if res := w.result(id); !strings.Contains(res.shown(), "mailbot cannot reach its database; nothing was done") {
		t.Errorf("a command during the outage got:\n%s", res.shown())
	}
	if ans := w.result(w.click(w.fake.Via(0), e2eAdmin2, req, e2eApprove)); !strings.Contains(ans.shown(), "cannot reach its database") {
		t.Errorf("a click during the outage got:\n%s", ans.shown())
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Errorf("%d adds reached the PDD API during the outage, want none", n)
	}
	if up := metric(p, "mailbot_database_up"); up != 0 {
		t.Errorf("mailbot_database_up during the outage = %v, want 0", up)
	}
	if got := httpStatus(p.http + "/readyz"); got != 200 || w.fake.Socket.Connections() != 1 {
		t.Errorf("during the outage: /readyz %d and %d Slack connections, want 200 and 1", got, w.fake.Socket.Connections())
	}

	proxy.Restore()
	id, _ = w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "add carol@example.com")
	res := w.result(id)
	if pw, ok := w.sim.Mailbox("carol@example.com"); !ok || !strings.Contains(res.shown(), pw) {
		t.Errorf("the first command after the outage: mailbox exists %v; reply:\n%s", ok, res.shown())
	}
	if up := metric(p, "mailbot_database_up"); up != 1 {
		t.Errorf("mailbot_database_up after the outage = %v, want 1", up)
	}
	w.result(w.click(w.fake.Via(0), e2eAdmin2, req, e2eApprove))
	w.waitUpdate(req.ts, "Approved by")
	if _, ok := w.sim.Mailbox("dave@example.com"); !ok || w.sim.Requests(pddsim.OpAddMailbox) != 2 {
		t.Errorf("after the outage: dave exists %v, %d adds; want true, 2", ok, w.sim.Requests(pddsim.OpAddMailbox))
	}
}

// testE2EFailedRunReopens is an approval with a database: when the run of
// an approved request certainly did nothing ("unknown" after every
// attempt), the request message says so and offers Approve again, and the
// next Approve runs it, once.
func testE2EFailedRunReopens(t *testing.T, bin string, cluster *pgtest.Cluster) {
	dsn := cluster.NewDatabase(t)
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	w.serve("mailbot", w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn, "MAILBOT_APPROVALS": "requests"}))
	w.command(w.fake.Via(0), e2eUser, "/mailbox", "add erin@example.com onboarding")
	req := w.waitRequest(1)
	w.sim.FailNext(3) // mailbot makes 3 attempts (at least 3; docs/providers.md)
	w.result(w.click(w.fake.Via(0), e2eAdmin1, req, e2eApprove))
	upd := w.waitUpdate(req.ts, "can be approved again")
	value, ok := upd.Button(e2eApprovalBlock, e2eApprove)
	if !ok {
		t.Fatalf("the request message after a run that did nothing offers no Approve:\n%s", upd.shown())
	}
	failed := w.sim.Requests(pddsim.OpAddMailbox)
	answer := w.result(w.click(w.fake.Via(0), e2eAdmin2, e2eRequest{ts: req.ts, value: value}, e2eApprove))
	if _, ok := w.sim.Mailbox("erin@example.com"); !ok || w.sim.Requests(pddsim.OpAddMailbox) != failed+1 {
		// Seen before 2fa25cc: the core handed store.Finish an outcome
		// with the bot's NUL mention marks, which PostgreSQL refuses
		// (SQLSTATE 22021), so the row stayed "running": the message
		// offered Approve again, but every click answered "Already
		// decided … is running" and the request could never run.
		t.Errorf("Approve on the reopened request: mailbox exists %v, %d adds after the failed run's %d; the clicker was told:\n%s",
			ok, w.sim.Requests(pddsim.OpAddMailbox), failed, answer.shown())
	}
}

// testE2EOwnRole is the production shape of docs/state.md: mailbot logs in
// as a role with a password that owns its database, not as a superuser.
// With a wrong password serve exits 1 with one line naming
// MAILBOT_DATABASE_URL; with the right one it migrates and works, and
// `mailbot audit` reads the trail. No output holds either password.
func testE2EOwnRole(t *testing.T, bin string, cluster *pgtest.Cluster) {
	const role, db, pass, wrong = "mailbot_owner", "mailbot_owned", "SECRETDBPASS-e2e-owner", "SECRETDBPASS-e2e-wrong"
	for _, sql := range []string{"CREATE ROLE " + role + " LOGIN PASSWORD '" + pass + "'", "CREATE DATABASE " + db + " OWNER " + role} {
		if err := cluster.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = cluster.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		_ = cluster.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
	})
	dsn := func(pw string) string {
		return "postgres://" + role + ":" + pw + "@" + cluster.Addr() + "/" + db + "?sslmode=disable"
	}
	w := newWorld(t, bin)
	w.extra = append(w.extra, pass, wrong)
	w.ownDomain("example.com")

	start := time.Now()
	q := w.start("wrong password", w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn(wrong)}), "serve")
	if code := q.wait(45 * time.Second); code != 1 {
		t.Errorf("a wrong database password: exit status %d, want 1", code)
	}
	t.Logf("a wrong database password stopped serve after %s: %q", time.Since(start).Round(100*time.Millisecond), q.reasonLines())
	if lines := q.reasonLines(); len(lines) != 1 || !strings.Contains(lines[0], "MAILBOT_DATABASE_URL") {
		t.Errorf("a wrong database password: reason %q, want one line naming MAILBOT_DATABASE_URL", lines)
	}

	w.serve("mailbot", w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn(pass)}))
	id, _ := w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "add owner@example.com")
	res := w.result(id)
	if pw, ok := w.sim.Mailbox("owner@example.com"); !ok || !strings.Contains(res.shown(), pw) {
		t.Errorf("an add as the owner role: exists %v; reply:\n%s", ok, res.shown())
	}
	if out := auditCLI(t, w, dsn(pass), "--json"); !strings.Contains(out, `"mailbox":"owner@example.com"`) {
		t.Errorf("mailbot audit as the owner role:\n%s", out)
	}
}
