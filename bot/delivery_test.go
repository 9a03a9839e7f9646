package bot_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
)

// TestPasswordSurvivesAFailedPost is a delivery guarantee under failure: a direct add typed
// in a channel the bot is not in (chat.postEphemeral answers
// channel_not_found), whose response_url fails once: the password still
// arrives, by the response_url tried again.
func TestPasswordSurvivesAFailedPost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault func(h *harness)
	}{
		{"HTTP 500", func(h *harness) { h.slack.FailResponseURLNext(http.StatusInternalServerError, 1) }},
		{"HTTP 503", func(h *harness) { h.slack.FailResponseURLNext(http.StatusServiceUnavailable, 1) }},
		{"connection reset", func(h *harness) { h.slack.ResetResponseURLNext(1) }},
		{"HTTP 429", func(h *harness) { h.slack.FailResponseURLNext(http.StatusTooManyRequests, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.ownDomain("example.com")
			h.slack.Faults.SetChannelNotFound(general)
			tc.fault(h)
			id, _ := h.command(admin, "/mailbox", "add alice@example.com")
			spans := codeSpans(h.result(id).blocksText())
			if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
				t.Errorf("the reply shows %q, the sandbox stored %q", spans, stored)
			}
			if n := len(h.slack.PostAttempts(id)); n != 2 {
				t.Errorf("%d posts to the response_url, want 2 (the failed one and the retry)", n)
			}
		})
	}
}

// TestUndeliverableResultToldToOps: when no route reaches the person (an
// expired response_url, channel_not_found in the channel and in the DM),
// the ops channel is told that the result could not be delivered, with
// the target and without the secret; on the direct and the approval path.
func TestUndeliverableResultToldToOps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		approvals commands.ApprovalMode
		requester string
	}{
		{"direct", commands.ApprovalsOff, admin},
		{"approved", commands.ApprovalsRequests, stranger},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, withApprovals(tc.approvals))
			h.ownDomain("example.com")
			var req approvalRequest
			if tc.approvals != commands.ApprovalsOff {
				_, req = ask(t, h.env, tc.requester, "/mailbox", "add alice@example.com")
			}
			h.slack.ExpireResponseURLs(true)
			h.slack.Faults.SetChannelNotFound(general)
			h.slack.Faults.SetChannelNotFound("D" + strings.TrimPrefix(tc.requester, "U"))
			if tc.approvals == commands.ApprovalsOff {
				h.command(tc.requester, "/mailbox", "add alice@example.com")
			} else {
				click(t, h.env, admin, req, approve)
			}
			var notice string
			if err := h.slack.Wait(wait, "the undelivered notice", func() bool {
				for _, m := range h.opsMessages() {
					if s := m.shown(); strings.Contains(s, "could not be delivered") {
						notice = s
						return true
					}
				}
				return false
			}); err != nil {
				t.Fatal(err)
			}
			wantContains(t, "undelivered notice", notice, "alice@example.com", "<@"+tc.requester+">", "password nobody was given", "/mailbox reset alice@example.com")
			password, _ := h.sim.Mailbox("alice@example.com")
			if countContaining(h.slack.Texts().Public, password) > 0 || strings.Contains(h.logs.String(), password) {
				t.Error("the undelivered password is public or logged")
			}
			if opens := h.slack.Calls("conversations.open"); len(opens) != 1 || opens[0].Form.Get("users") != tc.requester {
				t.Errorf("conversations.open calls %v, want one for %s (the DM route was tried)", opens, tc.requester)
			}
		})
	}
}

// long is an unknown PDD error code of 3,400 characters.
var long = strings.Repeat("quota_", 566) + "oops"

// TestLongErrorCodeFitsSlack is a delivery guarantee under failure: a 3,400-character code
// that is not in PDD's documentation, on a direct add and on the approval path. The
// user gets a reply that Slack accepts, with the code cut; the request
// message loses its buttons. (The harness checks that Slack refused
// nothing.)
func TestLongErrorCodeFitsSlack(t *testing.T) {
	t.Parallel()
	cut := long[:apiclient.MaxCodeLen-1] + "…"
	t.Run("direct", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.ownDomain("example.com")
		h.sim.FailNextWith(1, pddsim.Code(long))
		id, _ := h.command(admin, "/mailbox", "add alice@example.com")
		res := h.result(id).shown()
		wantContains(t, "reply", res, cut, "does not know")
		if strings.Contains(res, long[:apiclient.MaxCodeLen+1]) {
			t.Errorf("the reply shows more than %d characters of the code", apiclient.MaxCodeLen)
		}
		h.waitOps(t, cut)
		if r := h.slack.Rejected(); len(r) != 0 {
			t.Errorf("Slack refused %v", r)
		}
	})
	t.Run("approved", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, withApprovals(commands.ApprovalsRequests))
		h.ownDomain("example.com")
		_, req := ask(t, h.env, stranger, "/mailbox", "add alice@example.com")
		h.sim.FailNextWith(1, pddsim.Code(long))
		answer := decide(t, h.env, admin, req, approve)
		wantContains(t, "answer to the approver", answer.shown(), "failed")
		updated := h.waitUpdate(req, 1)
		if updated.HasButtons() {
			t.Error("the request message still offers buttons after the failed run")
		}
		wantContains(t, "updated request", updated.shown(), cut)
		told := callMessage(t, h.waitEphemeral(stranger, 1)).shown()
		wantContains(t, "requester's result", told, cut)
		for _, text := range []string{answer.shown(), updated.shown(), told} {
			if utf8.RuneCountInString(text) > 2500 {
				t.Errorf("a message of %d characters: the code was not cut", utf8.RuneCountInString(text))
			}
		}
		if r := h.slack.Rejected(); len(r) != 0 {
			t.Errorf("Slack refused %v", r)
		}
	})
}

// waitOps waits for an ops message that shows want, and returns it.
func (e *env) waitOps(t testing.TB, want string) message {
	t.Helper()
	var found message
	if err := e.slack.Wait(wait, "an ops message with "+want, func() bool {
		for _, m := range e.opsMessages() {
			if strings.Contains(m.shown(), want) {
				found = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	return found
}

// TestEphemeralRetriedAfterRateLimit: chat.postEphemeral answered 429 is
// tried again after Retry-After, in the same channel, before the DM.
func TestEphemeralRetriedAfterRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ownDomain("example.com")
	h.slack.ExpireResponseURLs(true)
	h.slack.Faults.RateLimitNext("chat.postEphemeral", 1)
	h.command(admin, "/mailbox", "add alice@example.com")
	_, spans := credential(t, h.waitEphemeral(admin, 2), general, admin)
	if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("the retry shows %q, the sandbox stored %q", spans, stored)
	}
	if n := len(h.slack.Calls("conversations.open")); n != 0 {
		t.Errorf("%d conversations.open: the DM was tried though the channel only asked to wait", n)
	}
}
