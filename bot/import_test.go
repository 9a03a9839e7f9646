package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// The import form's callback_id and block_ids.
const (
	importCallback = "mailbot_import"
	rowsInput      = "mailbot_rows"
	fileInput      = "mailbot_file"
)

// TestImportOverSlack: /mailbox import opens the form with a CSV
// file_input; a file with bad rows is refused in the form, row by row,
// and nothing runs; a good file (owners by ID and by e-mail) is read with
// the bot token, one approval runs every row once, each owner gets a
// hand-over, the requester one progress message and its summary, and the
// ops channel one notice for the import.
func TestImportOverSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withDomains("example.com"))
	h.ownDomain("example.com")
	h.slack.SetUser(slackfake.User{ID: owner, Email: "ada@example.com", EmailConfirmed: true})
	view, sent := openForm(t, h.env, stranger, "/mailbox", "import")
	slowSlack(h, 20*time.Millisecond)
	if view.CallbackID != importCallback {
		t.Fatalf("callback_id %q", view.CallbackID)
	}
	got := mustJSON(sent)
	for _, want := range []string{`"type":"file_input"`, `"filetypes":["csv"]`, `"max_files":1`, `"multiline":true`} {
		if !strings.Contains(got, want) {
			t.Errorf("the form lacks %s:\n%s", want, got)
		}
	}

	bad := h.slack.UploadFile("bad.csv", "address,owner\nok@example.com\nbob@elsewhere.org\nok@example.com,nobody@example.com\n")
	errs := formErrors(t, submit(t, h.env, stranger, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.FileInput(fileInput, inputAction, bad), slackfake.Text(reasonInput, inputAction, "new office")}}))
	msg, _ := errs[rowsInput].(string)
	for _, want := range []string{"bad.csv, line 3:", "bad.csv, line 4: ok@example.com is in the import twice"} {
		if !strings.Contains(msg, want) {
			t.Errorf("row errors lack %q:\n%s", want, msg)
		}
	}
	if v, _ := h.slack.View(view.ID); v.Closed || h.slack.Downloads(bad.ID) != 1 || h.sim.Requests(pddsim.OpAddMailbox) != 0 {
		t.Fatalf("after a bad file: modal closed %v, %d downloads, %d adds", v.Closed, h.slack.Downloads(bad.ID), h.sim.Requests(pddsim.OpAddMailbox))
	}

	var rows []string
	for i := range 30 {
		switch i % 3 {
		case 0:
			rows = append(rows, fmt.Sprintf("p%02d@example.com,%s,Given,Family", i, owner))
		case 1:
			rows = append(rows, fmt.Sprintf("p%02d@example.com,ada@example.com", i))
		default:
			rows = append(rows, fmt.Sprintf("p%02d@example.com", i))
		}
	}
	good := h.slack.UploadFile("people.csv", strings.Join(rows, "\n"))
	p := submit(t, h.env, stranger, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.FileInput(fileInput, inputAction, good), slackfake.Text(reasonInput, inputAction, "new office")}})
	if p["response_action"] != "update" || !strings.Contains(mustJSON(p["view"]), "Checking the owners of 30 rows (2 people)") {
		t.Fatalf("ack %v, want the form to say the owners are being checked", p)
	}
	waitView(t, h, view.ID, "waits for an admin's approval")
	req := h.waitOps(t, "30 mailboxes")
	if h.sim.Requests(pddsim.OpAddMailbox) != 0 {
		t.Fatal("rows ran before approval")
	}
	value, ok := req.Button("mailbot_approval", "approve")
	if !ok {
		t.Fatalf("the request message has no Approve:\n%s", req.shown())
	}
	ts := ""
	for _, m := range h.slack.Messages(ops) {
		if strings.Contains(mustJSON(m.Blocks), "30 mailboxes") {
			ts = m.TS
		}
	}
	id, err := h.slack.Click(admin, ops, ts, "mailbot_approval", "approve", value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.Socket.WaitAck(id, wait); err != nil {
		t.Fatal(err)
	}
	dm := "D" + strings.TrimPrefix(stranger, "U")
	if err := h.slack.Wait(wait, "the import's summary in the requester's DM", func() bool {
		for _, m := range h.slack.Messages(dm) {
			if strings.Contains(mustJSON(m.Blocks), "30 created, 0 already existing, 0 failed") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 30 {
		t.Errorf("%d adds for 30 rows", n)
	}
	if n := len(h.slack.Messages(ownerDM)); n != 20 {
		t.Errorf("%d direct messages to the owner, want 20 hand-overs (by ID and by e-mail)", n)
	}
	progress := 0
	for _, m := range h.slack.Messages(dm) {
		if strings.Contains(mustJSON(m.Blocks), "Import ") {
			progress++
		}
	}
	if progress != 1 {
		t.Errorf("%d progress messages, want one updated in place", progress)
	}
	// The rows without an owner: one Show button for the requester, which
	// sets and shows all ten passwords, those the sandbox then holds.
	var bundleTS, bundleValue string
	for _, m := range h.slack.Messages(dm) {
		if v, ok := (message{mustPayload(t, m)}).Button(handoverBlk, showButton); ok {
			bundleTS, bundleValue = m.TS, v
		}
	}
	if bundleValue == "" {
		t.Fatal("no Show button for the rows without an owner in the requester's DM")
	}
	click, err := h.slack.Click(stranger, dm, bundleTS, handoverBlk, showButton, bundleValue)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.Socket.WaitAck(click, wait); err != nil {
		t.Fatal(err)
	}
	shown := codeSpans(h.result(click).blocksText())
	var want []string
	for i := 2; i < 30; i += 3 {
		pw, _ := h.sim.Mailbox(fmt.Sprintf("p%02d@example.com", i))
		want = append(want, pw)
	}
	slices.Sort(shown)
	slices.Sort(want)
	if !slices.Equal(shown, want) {
		t.Errorf("the requester was shown %q, the sandbox holds %q", shown, want)
	}
	notices := 0
	for _, m := range h.opsMessages() {
		if strings.Contains(m.shown(), "added mailbox") {
			t.Errorf("an ops notice per row: %s", m.shown())
		}
		if strings.Contains(m.shown(), "imports 30 mailboxes") {
			notices++
		}
	}
	if notices != 1 {
		t.Errorf("%d ops notices for the import, want 1", notices)
	}
}

// mustPayload decodes a message as the fake keeps it.
func mustPayload(t *testing.T, m slackfake.Message) slackfake.Payload {
	t.Helper()
	p, err := slackfake.DecodePayload(`{"text":` + mustJSON(m.Text) + `,"blocks":` + mustJSON(m.Blocks) + `}`)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
