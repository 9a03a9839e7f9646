package slackfake

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

// postForm posts a form and returns the body.
func postForm(t *testing.T, url, form string) string {
	t.Helper()
	resp, err := http.Post(url, "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func section(text string) *slack.SectionBlock {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil, slack.SectionBlockOptionBlockID("s1"))
}

func TestHistoryReadsBackTheUpdatedMessage(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	_, first := must2(t)(api.PostMessage("COPS", slack.MsgOptionText("first", false)))
	_, ts := must2(t)(api.PostMessage("COPS", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(section("pending"))))
	_, last := must2(t)(api.PostMessage("COPS", slack.MsgOptionText("last", false)))
	if calls := f.Calls("chat.postMessage"); calls[1].TS != ts {
		t.Errorf("Call.TS %q, want %q", calls[1].TS, ts)
	}
	if _, _, _, err := api.UpdateMessage("COPS", ts, slack.MsgOptionText("approved by Ada", false)); err != nil {
		t.Fatal(err)
	}
	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "COPS", Latest: ts, Inclusive: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 1 || !h.HasMore {
		t.Fatalf("history: %d messages, has_more %v; want 1 and more", len(h.Messages), h.HasMore)
	}
	m := h.Messages[0]
	if m.Timestamp != ts || m.Text != "approved by Ada" || m.Edited == nil || m.BotID != BotID || len(m.Blocks.BlockSet) != 1 {
		t.Errorf("history message %+v: want the update, blocks kept", m.Msg)
	}
	if sec, ok := m.Blocks.BlockSet[0].(*slack.SectionBlock); !ok || sec.Text.Text != "pending" || sec.BlockID != "s1" {
		t.Errorf("kept block %+v", m.Blocks.BlockSet[0])
	}
	all, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "COPS", Oldest: first, Latest: last})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Messages) != 1 || all.Messages[0].Timestamp != ts {
		t.Errorf("exclusive range: %d messages", len(all.Messages))
	}
	if _, _, _, err := api.UpdateMessage("COPS", "1.000000", slack.MsgOptionText("x", false)); err == nil || err.Error() != "message_not_found" {
		t.Errorf("update of an unknown message: %v", err)
	}
}

func must2(t *testing.T) func(string, string, error) (string, string) {
	return func(a, b string, err error) (string, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}

func TestThreadReplies(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	_, parent := must2(t)(api.PostMessage("COPS", slack.MsgOptionText("request", false)))
	_, reply := must2(t)(api.PostMessage("COPS", slack.MsgOptionText("reminder <!subteam^S1>", false), slack.MsgOptionTS(parent)))
	got := f.Replies("COPS", parent)
	if len(got) != 1 || got[0].TS != reply || got[0].ThreadTS != parent || got[0].Text != "reminder <!subteam^S1>" {
		t.Errorf("replies %+v", got)
	}
	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "COPS"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 1 || h.Messages[0].ReplyCount != 1 {
		t.Errorf("history %d messages (reply count %d), want the parent alone with 1 reply", len(h.Messages), h.Messages[0].ReplyCount)
	}
	msgs, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: "COPS", Timestamp: parent})
	if err != nil || len(msgs) != 2 {
		t.Errorf("conversations.replies: %d messages, %v", len(msgs), err)
	}
	if !contains(f.Texts().Public, "reminder <!subteam^S1>") {
		t.Error("a thread reply is not public")
	}
}

func TestUsergroups(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	f.SetGroup(Group{ID: "S1", Handle: "mail-admins", Name: "Mail admins", Members: []string{"U1", "U2"}})
	members, err := api.GetUserGroupMembers("S1", slack.GetUserGroupMembersOptionIncludeDisabled(false))
	if err != nil || !cmp.Equal(members, []string{"U1", "U2"}) {
		t.Errorf("members %v, %v", members, err)
	}
	groups, err := api.GetUserGroups()
	if err != nil || len(groups) != 1 || groups[0].Handle != "mail-admins" || groups[0].ID != "S1" {
		t.Errorf("groups %+v, %v", groups, err)
	}
	if _, err := api.GetUserGroupMembers("S9"); err == nil || err.Error() != "no_such_subteam" {
		t.Errorf("unknown group: %v", err)
	}
	f.SetGroupError("S1", "plan_upgrade_required")
	if _, err := api.GetUserGroupMembers("S1"); err == nil || err.Error() != "plan_upgrade_required" {
		t.Errorf("Free workspace: %v", err)
	}
	f.SetGroupError("S1", "")
	f.SetGroupError("", "missing_scope")
	if _, err := api.GetUserGroups(); err == nil || err.Error() != "missing_scope" {
		t.Errorf("missing scope: %v", err)
	}
}

func TestResponseURLFaults(t *testing.T) {
	f := newFake(t)
	url := f.ResponseURL("r1")
	msg := &slack.WebhookMessage{Text: "password", ResponseType: "ephemeral"}
	f.FailResponseURLNext(http.StatusServiceUnavailable, 1)
	f.FailResponseURLNext(http.StatusTooManyRequests, 1)
	f.ResetResponseURLNext(1)
	var code slack.StatusCodeError
	if err := slack.PostWebhook(url, msg); !errors.As(err, &code) || code.Code != http.StatusServiceUnavailable {
		t.Errorf("first post: %v, want 503", err)
	}
	var limited *slack.RateLimitedError
	if err := slack.PostWebhook(url, msg); !errors.As(err, &limited) || limited.RetryAfter != time.Second {
		t.Errorf("second post: %v, want 429 with Retry-After 1", err)
	}
	if err := slack.PostWebhook(url, msg); err == nil || errors.As(err, &code) {
		t.Errorf("third post: %v, want a reset", err)
	}
	if err := slack.PostWebhook(url, msg); err != nil {
		t.Errorf("fourth post: %v", err)
	}
	var statuses []int
	for _, p := range f.PostAttempts("r1") {
		statuses = append(statuses, p.Status)
	}
	if diff := cmp.Diff([]int{503, 429, 0, 200}, statuses); diff != "" || len(f.Posts("r1")) != 1 {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	f.ExpireResponseURLs(true)
	if err := slack.PostWebhook(url, msg); !errors.As(err, &code) || code.Code != http.StatusNotFound {
		t.Errorf("expired: %v", err)
	}
}

func TestChannelNotFoundAndFailNext(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	f.Faults.SetChannelNotFound("CPRIV")
	if _, err := api.PostEphemeral("CPRIV", "U1", slack.MsgOptionText("x", false)); err == nil || err.Error() != "channel_not_found" {
		t.Errorf("postEphemeral: %v", err)
	}
	if _, _, err := api.PostMessage("CPRIV", slack.MsgOptionText("x", false)); err == nil || err.Error() != "channel_not_found" {
		t.Errorf("postMessage: %v", err)
	}
	f.Faults.ClearChannelNotFound("CPRIV")
	if _, err := api.PostEphemeral("CPRIV", "U1", slack.MsgOptionText("x", false)); err != nil {
		t.Errorf("after clearing: %v", err)
	}
	f.Faults.FailNext("conversations.open", "ratelimited")
	if _, _, _, err := api.OpenConversation(&slack.OpenConversationParameters{Users: []string{"U1"}}); err == nil {
		t.Error("FailNext did not fail")
	}
	ch, _, _, err := api.OpenConversation(&slack.OpenConversationParameters{Users: []string{"U1"}})
	if err != nil || ch.ID != "D1" {
		t.Fatalf("conversations.open: %+v, %v", ch, err)
	}
	if _, _, err := api.PostMessage("D1", slack.MsgOptionText("dm only", false)); err != nil {
		t.Fatal(err)
	}
	v := f.Texts()
	if contains(v.Public, "dm only") || !contains(v.To["U1"], "dm only") {
		t.Error("a direct message is not U1's alone")
	}
}

func TestMethodDelayIsPerMethod(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	f.Faults.SetMethodDelay("chat.postEphemeral", time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := api.PostEphemeralContext(ctx, "C1", "U1", slack.MsgOptionText("x", false)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow method: %v, want the deadline", err)
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("x", false)); err != nil {
		t.Errorf("other method: %v", err)
	}
}
