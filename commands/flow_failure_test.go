package commands_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
)

// TestFailedRunReopens approves a request whose run meets the sandbox's
// "unknown" on every attempt: the PDD API certainly did nothing, so the
// request goes back to pending with the buttons, and a later approval
// runs it.
func TestFailedRunReopens(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	e := newEnv(t, sb.client, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox add jan@example.com")
	sb.sim.FailNext(3)
	mark := e.msgr.mark()
	if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelError {
		t.Errorf("approve = %q, want error", label)
	}
	if _, ok := sb.sim.Mailbox("jan@example.com"); ok || sb.adds() != 3 {
		t.Fatalf("after 3 unknowns: mailbox exists %v, adds %d; want none and 3 attempts", ok, sb.adds())
	}
	up, _ := e.msgr.last("update")
	if up.View.State != commands.StatePending || !up.View.Buttons() || !strings.Contains(up.View.Text, "can be approved again") {
		t.Errorf("request message = %+v, want pending again, with the buttons and why", up.View)
	}
	if got, err := e.core.DecodePending(up.View.Value); err != nil || got != p {
		t.Errorf("the buttons offered again carry %+v, %v; want the request", got, err)
	}
	if rec := e.record(p.ID); rec.State != commands.StatePending || len(rec.Approvers) != 0 {
		t.Errorf("store record = %+v, want pending without approvals", rec)
	}
	commands.Golden(t, "flow/reopened", e.msgr.transcript(e.msgr.since(mark)))
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK {
		t.Fatalf("approve again = %q, want ok", label)
	}
	password, ok := sb.sim.Mailbox("jan@example.com")
	if !ok || sb.adds() != 4 || field(t, e.msgr.lastTo(user1), "Password") != password {
		t.Errorf("after approving again: mailbox %v, adds %d; want it created once more, the password to the requester", ok, sb.adds())
	}
	e.noSecrets(user1, password)
}

// TestLostAddAnswer approves an add whose connection the sandbox drops
// after performing it: mailbot looks the mailbox up before anything else,
// finds it, and gives the requester the password that request set; the
// add is never sent twice.
func TestLostAddAnswer(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	e := newEnv(t, sb.client, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox add kim@example.com")
	if err := sb.sim.InjectFault(pddsim.FaultReset, 1); err != nil {
		t.Fatal(err)
	}
	if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelOK {
		t.Errorf("approve = %q, want ok: the look-up found the mailbox", label)
	}
	password, ok := sb.sim.Mailbox("kim@example.com")
	if !ok || sb.adds() != 1 {
		t.Fatalf("the sandbox has the mailbox: %v, adds %d; want it created once", ok, sb.adds())
	}
	if got := field(t, e.msgr.lastTo(user1), "Password"); got != password {
		t.Errorf("the requester got the password %q, the sandbox keeps %q: want the one that request set", got, password)
	}
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelDecided {
		t.Errorf("approve again = %q, want already decided", label)
	}
	if sb.adds() != 1 {
		t.Errorf("adds = %d, want still 1", sb.adds())
	}
	e.noSecrets(user1, password)
}

// TestUncertainAdd approves an add whose answer is lost and whose look-up
// fails too: the request ends as uncertain, the requester and the ops
// channel are told the mailbox may exist, and nothing runs again.
func TestUncertainAdd(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	e := newEnv(t, sb.client, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/mailbox add kim@example.com")
	lostAndUnseen := func() {
		t.Helper()
		// The add's answer is lost; every attempt of the look-up gets a 502.
		if err := sb.sim.InjectFault(pddsim.FaultReset, 1); err != nil {
			t.Fatal(err)
		}
		if err := sb.sim.InjectFault(pddsim.FaultBadGateway, 3); err != nil {
			t.Fatal(err)
		}
	}
	lostAndUnseen()
	mark := e.msgr.mark()
	if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelError {
		t.Errorf("approve = %q, want error", label)
	}
	if _, ok := sb.sim.Mailbox("kim@example.com"); !ok || sb.adds() != 1 {
		t.Fatalf("the sandbox performed the add: %v, adds %d; want it done once", ok, sb.adds())
	}
	up, _ := e.msgr.last("update")
	if up.View.State != commands.StateUncertain || up.View.Buttons() || !strings.Contains(up.View.Text, "may exist") {
		t.Errorf("request message = %+v, want uncertain, without buttons, saying the mailbox may exist", up.View)
	}
	if r := e.msgr.lastTo(user1); !r.Error || !strings.Contains(r.PlainText(), "may exist") {
		t.Errorf("the requester was told %q, want that the mailbox may exist", r.PlainText())
	}
	commands.Golden(t, "flow/uncertain", e.msgr.transcript(e.msgr.since(mark)))
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelDecided {
		t.Errorf("approve after an uncertain run = %q, want already decided", label)
	}
	if sb.adds() != 1 {
		t.Errorf("adds = %d, want still 1", sb.adds())
	}
	// A direct add that meets the same faults tells the ops channel.
	lostAndUnseen()
	e.typed(admin1, "/mailbox add lee@example.com")
	if n, _ := e.msgr.last("notify"); !strings.Contains(n.Text, "lee@example.com") || !strings.Contains(n.Text, "may exist") {
		t.Errorf("ops notice = %q, want that the mailbox may exist", n.Text)
	}
}

// dbDown is the answer to work that could not be recorded.
const dbDown = "mailbot cannot reach its database; nothing was done"

// TestStoreUnavailable checks that work the store cannot record is
// refused with the database's answer and never reaches the API: a direct
// run, a request for approval, and clicks; and that the work goes through
// once the store is back.
func TestStoreUnavailable(t *testing.T) {
	t.Parallel()
	t.Run("direct run", func(t *testing.T) {
		t.Parallel()
		api := &fakeProvider{}
		e := newEnv(t, api, commands.Config{}, newDownStore(true, "*"))
		if _, label := e.typed(admin1, "/mailbox add alice@example.com"); label != commands.LabelStoreDown {
			t.Errorf("label = %q, want %q", label, commands.LabelStoreDown)
		}
		if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Text, dbDown) {
			t.Errorf("reply = %+v, want %q", r, dbDown)
		}
		if n := api.calls.Load(); n != 0 {
			t.Errorf("API calls = %d, want 0", n)
		}
		// Nothing reached the PDD API: no ops notice (it once said
		// "failed: store (an error code … does not know)").
		if ns := e.msgr.of("notify"); len(ns) != 0 {
			t.Errorf("ops notices for an operation the store refused = %+v, want none", ns)
		}
	})
	t.Run("request", func(t *testing.T) {
		t.Parallel()
		api := &fakeProvider{}
		e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, newDownStore(true, "Submit"))
		if _, label := e.typed(user1, "/mailbox add alice@example.com"); label != commands.LabelStoreDown {
			t.Errorf("label = %q, want %q", label, commands.LabelStoreDown)
		}
		if r := e.msgr.lastTo(user1); !strings.Contains(r.Text, dbDown) || len(e.msgr.of("post")) != 0 {
			t.Errorf("reply = %+v, posts %d; want %q and no request message", r, len(e.msgr.of("post")), dbDown)
		}
	})
	for _, durable := range []bool{true, false} {
		name := map[bool]string{true: "clicks, durable store", false: "clicks, memory store"}[durable]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			api := &fakeProvider{}
			e, ds := newDownEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, durable)
			p, ref := e.request(user1, "/mailbox add alice@example.com")
			ds.set(true, "*")
			for _, c := range []struct {
				kind commands.ButtonKind
				who  string
			}{{commands.ButtonApprove, admin1}, {commands.ButtonDeny, admin2}, {commands.ButtonCancel, user1}} {
				if label := e.click(c.kind, p, c.who, ref); label != commands.LabelStoreDown {
					t.Errorf("%s during the outage = %q, want %q", c.kind, label, commands.LabelStoreDown)
				}
				if r := e.msgr.lastTo(c.who); !strings.Contains(r.Text, dbDown) {
					t.Errorf("%s during the outage answered %q, want %q", c.kind, r.Text, dbDown)
				}
			}
			if n := api.calls.Load(); n != 0 || len(e.msgr.of("update")) != 0 {
				t.Errorf("during the outage: %d API calls, %d updates; want none", n, len(e.msgr.of("update")))
			}
			ds.set(false, "*")
			if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelOK || api.calls.Load() != 1 {
				t.Errorf("approve after the outage = %q with %d calls, want ok with 1", label, api.calls.Load())
			}
		})
	}
}

// TestStoreDownBeforeRun approves a request while the store can take the
// decision but cannot record the run (Begin fails): nothing reaches the
// API, the approval is not used up, and the approver is told that the
// database could not be reached.
func TestStoreDownBeforeRun(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e, ds := newDownEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, true)
	p, ref := e.request(user1, "/mailbox add alice@example.com")
	ds.set(true, "Begin")
	e.click(commands.ButtonApprove, p, admin1, ref)
	if n := api.calls.Load(); n != 0 {
		t.Fatalf("API calls = %d with the audit trail down, want 0", n)
	}
	if rec := e.record(p.ID); rec.State != commands.StatePending {
		t.Errorf("record = %+v, want pending again: the approval is not used up", rec)
	}
	// Not "it failed: store (an error code this version of mailbot does
	// not know)", as it once said.
	if r := e.msgr.lastTo(admin1); !strings.Contains(r.Text, "cannot reach its database") {
		t.Errorf("the approver was told %q, want that mailbot cannot reach its database", r.Text)
	}
	if up, _ := e.msgr.last("update"); strings.Contains(up.View.Text, "does not know") {
		t.Errorf("request message says %q: a store failure described as an unknown PDD code", up.View.Text)
	}
	ds.set(false, "Begin")
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK || api.calls.Load() != 1 {
		t.Errorf("approve once the store is back = %q with %d calls, want ok with 1", label, api.calls.Load())
	}
}

// TestRestartWithoutDatabase plays a restart without a database: a new
// core on a fresh memory store gets a click on a request it does not
// know, and reads the request message back before it runs anything.
func TestRestartWithoutDatabase(t *testing.T) {
	t.Parallel()
	before := newEnv(t, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := before.request(user1, "/mailbox add alice@example.com")
	after := func(shows func(commands.MessageRef) (string, error)) (*env, *fakeProvider) {
		api := &fakeProvider{}
		e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
		e.msgr.shows = shows
		return e, api
	}
	t.Run("decided", func(t *testing.T) {
		t.Parallel()
		e, api := after(func(commands.MessageRef) (string, error) { return "", nil })
		if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelDecided || api.calls.Load() != 0 {
			t.Errorf("approve of a request decided before the restart = %q with %d calls, want already decided, none", label, api.calls.Load())
		}
		if shows := e.msgr.of("shows"); len(shows) != 1 || shows[0].Ref != ref {
			t.Errorf("read back %+v, want the request message %+v once", shows, ref)
		}
	})
	t.Run("pending", func(t *testing.T) {
		t.Parallel()
		e, api := after(func(commands.MessageRef) (string, error) { return before.core.EncodePending(p), nil })
		if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK {
			t.Errorf("approve of a pending request after the restart = %q, want ok", label)
		}
		if label := e.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelDecided {
			t.Errorf("a second approve = %q, want already decided", label)
		}
		if api.calls.Load() != 1 || len(e.msgr.of("shows")) != 1 {
			t.Errorf("API calls %d, read-backs %d; want 1 and 1", api.calls.Load(), len(e.msgr.of("shows")))
		}
		if up, _ := e.msgr.last("update"); up.Ref != ref || up.View.State != commands.StateDone {
			t.Errorf("update = %+v, want the clicked message, done", up)
		}
		if r := e.msgr.lastTo(user1); !strings.Contains(r.Title, "created") {
			t.Errorf("the requester got %q, want the result", r.Title)
		}
	})
	t.Run("no message", func(t *testing.T) {
		t.Parallel()
		e, api := after(nil) // reading back would be a mistake
		if label := e.click(commands.ButtonApprove, p, admin2, commands.MessageRef{}); label != commands.LabelInvalid || api.calls.Load() != 0 {
			t.Errorf("approve without a message after the restart = %q with %d calls, want invalid, none", label, api.calls.Load())
		}
		if r := e.msgr.lastTo(admin2); !r.Error || !strings.Contains(r.Title, "Cannot confirm") {
			t.Errorf("the approver was told %+v, want a refusal", r)
		}
	})
	t.Run("read back fails", func(t *testing.T) {
		t.Parallel()
		e, api := after(func(commands.MessageRef) (string, error) {
			return "", errors.New("conversations.history: missing_scope")
		})
		if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelError || api.calls.Load() != 0 {
			t.Errorf("approve when the message cannot be read = %q with %d calls, want error, none", label, api.calls.Load())
		}
	})
	t.Run("expired meanwhile", func(t *testing.T) {
		t.Parallel()
		e, api := after(func(commands.MessageRef) (string, error) { return before.core.EncodePending(p), nil })
		e.clk.Advance(commands.DefaultApprovalTTL)
		if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelExpired || api.calls.Load() != 0 {
			t.Errorf("approve of a request that expired while mailbot was down = %q with %d calls, want expired, none", label, api.calls.Load())
		}
		if up, _ := e.msgr.last("update"); up.Ref != ref || up.View.State != commands.StateExpired || up.View.Buttons() {
			t.Errorf("update = %+v, want the clicked message, expired, without buttons", up)
		}
		if rs := e.msgr.to(user1); len(rs) != 1 || rs[0].Title != "Request expired" {
			t.Errorf("the requester got %+v, want one expiry notice", rs)
		}
		e.sweep(0, 0)
	})
	t.Run("deny", func(t *testing.T) {
		t.Parallel()
		e, _ := after(func(commands.MessageRef) (string, error) { return before.core.EncodePending(p), nil })
		if label := e.click(commands.ButtonDeny, p, admin2, ref); label != commands.LabelDenied {
			t.Errorf("deny after the restart = %q, want denied", label)
		}
		if up, _ := e.msgr.last("update"); up.Ref != ref || up.View.State != commands.StateDenied {
			t.Errorf("update = %+v, want the clicked message, denied", up)
		}
	})
}
