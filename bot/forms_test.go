package bot_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// The form's callback_id and its inputs' block_ids; each input's action_id
// is "value".
const (
	formCallback = "mailbot_form"
	userInput    = "mailbot_user"
	domainInput  = "mailbot_domain"
	reasonInput  = "mailbot_reason"
	forInput     = "mailbot_for"
	inputAction  = "value"
)

// openForm types a bare command and returns the modal it opened, as the
// bot sent it to views.open.
func openForm(t *testing.T, e *env, user, cmd, text string) (slackfake.View, map[string]any) {
	t.Helper()
	id, ack := e.command(user, cmd, text)
	if len(ack.Payload) != 0 && string(ack.Payload) != "null" {
		t.Errorf("the ack of a bare command carries %s, want nothing (the form opens)", ack.Payload)
	}
	view, err := e.slack.WaitModal(user, wait)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	for _, c := range e.slack.Calls("views.open") {
		if c.JSON["trigger_id"] == "trigger-"+id {
			sent, _ = c.JSON["view"].(map[string]any)
		}
	}
	if sent == nil {
		t.Fatalf("no views.open with the command's trigger trigger-%s", id)
	}
	return view, sent
}

// formInput describes one input of a modal: its block_id, element type,
// whether it is optional, the options' values and the initial option.
type formInput struct {
	Block, Type string
	Optional    bool
	Options     []string
	Initial     string
}

func formInputs(view map[string]any) []formInput {
	var out []formInput
	for _, b := range view["blocks"].([]any) {
		bm := b.(map[string]any)
		if bm["type"] != "input" {
			continue
		}
		el := bm["element"].(map[string]any)
		in := formInput{Block: bm["block_id"].(string), Type: el["type"].(string), Optional: bm["optional"] == true}
		for _, o := range asList(el["options"]) {
			in.Options = append(in.Options, o.(map[string]any)["value"].(string))
		}
		if io, ok := el["initial_option"].(map[string]any); ok {
			in.Initial = io["value"].(string)
		}
		if el["action_id"] != inputAction {
			in.Type += " (action_id " + el["action_id"].(string) + ")"
		}
		out = append(out, in)
	}
	return out
}

func asList(v any) []any { l, _ := v.([]any); return l }

func TestBareCommandOpensForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, user, cmd, text string
		opts                  []option
		want                  []formInput
	}{
		{"mailbox, exact domains", admin, "/mailbox", "", []option{withDomains("example.com", "example.org"), withDefaultDomain("example.org")},
			[]formInput{{userInput, "plain_text_input", false, nil, ""}, {"mailbot_name", "plain_text_input", true, nil, ""},
				{domainInput, "static_select", false, []string{"example.com", "example.org"}, "example.org"},
				{forInput, "users_select", true, nil, ""},
				{reasonInput, "plain_text_input", true, nil, ""}}},
		{"mailbox add, approval needed", stranger, "/mailbox", "add", []option{withApprovals(commands.ApprovalsRequests), withDomains("example.com")},
			[]formInput{{userInput, "plain_text_input", false, nil, ""}, {"mailbot_name", "plain_text_input", true, nil, ""},
				{domainInput, "static_select", false, []string{"example.com"}, ""},
				{forInput, "users_select", true, nil, ""},
				{reasonInput, "plain_text_input", false, nil, ""}}},
		{"maildomain, wildcard allow-list", admin, "/maildomain", "", []option{withDomains("*.example.org", "example.org")},
			[]formInput{{domainInput, "plain_text_input", false, nil, ""}, {reasonInput, "plain_text_input", true, nil, ""}}},
		{"maildomain register, mode all", admin, "/maildomain", "register", []option{withApprovals(commands.ApprovalsAll)},
			[]formInput{{domainInput, "plain_text_input", false, nil, ""}, {reasonInput, "plain_text_input", false, nil, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.opts...)
			view, sent := openForm(t, h.env, tc.user, tc.cmd, tc.text)
			if diff := cmp.Diff(tc.want, formInputs(sent)); diff != "" {
				t.Errorf("form inputs (-want +got):\n%s", diff)
			}
			if view.CallbackID != formCallback || !strings.HasPrefix(view.PrivateMetadata, "f1.") {
				t.Errorf("modal callback_id %q, private_metadata %q; want %q and a signed value", view.CallbackID, view.PrivateMetadata, formCallback)
			}
			golden(t, "form_"+strings.NewReplacer(" ", "_", ",", "").Replace(tc.name), signed(sent))
			if h.sim.Requests("") != 0 {
				t.Error("a bare command reached the PDD API")
			}
		})
	}
}

// TestBareCommandRefusedWithoutForm: someone who may not run operations
// (approvals off) is told so, and no form opens.
func TestBareCommandRefusedWithoutForm(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, ack := h.command(stranger, "/mailbox", "")
	wantContains(t, "reply", ackMessage(t, ack).shown(), "Not allowed")
	if n := len(h.slack.Calls("views.open")); n != 0 {
		t.Errorf("%d views.open for a refused user, want 0", n)
	}
}

// submit submits a form and returns the ack's payload.
func submit(t *testing.T, e *env, user string, sub slackfake.Submission) map[string]any {
	t.Helper()
	id, err := e.slack.SubmitView(user, sub)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := e.slack.Socket.WaitAck(id, wait)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	_ = json.Unmarshal(ack.Payload, &p)
	return p
}

// formErrors returns the errors of a response_action errors, or fails.
func formErrors(t *testing.T, p map[string]any) map[string]any {
	t.Helper()
	errs, ok := p["errors"].(map[string]any)
	if p["response_action"] != "errors" || !ok {
		t.Fatalf("ack payload %v, want response_action errors", p)
	}
	return errs
}

func TestFormSubmission(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDomains("example.com", "example.org"), withDefaultDomain("example.org"))
	h.ownDomain("example.com")
	view, _ := openForm(t, h.env, admin, "/mailbox", "")

	errs := formErrors(t, submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID,
		Values: []slackfake.Value{slackfake.Text(userInput, inputAction, "-alice")}}))
	if len(errs) != 1 || !strings.Contains(errs[userInput].(string), "-alice") {
		t.Errorf("errors %v, want one for %s naming the bad user name", errs, userInput)
	}
	if v, _ := h.slack.View(view.ID); v.Closed || h.sim.Requests("") != 1 {
		t.Errorf("after an invalid submission: modal closed %v, %d PDD requests (want open, 1: the test's own)", v.Closed, h.sim.Requests(""))
	}

	// A modified client may send a domain that is not among the choices.
	errs = formErrors(t, submit(t, h.env, admin, slackfake.Submission{CallbackID: formCallback, PrivateMetadata: view.PrivateMetadata,
		Values: []slackfake.Value{slackfake.Text(userInput, inputAction, "alice"), slackfake.Choice(domainInput, inputAction, "evil.example")}}))
	if msg, _ := errs[domainInput].(string); len(errs) != 1 || !strings.Contains(msg, "not in the list of allowed domains") {
		t.Errorf("errors %v, want one for %s: not allowed", errs, domainInput)
	}

	p := submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(userInput, inputAction, "Alice"), slackfake.Choice(domainInput, inputAction, "example.com")}})
	if p["response_action"] != "clear" {
		t.Errorf("ack payload %v, want response_action clear", p)
	}
	_, spans := credential(t, h.waitEphemeral(admin, 1), general, admin)
	if stored, _ := h.sim.Mailbox("alice@example.com"); len(spans) != 1 || spans[0] != stored {
		t.Errorf("the submitter sees %q, the sandbox stored %q", spans, stored)
	}
	h.waitOps(t, "alice@example.com")
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("%d email/add, want 1", n)
	}
	if v, _ := h.slack.View(view.ID); !v.Closed {
		t.Error("the modal is still open after a valid submission")
	}
}

// TestFormNeedsReasonForApproval: a form whose operation needs approval
// is refused without a reason (checked by mailbot, not only by Slack's
// client), and with one it posts the request and tells the requester, in
// the channel where the command was typed.
func TestFormNeedsReasonForApproval(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests))
	view, _ := openForm(t, h.env, stranger, "/maildomain", "")
	// Slack's client would not submit an empty required input: send what
	// a modified client could.
	errs := formErrors(t, submit(t, h.env, stranger, slackfake.Submission{CallbackID: formCallback, PrivateMetadata: view.PrivateMetadata,
		Values: []slackfake.Value{slackfake.Text(domainInput, inputAction, "example.com")}}))
	if _, ok := errs[reasonInput]; len(errs) != 1 || !ok {
		t.Errorf("errors %v, want one for %s", errs, reasonInput)
	}
	if n := len(h.approvalRequests()); n != 0 {
		t.Fatalf("%d requests posted for a form without a reason", n)
	}
	p := submit(t, h.env, stranger, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(domainInput, inputAction, "Example.COM"), slackfake.Text(reasonInput, inputAction, "new brand")}})
	if p["response_action"] != "clear" {
		t.Errorf("ack payload %v, want response_action clear", p)
	}
	pending, _ := credential(t, h.waitEphemeral(stranger, 1), general, stranger)
	wantContains(t, "pending notice", pending.shown(), "waiting for approval", "register domain example.com")
	if reqs := h.approvalRequests(); len(reqs) != 1 || !strings.Contains(reqs[0].msg.shown(), "new brand") {
		t.Errorf("requests posted: %d, want 1 with the reason", len(reqs))
	}
	if h.sim.Requests("") != 0 {
		t.Error("a form that needs approval reached the PDD API")
	}
}

// TestFormForgedMetadataRefused: a submission whose private_metadata was
// not signed by this mailbot (changed, unsigned, another kind of signed
// value) is answered with an error and runs nothing.
func TestFormForgedMetadataRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	view, _ := openForm(t, h.env, admin, "/maildomain", "")
	parts := strings.Split(view.PrivateMetadata, ".")
	other := base64.RawURLEncoding.EncodeToString([]byte(`{"c":"CELSEWHERE","a":"register"}`))
	for name, md := range map[string]string{
		"another channel": parts[0] + "." + other + "." + parts[2],
		"unsigned":        parts[0] + "." + other,
		"empty":           "",
		"garbage":         "CGENERAL",
		"a button value":  "p1." + parts[1] + "." + parts[2],
	} {
		errs := formErrors(t, submit(t, h.env, admin, slackfake.Submission{CallbackID: formCallback, PrivateMetadata: md,
			Values: []slackfake.Value{slackfake.Text(domainInput, inputAction, "example.com")}}))
		if len(errs) != 1 || !strings.Contains(errs[domainInput].(string), "not valid") {
			t.Errorf("%s: errors %v, want the form refused", name, errs)
		}
	}
	if err := h.r.stop(); err != nil { // whatever it queued is done
		t.Fatal(err)
	}
	if n := h.sim.Requests("") + len(h.slack.Calls("chat.postEphemeral")); n != 0 {
		t.Errorf("%d PDD requests and ephemerals after forged forms, want 0", n)
	}
}
