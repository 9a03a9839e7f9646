package slackfake

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

// form is a modal with a required text input (max 20), an optional reason
// and a domain choice with a preselected option.
func form() slack.ModalViewRequest {
	user := slack.NewPlainTextInputBlockElement(plain("alice"), "user")
	user.MaxLength = 20
	reason := slack.NewInputBlock("reason", plain("Reason"), nil, slack.NewPlainTextInputBlockElement(nil, "reason"))
	reason.Optional = true
	opts := []*slack.OptionBlockObject{
		slack.NewOptionBlockObject("example.com", plain("example.com"), nil),
		slack.NewOptionBlockObject("example.org", plain("example.org"), nil),
	}
	domain := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, nil, "domain", opts...)
	domain.InitialOption = opts[1]
	return slack.ModalViewRequest{
		Type: slack.VTModal, Title: plain("Add a mailbox"), Submit: plain("Add"), Close: plain("Cancel"),
		CallbackID: "mailbox_add", PrivateMetadata: "signed:C1",
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("user", plain("User"), nil, user),
			slack.NewInputBlock("domain", plain("Domain"), nil, domain),
			reason,
		}},
	}
}

// openForm opens form() with the trigger of a slash command by user.
func openForm(t *testing.T, f *Server, r *replica, user string) *slack.ViewResponse {
	t.Helper()
	must[string](t)(f.SlashCommand(user, "C1", "/mailbox", ""))
	cmd := r.next(t).Data.(slack.SlashCommand)
	v, err := newAPI(f).OpenView(cmd.TriggerID, form())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestTriggerOpensOneModalOnce(t *testing.T) {
	f := newFake(t)
	r := startReplica(t, f, 1, ackAll)
	api := newAPI(f)
	v := openForm(t, f, r, "U1")
	if !strings.HasPrefix(v.ID, "V") || v.Hash == "" || v.CallbackID != "mailbox_add" {
		t.Errorf("opened view %+v", v.View)
	}
	got, ok := f.View(v.ID)
	if !ok || got.User != "U1" || got.Type != "modal" || got.Version != 1 {
		t.Errorf("fake holds %+v", got)
	}
	trigger := f.Calls("views.open")[0].JSON["trigger_id"].(string)
	if _, err := api.OpenView(trigger, form()); err == nil || err.Error() != "exchanged_trigger_id" {
		t.Errorf("second use of a trigger: %v", err)
	}
	if _, err := api.OpenView("made-up", form()); err == nil || err.Error() != "invalid_trigger_id" {
		t.Errorf("unknown trigger: %v", err)
	}
	f.SetTriggerTTL(time.Nanosecond)
	must[string](t)(f.SlashCommand("U1", "C1", "/mailbox", ""))
	if _, err := api.OpenView(r.next(t).Data.(slack.SlashCommand).TriggerID, form()); err == nil || err.Error() != "expired_trigger_id" {
		t.Errorf("expired trigger: %v", err)
	}
	if c := f.Calls("views.open")[0]; c.JSON == nil || !strings.Contains(c.Body, "mailbox_add") || len(c.Form) != 0 {
		t.Errorf("views.open recorded as %+v", c)
	}
}

func TestViewsUpdateAndPublish(t *testing.T) {
	f := newFake(t)
	r := startReplica(t, f, 1, ackAll)
	api := newAPI(f)
	v := openForm(t, f, r, "U1")
	changed := form()
	changed.Title = plain("Check the form")
	if _, err := api.UpdateView(changed, "", "stale-hash", v.ID); err == nil || err.Error() != "hash_conflict" {
		t.Errorf("stale hash: %v", err)
	}
	up, err := api.UpdateView(changed, "", v.Hash, v.ID)
	if err != nil || up.ID != v.ID || up.Title.Text != "Check the form" || up.Hash == v.Hash {
		t.Fatalf("update: %+v, %v", up, err)
	}
	if _, err := api.UpdateView(changed, "", "", "V404"); err == nil || err.Error() != "not_found" {
		t.Errorf("unknown view: %v", err)
	}
	home := slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: []slack.Block{section("Nothing pending")}}}
	first, err := api.PublishView("U2", home, "")
	if err != nil {
		t.Fatal(err)
	}
	home.Blocks.BlockSet[0] = section("1 pending")
	second, err := api.PublishView("U2", home, first.Hash)
	if err != nil || second.ID != first.ID {
		t.Fatalf("re-publish: %+v, %v", second, err)
	}
	got, ok := f.Home("U2")
	if !ok || got.Version != 2 || !strings.Contains(mustJSON(t, got.JSON), "1 pending") {
		t.Errorf("Home of U2: %+v", got)
	}
	if _, err := f.WaitHome("U2", 2, wait); err != nil {
		t.Error(err)
	}
	vis := f.Texts()
	if contains(vis.Public, "1 pending") || !contains(vis.To["U2"], "1 pending") || !contains(vis.To["U1"], "Check the form") || contains(vis.To["U2"], "Check the form") {
		t.Error("views are not private to their user")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSubmitViewAndReadTheAck(t *testing.T) {
	f := newFake(t)
	errs := map[string]string{"user": "pick another name"}
	r := startReplica(t, f, 1, func(e socketmode.Event) (bool, any) {
		if cb, ok := e.Data.(slack.InteractionCallback); ok && cb.Type == slack.InteractionTypeViewSubmission {
			if cb.View.State.Values["user"]["user"].Value == "taken" {
				return true, slack.NewErrorsViewSubmissionResponse(errs)
			}
			return true, slack.NewClearViewSubmissionResponse()
		}
		return true, nil
	})
	v := openForm(t, f, r, "U1")
	if _, err := f.SubmitView("U1", Submission{ViewID: v.ID, Values: []Value{Text("user", "user", "")}}); err == nil {
		t.Error("an empty required input was submitted")
	}
	if _, err := f.SubmitView("U1", Submission{ViewID: v.ID, Values: []Value{Text("user", "user", strings.Repeat("a", 21))}}); err == nil {
		t.Error("a text over max_length was submitted")
	}
	if _, err := f.SubmitView("U1", Submission{ViewID: v.ID, Values: []Value{Text("nope", "nope", "x")}}); err == nil {
		t.Error("a value for a missing input was submitted")
	}
	if _, err := f.SubmitView("U2", Submission{ViewID: v.ID, Values: []Value{Text("user", "user", "x")}}); err == nil {
		t.Error("another user submitted U1's modal")
	}
	id := must[string](t)(f.SubmitView("U1", Submission{ViewID: v.ID, Values: []Value{Text("user", "user", "taken")}}))
	evt := r.next(t)
	cb := evt.Data.(slack.InteractionCallback)
	vals := cb.View.State.Values
	if !evt.Request.AcceptsResponsePayload || cb.View.ID != v.ID || cb.View.PrivateMetadata != "signed:C1" || cb.Channel.ID != "" || cb.ResponseURL != "" ||
		vals["domain"]["domain"].SelectedOption.Value != "example.org" || vals["reason"]["reason"].Value != "" {
		t.Errorf("submission %+v", cb)
	}
	ack := must[Ack](t)(f.Socket.WaitAck(id, wait))
	var resp slack.ViewSubmissionResponse
	if err := json.Unmarshal(ack.Payload, &resp); err != nil || resp.ResponseAction != slack.RAErrors || resp.Errors["user"] != "pick another name" {
		t.Errorf("ack %s", ack.Payload)
	}
	if len(f.Rejected()) != 0 {
		t.Errorf("rejected %+v", f.Rejected())
	}
	errs = map[string]string{"domain_block": "no such block"}
	id = must[string](t)(f.SubmitView("U1", Submission{ViewID: v.ID, Values: []Value{Text("user", "user", "taken"), Choice("domain", "domain", "example.com")}}))
	r.next(t)
	must[Ack](t)(f.Socket.WaitAck(id, wait))
	if rej := f.Rejected(); len(rej) != 1 || rej[0].Method != "ack" {
		t.Errorf("errors for a block that is not an input: rejected %+v", rej)
	}
	id = must[string](t)(f.SubmitView("U1", Submission{ViewID: v.ID, Values: []Value{Text("user", "user", "bob")}}))
	r.next(t)
	must[Ack](t)(f.Socket.WaitAck(id, wait))
	if got, _ := f.View(v.ID); !got.Closed {
		t.Error("clear did not close the modal")
	}
}

func TestClickInHomeTab(t *testing.T) {
	f := newFake(t)
	sm := socketmode.New(newAPI(f))
	h := socketmode.NewSocketmodeHandler(sm)
	h.HandleDefault(func(*socketmode.Event, *socketmode.Client) {})
	clicks := make(chan slack.InteractionCallback, 1)
	h.HandleInteractionBlockAction("approve", func(e *socketmode.Event, c *socketmode.Client) {
		_ = c.Ack(*e.Request)
		clicks <- e.Data.(slack.InteractionCallback)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = h.RunEventLoopContext(ctx) }()
	if err := f.Socket.WaitConnected(1, wait); err != nil {
		t.Fatal(err)
	}
	button := slack.NewButtonBlockElement("approve", "signed-value", plain("Approve"))
	home := slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: []slack.Block{
		slack.NewActionBlock("req-1", button),
	}}}
	v, err := newAPI(f).PublishView("UADMIN", home, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ClickInView("UOTHER", v.ID, "req-1", "approve", ""); err == nil {
		t.Error("a user clicked in another user's Home tab")
	}
	if _, err := f.ClickInView("UADMIN", v.ID, "req-2", "approve", ""); err == nil {
		t.Error("a click on a block that is not in the view was sent")
	}
	id := must[string](t)(f.ClickInView("UADMIN", v.ID, "req-1", "approve", ""))
	var cb slack.InteractionCallback
	select {
	case cb = <-clicks:
	case <-time.After(wait):
		t.Fatal("the click did not reach HandleInteractionBlockAction")
	}
	a := cb.ActionCallback.BlockActions[0]
	if cb.Container.Type != "view" || cb.View.ID != v.ID || cb.View.Type != slack.VTHomeTab || cb.Channel.ID != "" || cb.ResponseURL != "" ||
		cb.Message.Timestamp != "" || a.BlockID != "req-1" || a.Value != "signed-value" || cb.User.ID != "UADMIN" {
		t.Errorf("click %+v", cb)
	}
	must[Ack](t)(f.Socket.WaitAck(id, wait))
}

func TestEvents(t *testing.T) {
	f := newFake(t)
	r := startReplica(t, f, 1, ackAll)
	api := newAPI(f)
	if _, err := api.PublishView("U1", slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: []slack.Block{section("hi")}}}, ""); err != nil {
		t.Fatal(err)
	}
	must[string](t)(f.AppHomeOpened("U1"))
	ev := r.next(t).Data.(slackevents.EventsAPIEvent)
	opened, ok := ev.InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if ev.Type != slackevents.CallbackEvent || ev.APIAppID != AppID || !ok || opened.User != "U1" || opened.Tab != "home" || opened.View == nil {
		t.Errorf("app_home_opened %+v / %+v", ev, ev.InnerEvent.Data)
	}
	f.SetGroup(Group{ID: "S1", Handle: "mail-admins", Members: []string{"U1", "U2"}})
	must[string](t)(f.SubteamMembersChanged("S1", []string{"U3"}, []string{"U1"}))
	ev = r.next(t).Data.(slackevents.EventsAPIEvent)
	changed, ok := ev.InnerEvent.Data.(*slackevents.SubteamMembersChangedEvent)
	if !ok || changed.SubteamID != "S1" || changed.AddedUsersCount != 1 || changed.RemovedUsers[0] != "U1" {
		t.Errorf("subteam_members_changed %+v", ev.InnerEvent.Data)
	}
	if m, err := api.GetUserGroupMembers("S1"); err != nil || strings.Join(m, ",") != "U2,U3" {
		t.Errorf("members after the change: %v, %v", m, err)
	}
	// The documentation's shape (counts as strings) is one slack-go
	// cannot parse: the client reports the raw message, and the bot must
	// still ack it by its envelope_id.
	id := must[string](t)(f.RawEvent(`{"type":"subteam_members_changed","subteam_id":"S1","added_users":["U4"],"added_users_count":"1","removed_users":[],"removed_users_count":"0"}`))
	bad, ok := r.next(t).Data.(*socketmode.ErrorBadMessage)
	if !ok {
		t.Fatal("slack-go parsed the documented subteam_members_changed")
	}
	var env struct {
		EnvelopeID string `json:"envelope_id"`
	}
	if err := json.Unmarshal(bad.Message, &env); err != nil || env.EnvelopeID != id {
		t.Fatalf("raw message %s", bad.Message)
	}
	if err := r.sm.Send(socketmode.Response{EnvelopeID: env.EnvelopeID}); err != nil {
		t.Fatal(err)
	}
	must[Ack](t)(f.Socket.WaitAck(id, wait))
}
