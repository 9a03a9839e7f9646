package bot_test

// Helpers that drive a test's world: approvals over the fake Slack, the
// fake clock's start (the clock and the log sink are testkit's), a gate in
// front of the sandbox, a store that counts sweeps, and the wire sink.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// The request message's actions block and buttons, and those of a private
// reply (Cancel, Check DNS), as Slack hands them back in a click.
const (
	approvalBlock = "mailbot_approval"
	replyBlock    = "mailbot_reply"
	approve       = "approve"
	deny          = "deny"
	cancelButton  = "cancel"
	checkDNS      = "check_dns"
)

// epoch is the fake clock's start: whole seconds, so that the times the
// bot shows can be predicted exactly.
var epoch = time.Date(2030, time.January, 2, 3, 4, 5, 0, time.UTC)

// approvalRequest is a request message the bot posted for the admins.
type approvalRequest struct {
	call  slackfake.Call // the chat.postMessage; call.TS is the message's ts
	msg   message
	value string // the value both buttons carry
}

// approvalRequests returns the request messages posted so far, in order:
// those Slack took (the fake records a call before it stores the message,
// and a message not yet in its channel cannot be clicked).
func (e *env) approvalRequests() []approvalRequest {
	var out []approvalRequest
	for _, c := range e.slack.Calls("chat.postMessage") {
		if !e.slack.HasMessage(c.Form.Get("channel"), c.TS) {
			continue
		}
		m := callMessage(e.t, c)
		if v, ok := m.Button(approvalBlock, approve); ok {
			out = append(out, approvalRequest{call: c, msg: m, value: v})
		}
	}
	return out
}

// ask sends a command that needs approval and returns the reply the
// requester sees (the pending notice) and the request message.
func ask(t testing.TB, e *env, user, cmd, text string) (message, approvalRequest) {
	t.Helper()
	before := len(e.approvalRequests())
	id, _ := e.command(user, cmd, text)
	pending := e.result(id)
	var reqs []approvalRequest
	if err := e.slack.Wait(wait, "the approval request", func() bool {
		reqs = e.approvalRequests()
		return len(reqs) > before
	}); err != nil {
		t.Fatal(err)
	}
	return pending, reqs[before]
}

// click clicks a button of the request message as user and waits for the
// ack; it returns the envelope id.
func click(t testing.TB, e *env, user string, req approvalRequest, action string) string {
	t.Helper()
	id, err := e.slack.Click(user, req.call.Form.Get("channel"), req.call.TS, approvalBlock, action, req.value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.slack.Socket.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	return id
}

// decide clicks and returns the bot's answer to the clicker. The core
// answers the clicker last, so everything the click did is done by then.
func decide(t testing.TB, e *env, user string, req approvalRequest, action string) message {
	t.Helper()
	answer := e.result(click(t, e, user, req, action))
	if answer.ResponseType != "ephemeral" || answer.ReplaceOriginal {
		t.Errorf("answer to %s's click: response_type %q, replace_original %v; want ephemeral, false (the request message is for everyone)",
			user, answer.ResponseType, answer.ReplaceOriginal)
	}
	return answer
}

// updates returns the chat.update calls of a request message that show a
// decision or a count; the interim "running" update that, without a
// database, records an approval in the message before the run is left
// out (runningUpdates returns those).
func (e *env) updates(req approvalRequest) []slackfake.Call {
	var out []slackfake.Call
	for _, c := range e.allUpdates(req) {
		if !isRunningUpdate(c) {
			out = append(out, c)
		}
	}
	return out
}

// runningUpdates returns the interim "running" updates of a request message.
func (e *env) runningUpdates(req approvalRequest) []slackfake.Call {
	var out []slackfake.Call
	for _, c := range e.allUpdates(req) {
		if isRunningUpdate(c) {
			out = append(out, c)
		}
	}
	return out
}

func (e *env) allUpdates(req approvalRequest) []slackfake.Call {
	var out []slackfake.Call
	for _, c := range e.slack.Calls("chat.update") {
		if c.Form.Get("channel") == req.call.Form.Get("channel") && c.Form.Get("ts") == req.call.TS {
			out = append(out, c)
		}
	}
	return out
}

// isRunningUpdate reports an update whose fallback text says the request
// is running.
func isRunningUpdate(c slackfake.Call) bool {
	return strings.HasSuffix(c.Form.Get("text"), ": running")
}

// waitUpdate waits for the nth (1-based) update of a request message.
func (e *env) waitUpdate(req approvalRequest, n int) message {
	e.t.Helper()
	if err := e.slack.Wait(wait, "an update of the request", func() bool { return len(e.updates(req)) >= n }); err != nil {
		e.t.Fatal(err)
	}
	return callMessage(e.t, e.updates(req)[n-1])
}

// spyStore counts the sweeps of the store it wraps.
type spyStore struct {
	commands.Store
	claims atomic.Int64
}

func (s *spyStore) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	defer s.claims.Add(1)
	return s.Store.ClaimExpired(ctx, now, limit)
}

// gate holds the sandbox's requests until the test lets them through,
// and tells the test when each arrives: the test orders events without
// sleeping.
type gate struct {
	arrived chan pddsim.Op
	pass    chan struct{} // one token lets one request through
	open    chan struct{} // closed: every request goes through
	once    sync.Once
}

// holdRequests makes every PDD request wait on the returned gate.
func (e *env) holdRequests() *gate {
	g := &gate{arrived: make(chan pddsim.Op, 1000), pass: make(chan struct{}, 1000), open: make(chan struct{})}
	e.sim.OnRequest(func(op pddsim.Op) {
		g.arrived <- op
		select {
		case <-g.pass:
		case <-g.open:
		}
	})
	e.t.Cleanup(g.release)
	return g
}

// next waits for the next request to arrive at the sandbox.
func (g *gate) next(t testing.TB) pddsim.Op {
	t.Helper()
	select {
	case op := <-g.arrived:
		return op
	case <-time.After(wait):
		t.Fatal("no request reached the sandbox")
		return ""
	}
}

// allow lets n held or later requests through.
func (g *gate) allow(n int) {
	for range n {
		g.pass <- struct{}{}
	}
}

// release lets every held request, and every later one, through.
func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// teeWriter keeps a copy of what a handler writes.
type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.body.Write(p)
	return w.ResponseWriter.Write(p)
}

// readBody reads r's body and puts it back for the next handler.
func readBody(r *http.Request) []byte {
	raw, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return raw
}

// assertAddedOnce checks that an approved add of alice@example.com for
// stranger ran exactly once: one email/add, one update of the request
// message, and one ephemeral for the requester whose password is the one
// the sandbox stored.
func assertAddedOnce(t testing.TB, e *env, req approvalRequest) {
	t.Helper()
	if n := e.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("sandbox saw %d email/add requests, want exactly 1", n)
	}
	if n := len(e.updates(req)); n != 1 {
		t.Errorf("%d updates of the request message, want 1", n)
	}
	if !e.store.Durable() {
		// Without a database the message shows the approval before the
		// run: the only record of the decision that outlives mailbot.
		if n := len(e.runningUpdates(req)); n != 1 {
			t.Errorf("%d 'running' updates of the request message before the run, want 1", n)
		}
	}
	eph := e.ephemeralsTo(stranger)
	if len(eph) != 1 {
		t.Fatalf("%d chat.postEphemeral calls for the requester, want 1", len(eph))
	}
	_, spans := credential(t, eph[0], general, stranger)
	if stored, _ := e.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("requester sees %q, sandbox stored %q", spans, stored)
	}
}
