package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// slackAnswerWithin is how long Slack waits for a form's answer.
const slackAnswerWithin = 3 * time.Second

// slowSlack makes the fake answer each Web API call after latency and
// keep Slack's rate tiers with a minute as Slack counts it.
func slowSlack(h *harness, latency time.Duration) {
	h.slack.Faults.SetCallDelay(latency)
	h.slack.Faults.SetRateTiers(time.Minute)
}

// ownersCSV is n rows, each with its own owner given by e-mail, every
// owner a member of the fake's workspace.
func ownersCSV(h *harness, n int) string {
	var rows []string
	for i := range n {
		email := fmt.Sprintf("owner%04d@example.org", i)
		h.slack.SetUser(slackfake.User{ID: fmt.Sprintf("UOWN%04d", i), Email: email, EmailConfirmed: true})
		rows = append(rows, fmt.Sprintf("m%04d@example.com,%s", i, email))
	}
	return strings.Join(rows, "\n")
}

// TestImportManyOwnersOnSlowSlack: an import of 30 rows whose 30 owners
// are given by e-mail, on a Slack that answers each call in 100 ms and
// keeps its rate tiers: the form is answered within Slack's 3 s, every
// owner is found, and the import goes to the admins whole.
func TestImportManyOwnersOnSlowSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withDomains("example.com"))
	h.ownDomain("example.com")
	view, _ := openForm(t, h.env, stranger, "/mailbox", "import")
	slowSlack(h, 100*time.Millisecond)
	file := h.slack.UploadFile("people.csv", ownersCSV(h, 30))
	id, err := h.slack.SubmitView(stranger, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.FileInput(fileInput, inputAction, file), slackfake.Text(reasonInput, inputAction, "new office")}})
	if err != nil {
		t.Fatal(err)
	}
	ack, err := h.slack.Socket.WaitAck(id, wait)
	if err != nil {
		t.Fatal(err)
	}
	if took := ack.At.Sub(ack.Sent); took > slackAnswerWithin {
		t.Errorf("the form was answered after %s, Slack waits %s", took, slackAnswerWithin)
	}
	if strings.Contains(string(ack.Payload), `"errors"`) {
		t.Fatalf("the form was refused: %s", ack.Payload)
	}
	h.waitOps(t, "30 mailboxes")
	if n := h.slack.Faults.RateLimited("users.lookupByEmail") + h.slack.Faults.RateLimited("users.info"); n != 0 {
		t.Logf("%d calls answered 429", n)
	}
}

// waitView waits until the modal id shows want.
func waitView(t *testing.T, h *harness, id, want string) slackfake.View {
	t.Helper()
	var v slackfake.View
	if err := h.slack.Wait(wait, "the form to say "+want, func() bool {
		v, _ = h.slack.View(id)
		return strings.Contains(mustJSON(v.JSON["blocks"]), want)
	}); err != nil {
		t.Fatalf("%v; the form shows %s", err, mustJSON(v.JSON["blocks"]))
	}
	return v
}

// TestImportOwnerProblemsShownInTheForm: owners that are not fine (an
// e-mail nobody has, a deactivated person, one Slack hides from the app)
// come back in the still-open form, row by row, with the typed rows and
// the reason kept; nothing runs.
func TestImportOwnerProblemsShownInTheForm(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withApprovals(commands.ApprovalsRequests), withDomains("example.com"))
	h.ownDomain("example.com")
	h.slack.SetUser(slackfake.User{ID: "UGONE", Deleted: true})
	h.slack.SetUser(slackfake.User{ID: "UHIDDEN", NotVisible: true})
	view, _ := openForm(t, h.env, stranger, "/mailbox", "import")
	slowSlack(h, 20*time.Millisecond)
	typed := "a@example.com,nobody@example.org\nb@example.com,UGONE\nc@example.com,UHIDDEN\nd@example.com"
	p := submit(t, h.env, stranger, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(rowsInput, inputAction, typed), slackfake.Text(reasonInput, inputAction, "new office")}})
	if p["response_action"] != "update" {
		t.Fatalf("ack %v, want the checking view", p)
	}
	v := waitView(t, h, view.ID, "Nothing was imported")
	shown := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(mustJSON(v.JSON["blocks"]))
	for _, want := range []string{"Line 1: nobody in Slack has the e-mail address nobody@example.org",
		"Line 2: <@UGONE> is deactivated", "Line 3: <@UHIDDEN> is hidden from mailbot by Slack", `"initial_value":"new office"`} {
		if !strings.Contains(shown, want) {
			t.Errorf("the form lacks %q:\n%s", want, shown)
		}
	}
	if !strings.Contains(shown, mustJSON(typed)) {
		t.Errorf("the typed rows are not kept in the form:\n%s", shown)
	}
	if strings.Contains(shown, "Line 4") || v.Closed || v.CallbackID != importCallback {
		t.Errorf("a fine row reported, or the form not the import's (closed %v, %q)", v.Closed, v.CallbackID)
	}
	if n := len(h.opsMessages()); n != 0 {
		t.Errorf("%d ops messages for a refused import", n)
	}
}

// TestImportOwnerProblemsAfterTheFormClosed: when the requester closed
// the form before the owners were checked, the problems come in a message
// that says nothing was imported.
func TestImportOwnerProblemsAfterTheFormClosed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDomains("example.com"))
	h.ownDomain("example.com")
	view, _ := openForm(t, h.env, admin, "/mailbox", "import")
	release := h.slack.Faults.Hold("users.lookupByEmail")
	defer release()
	p := submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(rowsInput, inputAction, "a@example.com,nobody@example.org")}})
	if p["response_action"] != "update" {
		t.Fatalf("ack %v, want the checking view", p)
	}
	if !h.slack.CloseView(view.ID) {
		t.Fatal("the form was not open")
	}
	release()
	if err := h.slack.Wait(wait, "the problems in a message", func() bool {
		for _, s := range h.slack.Texts().To[admin] {
			if strings.Contains(s, "Nothing was imported") && strings.Contains(s, "nobody in Slack has the e-mail address nobody@example.org") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if n := h.sim.Requests(pddsim.OpAddMailbox); n != 0 {
		t.Errorf("%d adds", n)
	}
}

// TestUserNotVisible: a person Slack hides from the app (users.info
// answers user_not_visible) is told apart in words, and nothing is done:
// a hand-over for them, and their own self-service reset.
func TestUserNotVisible(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(s *settings) { s.core.SelfService = commands.SelfServiceReset })
	h.ownDomain("example.com")
	h.slack.SetUser(slackfake.User{ID: owner, NotVisible: true})
	id, _ := h.command(admin, "/mailbox", "add ada@example.com for <@UADA>")
	wantContains(t, "add for a hidden person", h.result(id).shown(), "hidden from mailbot by Slack", "cannot hand the credentials over")
	id, _ = h.command(owner, "/mailbox", "reset")
	wantContains(t, "a hidden person's self-service", h.result(id).shown(), "Slack does not let mailbot see your profile")
	if n := h.sim.Requests(pddsim.OpAddMailbox) + h.sim.Requests(pddsim.OpEditMailbox); n != 0 {
		t.Errorf("%d provider writes", n)
	}
}

// TestImportOwnersRetryAfter429: a look-up or a page of the people that
// Slack answers 429 is asked again after its Retry-After, and every owner
// is found.
func TestImportOwnersRetryAfter429(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method string
		owners int
	}{{"users.lookupByEmail", 5}, {"users.list", 30}} {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, withApprovals(commands.ApprovalsRequests), withDomains("example.com"))
			h.ownDomain("example.com")
			view, _ := openForm(t, h.env, stranger, "/mailbox", "import")
			slowSlack(h, 10*time.Millisecond)
			h.slack.Faults.RateLimitNext(tc.method, 2)
			p := submit(t, h.env, stranger, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
				slackfake.Text(rowsInput, inputAction, ownersCSV(h, tc.owners)), slackfake.Text(reasonInput, inputAction, "new office")}})
			if p["response_action"] != "update" {
				t.Fatalf("ack %v, want the checking view", p)
			}
			waitView(t, h, view.ID, "waits for an admin's approval")
			if n := len(h.slack.Calls(tc.method)); n < 3 {
				t.Errorf("%d calls of %s: the 429s were not asked again", n, tc.method)
			}
		})
	}
}

// TestImportWithOwnersDuringStop: an import with owners submitted while
// mailbot stops is not taken for a check it could not finish: the form
// stays open saying mailbot is restarting, and nothing runs.
func TestImportWithOwnersDuringStop(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDomains("example.com", "inflight.com"))
	h.ownDomain("example.com")
	view, _ := openForm(t, h.env, admin, "/mailbox", "import")
	g := h.holdRequests()
	h.command(admin, "/maildomain", "register inflight.com")
	g.next(t) // keeps the drain going
	h.r.cancel()
	if err := h.slack.Wait(wait, "draining", func() bool { return !h.r.bot.Ready() }); err != nil {
		t.Fatal(err)
	}
	p := submit(t, h.env, admin, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.Text(rowsInput, inputAction, ownersCSV(h, 3))}})
	told := fmt.Sprint(formErrors(t, p)[rowsInput])
	g.release()
	if !strings.Contains(told, "restarting") || !strings.Contains(told, "Nothing was done") {
		t.Errorf("an import submitted during the stop was answered %q", told)
	}
	if err := h.r.wait(); err != nil {
		t.Error(err)
	}
	if n := len(h.slack.Calls("users.lookupByEmail")); n != 0 {
		t.Errorf("%d owners looked up during the stop", n)
	}
}
