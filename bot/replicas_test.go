package bot_test

// Tests of mailbot as several replicas (docs/state.md): two bots,
// each with its own core, bot and pgstore.Store opened on one test database
// (two Opens stand for two processes), connected to one fake Slack; a click
// goes to one replica or the other with Via. And the restart without a
// database, where the request message read back from Slack is the memory.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// TestMain shares one throwaway PostgreSQL cluster among the package's
// tests (a database each); see pgtest.
func TestMain(m *testing.M) { pgtest.Main(m) }

// openStore opens the database of dsn as one mailbot process does. Open it
// before newEnv: it is closed when the test ends, after the env's checks,
// which read its audit trail.
func openStore(t testing.TB, dsn string) *pgstore.Store {
	t.Helper()
	st, err := pgstore.Open(context.Background(), dsn, zap.NewNop(),
		pgstore.WithRetry(10*time.Second), pgstore.WithCallTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// replicas is an env with two replicas, each on a store of its own.
type replicas struct {
	*env
	r1, r2 *replica
}

// newReplicas starts two replicas on the database of dsn, opened once
// for each.
func newReplicas(t testing.TB, dsn string, opts ...option) *replicas {
	t.Helper()
	return newReplicasOn(t, openStore(t, dsn), openStore(t, dsn), opts...)
}

// newReplicasOn starts two replicas, the first on s1 and the second on s2.
func newReplicasOn(t testing.TB, s1, s2 commands.Store, opts ...option) *replicas {
	t.Helper()
	e := newEnv(t, append([]option{withStore(s1)}, opts...)...)
	return &replicas{env: e, r1: e.start(), r2: e.start(withStore(s2))}
}

// clicker is who clicks, on which replica.
type clicker struct {
	r    *replica
	user string
}

// clickVia clicks a button of the request message on replica r's
// connection and waits for the ack, which must come from r.
func clickVia(t testing.TB, e *env, c clicker, req approvalRequest, action string) string {
	t.Helper()
	id, err := e.slack.Via(c.r.conn).Click(c.user, req.call.Form.Get("channel"), req.call.TS, approvalBlock, action, req.value)
	if err != nil {
		t.Fatal(err)
	}
	waitAckFrom(t, e, c.r, id)
	return id
}

// waitAckFrom waits for the ack of envelope id and checks it came from r.
func waitAckFrom(t testing.TB, e *env, r *replica, id string) {
	t.Helper()
	ack, err := e.slack.Socket.WaitAck(id, wait)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Conn != r.conn {
		t.Errorf("envelope %s acknowledged on connection %d, want %s's (%d)", id, ack.Conn, r.name, r.conn)
	}
}

// decideVia clicks on one replica and returns the answer to the clicker.
func decideVia(t testing.TB, e *env, c clicker, req approvalRequest, action string) string {
	t.Helper()
	return e.result(clickVia(t, e, c, req, action)).shown()
}

// clickAll sends the clicks all at once (each on its replica's
// connection), then waits for every ack; it returns the envelope ids.
func clickAll(t testing.TB, e *env, req approvalRequest, action string, cs ...clicker) []string {
	t.Helper()
	ids, errs := make([]string, len(cs)), make([]error, len(cs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			<-start
			ids[i], errs[i] = e.slack.Via(c.r.conn).Click(c.user, req.call.Form.Get("channel"), req.call.TS, approvalBlock, action, req.value)
		})
	}
	close(start)
	wg.Wait()
	for i, c := range cs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		waitAckFrom(t, e, c.r, ids[i])
	}
	return ids
}

// oneApproved checks that exactly one of the clicks' answers says the
// request was approved and the others that it was decided already.
func oneApproved(t testing.TB, e *env, ids []string) {
	t.Helper()
	approved := 0
	for i, id := range ids {
		switch shown := e.result(id).shown(); {
		case strings.Contains(shown, "Request approved"):
			approved++
		case !strings.Contains(shown, "Already decided"):
			t.Errorf("answer to click %d:\n%s\nwant approved or already decided", i, shown)
		}
	}
	if approved != 1 {
		t.Errorf("%d clicks approved, want exactly 1", approved)
	}
}

// auditCount counts the entries of the trail of st with event ev on the
// target login@domain (or the domain when login is "").
func auditCount(t testing.TB, st commands.Store, ev commands.Event, login, domain string) int {
	t.Helper()
	es, err := st.Audit(context.Background(), time.Time{}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range es {
		if a.Event == ev && a.Login == login && a.Domain == domain {
			n++
		}
	}
	return n
}

// TestReplicaConcurrentApprove sends Approve clicks for one request to
// both replicas at once: the operation runs once, and the request message
// is updated once, with the outcome.
func TestReplicaConcurrentApprove(t *testing.T) {
	t.Parallel()
	rs := newReplicas(t, pgtest.NewDatabase(t), withApprovals(commands.ApprovalsRequests))
	rs.ownDomain("example.com")
	_, req := ask(t, rs.env, stranger, "/mailbox", "add alice@example.com")

	var cs []clicker
	for i := range 8 {
		cs = append(cs, clicker{[]*replica{rs.r1, rs.r2}[i%2], []string{admin, admin2}[i/2%2]})
	}
	oneApproved(t, rs.env, clickAll(t, rs.env, req, approve, cs...))

	assertAddedOnce(t, rs.env, req)
	updated := rs.waitUpdate(req, 1)
	if updated.HasButtons() {
		t.Errorf("the approved request still offers buttons")
	}
	wantContains(t, "updated request", updated.shown(), "Approved by <@", "add mailbox alice@example.com", "uid ")
	st := rs.stores[0]
	if run, approved := auditCount(t, st, commands.EventRun, "alice", "example.com"), auditCount(t, st, commands.EventApproved, "alice", "example.com"); run != 1 || approved != 1 {
		t.Errorf("audit trail: %d runs and %d approvals of the request, want 1 and 1", run, approved)
	}
	// The end of the run is in the database: no request is left running
	// (a claim of every running request finds none).
	if stuck, err := st.ClaimStale(t.Context(), time.Now().Add(time.Hour), "test", 0); err != nil || len(stuck) != 0 {
		t.Errorf("requests left running in the database: %d (%v), want none", len(stuck), err)
	}
}

// TestReplicaStaleClickAfterRestart approves a request, stops that replica
// and starts a new process on the same database: an Approve on the
// decided request's message (a Slack client that still shows the buttons)
// runs nothing, on the new process and on the other replica; a request
// still pending runs once on the new process.
func TestReplicaStaleClickAfterRestart(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	later := openStore(t, dsn) // the new process's; opened now, see openStore
	rs := newReplicas(t, dsn, withApprovals(commands.ApprovalsRequests))
	rs.ownDomain("example.com")
	_, decided := ask(t, rs.env, stranger, "/mailbox", "add alice@example.com")
	_, waiting := ask(t, rs.env, stranger, "/mailbox", "add bob@example.com")
	wantContains(t, "the approval", decideVia(t, rs.env, clicker{rs.r1, admin}, decided, approve), "Request approved")
	if err := rs.r1.stop(); err != nil {
		t.Fatalf("r1 stopped with %v", err)
	}
	r3 := rs.start(withStore(later))

	for _, c := range []clicker{{r3, admin2}, {rs.r2, admin2}, {r3, admin}} {
		wantContains(t, "a stale click on "+c.r.name, decideVia(t, rs.env, c, decided, approve), "Already decided", "approved by <@"+admin+">")
	}
	if n := rs.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests after the stale clicks, want 1", n)
	}
	if n := len(rs.updates(decided)); n != 1 {
		t.Errorf("%d updates of the decided request, want 1", n)
	}
	wantContains(t, "a pending request after the restart", decideVia(t, rs.env, clicker{r3, admin2}, waiting, approve), "Request approved")
	if n := rs.sim.Requests(pddsim.OpAddMailbox); n != 2 {
		t.Errorf("sandbox saw %d email/add requests, want 2 (one per request)", n)
	}
	if n := len(rs.slack.Calls("conversations.history")); n != 0 {
		t.Errorf("%d conversations.history calls, want 0: with a database the store knows every request", n)
	}
}

// sweepSpy counts the sweeps of the store it wraps, so that a test can
// wait for whole sweeps instead of time.
type sweepSpy struct {
	commands.Store
	expiries, reminders atomic.Int64
}

func (s *sweepSpy) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	defer s.expiries.Add(1)
	return s.Store.ClaimExpired(ctx, now, limit)
}

func (s *sweepSpy) ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]commands.Record, error) {
	defer s.reminders.Add(1)
	return s.Store.ClaimReminders(ctx, cutoff, now, limit)
}

// waitSweeps waits until each spy has counted n more calls of count.
func waitSweeps(t testing.TB, e *env, n int64, count func(*sweepSpy) int64, spies ...*sweepSpy) {
	t.Helper()
	from := make([]int64, len(spies))
	for i, s := range spies {
		from[i] = count(s)
	}
	if err := e.slack.Wait(wait, "more sweeps on every replica", func() bool {
		for i, s := range spies {
			if count(s) < from[i]+n {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
}

// TestReplicaExpiry lets both replicas sweep a request past its deadline:
// its message is updated once, without buttons, and the requester told
// once.
func TestReplicaExpiry(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	clk := testkit.NewClock(epoch)
	sp1, sp2 := &sweepSpy{Store: openStore(t, dsn)}, &sweepSpy{Store: openStore(t, dsn)}
	rs := newReplicasOn(t, sp1, sp2, withApprovals(commands.ApprovalsRequests), withClock(clk.Now),
		withTTL(time.Hour), withSweep(20*time.Millisecond))
	_, req := ask(t, rs.env, stranger, "/maildomain", "register example.com")
	clk.Advance(time.Hour)

	wantContains(t, "expiry for the requester", callMessage(t, rs.waitEphemeral(stranger, 1)).shown(), "Request expired", "register domain example.com")
	updated := rs.waitUpdate(req, 1)
	if updated.HasButtons() {
		t.Errorf("the expired request still offers buttons")
	}
	wantContains(t, "expired request", updated.shown(), "Expired", "Nothing was done")
	expiries := func(s *sweepSpy) int64 { return s.expiries.Load() }
	waitSweeps(t, rs.env, 3, expiries, sp1, sp2)
	if n, m := len(rs.updates(req)), len(rs.ephemeralsTo(stranger)); n != 1 || m != 1 {
		t.Errorf("after more sweeps on both replicas: %d updates and %d messages to the requester, want 1 and 1", n, m)
	}
	if n := auditCount(t, sp1, commands.EventExpired, "", "example.com"); n != 1 {
		t.Errorf("%d expiries in the audit trail, want 1", n)
	}
	if n := rs.sim.Requests(""); n != 0 {
		t.Errorf("an expired request reached the PDD API (%d requests)", n)
	}
}

// TestReplicaOutage cuts the database in the middle: clicks and commands
// are refused with the database-down answer and run nothing, both replicas stay
// connected and acknowledge, and once the database is back a click runs
// the request once; nothing runs twice across the outage.
func TestReplicaOutage(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	rs := newReplicas(t, proxy.DSN(), withApprovals(commands.ApprovalsRequests))
	rs.ownDomain("example.com")
	_, before := ask(t, rs.env, stranger, "/mailbox", "add alice@example.com")
	_, during := ask(t, rs.env, stranger, "/mailbox", "add bob@example.com")
	wantContains(t, "approval before the outage", decideVia(t, rs.env, clicker{rs.r1, admin}, before, approve), "Request approved")
	calls := rs.sim.Requests("")

	proxy.Cut()
	const down = "mailbot cannot reach its database; nothing was done"
	for _, k := range []struct {
		c   clicker
		req approvalRequest
	}{{clicker{rs.r1, admin}, during}, {clicker{rs.r2, admin2}, during}, {clicker{rs.r2, admin2}, before}} {
		wantContains(t, "a click on "+k.c.r.name+" during the outage", decideVia(t, rs.env, k.c, k.req, approve), down)
	}
	id, _ := rs.commandVia(rs.slack.Via(rs.r2.conn), admin, "/maildomain", "register outage.example.com")
	wantContains(t, "an admin's command during the outage", rs.result(id).shown(), down)
	waitAckFrom(t, rs.env, rs.r2, id)
	if !rs.r1.bot.Ready() || !rs.r2.bot.Ready() || rs.slack.Socket.Connections() != 2 {
		t.Errorf("during the outage: ready %v and %v, %d connections; want both ready on 2", rs.r1.bot.Ready(), rs.r2.bot.Ready(), rs.slack.Socket.Connections())
	}
	if n := rs.sim.Requests(""); n != calls {
		t.Errorf("the PDD API saw %d requests during the outage, want none", n-calls)
	}

	proxy.Restore()
	wantContains(t, "the first click after the outage", decideVia(t, rs.env, clicker{rs.r2, admin2}, during, approve), "Request approved")
	for _, c := range []clicker{{rs.r1, admin}, {rs.r2, admin}} {
		wantContains(t, "a later click on "+c.r.name, decideVia(t, rs.env, c, during, approve), "Already decided")
		wantContains(t, "a click on the request approved before", decideVia(t, rs.env, c, before, approve), "Already decided")
	}
	if n, r := rs.sim.Requests(pddsim.OpAddMailbox), rs.sim.Requests(pddsim.OpRegisterDomain); n != 2 || r != 1 {
		t.Errorf("sandbox saw %d email/add (want 2, one per request) and %d registers (want 1, the test's own)", n, r)
	}
	for _, login := range []string{"alice", "bob"} {
		if n := auditCount(t, rs.stores[0], commands.EventRun, login, "example.com"); n != 1 {
			t.Errorf("%d runs of %s@example.com in the audit trail, want 1", n, login)
		}
	}
	if n, m := len(rs.updates(before)), len(rs.updates(during)); n != 1 || m != 1 {
		t.Errorf("updates of the requests: %d and %d, want 1 and 1", n, m)
	}
}

// cutAfterApproval cuts the database right after the store takes the last
// approval of a request, before the run is recorded.
type cutAfterApproval struct {
	commands.Store
	once sync.Once
	cut  func()
}

func (s *cutAfterApproval) Approve(ctx context.Context, p commands.Pending, approver string, need int, now time.Time) (commands.Record, commands.ApproveResult, error) {
	rec, res, err := s.Store.Approve(ctx, p, approver, need, now)
	if err == nil && res == commands.ApproveRun {
		s.once.Do(s.cut)
	}
	return rec, res, err
}

// TestReplicaOutageBetweenApprovalAndRun loses the database between the
// approval and the run: the run cannot be recorded, so nothing reaches the
// PDD API, and putting the request back to pending fails too. The replica
// keeps that end and tries it again at every sweep, so once the database
// is back the request is decidable again by itself (the approval is
// not used up, and mailbot resumes by itself): an Approve then runs it
// once.
func TestReplicaOutageBetweenApprovalAndRun(t *testing.T) {
	t.Parallel()
	proxy := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	s1 := &cutAfterApproval{Store: openStore(t, proxy.DSN()), cut: proxy.Cut}
	rs := newReplicasOn(t, s1, openStore(t, proxy.DSN()), withApprovals(commands.ApprovalsRequests), withSweep(20*time.Millisecond))
	rs.ownDomain("example.com")
	_, req := ask(t, rs.env, stranger, "/mailbox", "add alice@example.com")

	wantContains(t, "the approval cut off", decideVia(t, rs.env, clicker{rs.r1, admin}, req, approve), "Nothing was done")
	if n := rs.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Errorf("sandbox saw %d email/add requests while the run could not be recorded, want 0", n)
	}
	proxy.Restore()
	if err := rs.slack.Wait(wait, "the request pending again in the store", func() bool {
		recs, err := s1.Pending(t.Context(), "", 0)
		return err == nil && len(recs) == 1
	}); err != nil {
		t.Fatal(err, rs.env.logs.String())
	}
	wantContains(t, "an Approve once the database is back", decideVia(t, rs.env, clicker{rs.r2, admin2}, req, approve), "Request approved")
	if n := rs.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests, want 1", n)
	}
}

// TestReplicaRestartWithoutDatabase restarts mailbot without a database (a
// fresh bot on a new memstore): two Approves at once on a message whose
// history still shows the buttons run it once; an Approve on a message
// that shows a decision (approved or denied) runs nothing. Each click
// reads the one message back with conversations.history.
func TestReplicaRestartWithoutDatabase(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.ownDomain("example.com")
	_, approved := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")
	_, denied := ask(t, h.env, stranger, "/mailbox", "add bob@example.com")
	_, waiting := ask(t, h.env, stranger, "/mailbox", "add carol@example.com")
	decide(t, h.env, admin, approved, approve)
	decide(t, h.env, admin, denied, deny)
	if err := h.r.stop(); err != nil {
		t.Fatalf("the first bot stopped with %v", err)
	}
	h.r = h.start(withStore(memstore.New(memstore.Options{})))

	oneApproved(t, h.env, clickAll(t, h.env, waiting, approve, clicker{h.r, admin}, clicker{h.r, admin2}))
	for _, req := range []approvalRequest{approved, denied} {
		for _, action := range []string{approve, deny} {
			wantContains(t, "a stale "+action, decide(t, h.env, admin2, req, action).shown(), "Already decided", "Nothing more was done")
		}
	}
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 2 {
		t.Errorf("sandbox saw %d email/add requests, want 2 (alice before the restart, carol after)", n)
	}
	if _, ok := h.sim.Mailbox("bob@example.com"); ok {
		t.Error("the denied request ran after the restart")
	}
	if n := len(h.updates(waiting)); n != 1 {
		t.Errorf("%d updates of the request approved after the restart, want 1", n)
	}
	hist := h.slack.Calls("conversations.history")
	if len(hist) < 5 {
		t.Errorf("%d conversations.history calls, want one per click on a request the new process did not know (at least 5)", len(hist))
	}
	for _, c := range hist {
		f := c.Form
		if f.Get("channel") != ops || f.Get("latest") != f.Get("oldest") || f.Get("latest") == "" || f.Get("limit") != "1" || (f.Get("inclusive") != "true" && f.Get("inclusive") != "1") {
			t.Errorf("conversations.history %v, want the one message at its ts in %s (latest = oldest, inclusive, limit 1)", f, ops)
		}
	}
}

// BenchmarkReplicaDecisionLatency measures, with two replicas on
// PostgreSQL, the time from two concurrent Approve clicks (one on each
// replica, by two admins) to the PDD call they cause.
func BenchmarkReplicaDecisionLatency(b *testing.B) {
	rs := newReplicas(b, pgtest.NewDatabase(b), withApprovals(commands.ApprovalsRequests))
	arrived := make(chan time.Time, 16)
	rs.sim.OnRequest(func(op pddsim.Op) {
		if op == pddsim.OpRegisterDomain {
			arrived <- time.Now()
		}
	})
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		_, req := ask(b, rs.env, stranger, "/maildomain", fmt.Sprintf("register d%d.example.com", i))
		b.StartTimer()
		start := time.Now()
		ids := clickAll(b, rs.env, req, approve, clicker{rs.r1, admin}, clicker{rs.r2, admin2})
		select {
		case at := <-arrived:
			lat = append(lat, at.Sub(start))
		case <-time.After(wait):
			b.Fatal("no PDD call after the clicks")
		}
		for _, id := range ids {
			rs.result(id)
		}
	}
	b.StopTimer()
	if n := rs.sim.Requests(pddsim.OpRegisterDomain); n != b.N {
		b.Errorf("%d PDD calls for %d requests", n, b.N)
	}
	reportPercentiles(b, lat, "decision")
}

// BenchmarkReplicaAckBurst sends bursts of 500 slash commands at 500 per
// second to two replicas, half of them an admin's operation (recorded in
// the audit trail) and half a request for approval (recorded as pending),
// and measures the ack latency as the fake Slack sees it: on PostgreSQL,
// and, for comparison, on one memstore (the difference is the database's
// share of the machine, not a wait: acks never touch the store).
func BenchmarkReplicaAckBurst(b *testing.B) {
	b.Run("postgres", func(b *testing.B) {
		dsn := pgtest.NewDatabase(b)
		ackBurst(b, newReplicas(b, dsn, withApprovals(commands.ApprovalsRequests)))
	})
	b.Run("memory", func(b *testing.B) {
		st := memstore.New(memstore.Options{})
		ackBurst(b, newReplicasOn(b, st, st, withApprovals(commands.ApprovalsRequests)))
	})
}

// ackBurst runs the bursts of BenchmarkReplicaAckBurst on rs: half
// admins' registers, half requests for approval.
func ackBurst(b *testing.B, rs *replicas) {
	rs.sim.SetLatency(5 * time.Millisecond)
	cmd := func(round, j int) (string, string, string) {
		return []string{admin, stranger}[j%2], "/maildomain", fmt.Sprintf("register b%d-%d.example.com", round, j)
	}
	sendBurst(b, rs.env, -1, cmd) // warm up: the pools of Slack, PDD and database connections fill
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lat = append(lat, sendBurst(b, rs.env, i, cmd)...)
	}
	b.StopTimer()
	reportPercentiles(b, lat, "ack")
}
