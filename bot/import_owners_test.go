package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands"
)

// slackAnswerWithin is how long Slack waits for a form's answer.
const slackAnswerWithin = 3 * time.Second

// slowSlack makes the fake answer each Web API call after latency and
// keep Slack's rate tiers with a minute as Slack counts it.
func slowSlack(h *harness, latency time.Duration) {
	h.slack.SetCallDelay(latency)
	h.slack.SetRateTiers(time.Minute)
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
	ack, err := h.slack.WaitAck(id, wait)
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
	if n := h.slack.RateLimited("users.lookupByEmail") + h.slack.RateLimited("users.info"); n != 0 {
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
