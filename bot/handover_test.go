package bot_test

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
)

// The hand-over's owner, their direct message with the bot (as the fake's
// conversations.open names it) and the Show button.
const (
	owner        = "UADA"
	ownerDM      = "DADA"
	handoverBlk  = "mailbot_handover"
	showButton   = "show"
	handoversCtr = "mailbot_handovers_total"
)

// handoverOffer is the last direct message to the owner that Slack took,
// and the value of its Show button.
func (e *env) handoverOffer(t *testing.T) (slackfake.Call, string) {
	t.Helper()
	var call slackfake.Call
	var value string
	err := e.slack.Wait(wait, "the hand-over's direct message", func() bool {
		for _, c := range e.slack.Calls("chat.postMessage") {
			if c.Form.Get("channel") == ownerDM && e.slack.HasMessage(ownerDM, c.TS) {
				call = c
			}
		}
		if call.TS == "" {
			return false
		}
		v, ok := callMessage(t, call).Button(handoverBlk, showButton)
		value = v
		return ok
	})
	if err != nil {
		t.Fatal(err)
	}
	return call, value
}

// showClick has user click Show on the owner's message through via and
// returns what they were answered.
func (e *env) showClick(t *testing.T, via slackfake.Sender, user, ts, value string) message {
	t.Helper()
	id, err := via.Click(user, ownerDM, ts, handoverBlk, showButton, value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.slack.Socket.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	return e.result(id)
}

func TestHandoverOverSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ownDomain("example.com")
	h.slack.SetUser(slackfake.User{ID: owner, Email: "ada@example.com", EmailConfirmed: true})
	id, _ := h.command(admin, "/mailbox", "add ada@example.com for <@UADA|ada> starts Monday")
	res := h.result(id).shown()
	if !strings.Contains(res, "Credentials for") || !strings.Contains(res, "<@UADA>") {
		t.Fatalf("the requester's reply:\n%s\nwant it to say the credentials went to UADA", res)
	}
	call, value := h.handoverOffer(t)
	if dm := callMessage(t, call).shown(); !strings.Contains(dm, "ada@example.com") || !strings.Contains(dm, "<@UADMIN1>") {
		t.Errorf("the direct message:\n%s\nwant the mailbox and who asked", dm)
	}
	if got := h.showClick(t, h.slack.Via(0), stranger, call.TS, value).shown(); !strings.Contains(got, "Not yours") {
		t.Errorf("a stranger's click: %s", got)
	}
	if got := h.showClick(t, h.slack.Via(0), owner, call.TS, value).shown(); !strings.Contains(got, "Your password for ada@example.com") {
		t.Fatalf("the owner's click:\n%s", got)
	}
	if err := h.slack.Wait(wait, "the direct message without its button", func() bool {
		for _, m := range h.slack.Messages(ownerDM) {
			if m.TS == call.TS {
				return m.Edited && !strings.Contains(mustJSON(m.Blocks), handoverBlk)
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if got := h.showClick(t, h.slack.Via(0), owner, call.TS, value).shown(); !strings.Contains(got, "Already used") {
		t.Errorf("a second click: %s", got)
	}
	// A restart without a database: the new process reads the message back.
	r2 := h.start(withStore(memstore.New(memstore.Options{})))
	if got := h.showClick(t, h.slack.Via(r2.conn), owner, call.TS, value).shown(); !strings.Contains(got, "Already used") {
		t.Errorf("a click after a restart: %s", got)
	}
	for label, want := range map[string]float64{"offered": 1, "shown": 1, "refused": 2} {
		if got := counter(t, h.r.reg, handoversCtr, label); got != want {
			t.Errorf("%s{event=%q} = %v, want %v", handoversCtr, label, got, want)
		}
	}
}

func TestHandoverRefusedForADeactivatedUser(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ownDomain("example.com")
	h.slack.SetUser(slackfake.User{ID: owner, Deleted: true})
	id, _ := h.command(admin, "/mailbox", "add ada@example.com for <@UADA>")
	if got := h.result(id).shown(); !strings.Contains(got, "deactivated") {
		t.Errorf("add for a deactivated user:\n%s", got)
	}
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Errorf("%d adds reached the sandbox", n)
	}
}

func TestSelfServiceOverSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(s *settings) { s.core.SelfService = commands.SelfServiceReset })
	h.ownDomain("example.com")
	if _, err := h.pdd().AddMailbox(t.Context(), "example.com", "ada", "Initial-Pa55word", false); err != nil {
		t.Fatal(err)
	}
	h.slack.SetUser(slackfake.User{ID: owner, Email: "Ada@Example.com", EmailConfirmed: true})
	id, _ := h.command(owner, "/mailbox", "reset")
	if got := h.result(id).shown(); !strings.Contains(got, "Show my password") {
		t.Fatalf("self-service reset:\n%s", got)
	}
	call, value := h.handoverOffer(t)
	if got := h.showClick(t, h.slack.Via(0), owner, call.TS, value).shown(); !strings.Contains(got, "Your password for ada@example.com") {
		t.Fatalf("the owner's click:\n%s", got)
	}
	h.slack.SetUser(slackfake.User{ID: stranger, Email: "ada@example.com", EmailConfirmed: false})
	id, _ = h.command(stranger, "/mailbox", "reset")
	if got := h.result(id).shown(); !strings.Contains(got, "not confirmed") {
		t.Errorf("self-service with an unconfirmed e-mail:\n%s", got)
	}
}

// TestFormForPicker: the add form's person picker hands the credentials
// over, as "for <@user>" typed does.
func TestFormForPicker(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ownDomain("example.com")
	view, _ := openForm(t, h.env, admin, "/mailbox", "add")
	p := submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(userInput, inputAction, "ada"), slackfake.Text(domainInput, inputAction, "example.com"),
		slackfake.Person(forInput, inputAction, owner)}})
	if p["response_action"] != "clear" {
		t.Fatalf("ack payload %v, want clear", p)
	}
	call, value := h.handoverOffer(t)
	if got := h.showClick(t, h.slack.Via(0), owner, call.TS, value).shown(); !strings.Contains(got, "Your password for ada@example.com") {
		t.Fatalf("the owner's click:\n%s", got)
	}
}

// TestHandoverRequestMessage: the approval request for a hand-over says
// whom the credentials go to, and its approval offers them the button.
func TestHandoverRequestMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	h.ownDomain("example.com")
	_, req := ask(t, h.env, stranger, "/mailbox", "add ada@example.com for <@UADA|ada> new hire")
	if got := req.msg.shown(); !strings.Contains(got, "*Credentials for:* <@UADA> alone") {
		t.Errorf("the request message:\n%s", got)
	}
	decide(t, h.env, admin, req, approve)
	call, value := h.handoverOffer(t)
	if got := h.showClick(t, h.slack.Via(0), owner, call.TS, value).shown(); !strings.Contains(got, "Your password for ada@example.com") {
		t.Fatalf("the owner's click:\n%s", got)
	}
}
