package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot/slackfake"
)

// The owners benchmark's world: a workspace of workspacePeople, an import
// of importRows rows each with its own owner given by e-mail, and Slack
// answering each Web API call in slackLatency within its rate tiers.
const (
	workspacePeople = 3000
	slackLatency    = 150 * time.Millisecond
)

// BenchmarkImportOwners runs the built mailbot against the fake Slack
// (150 ms a call, Slack's rate tiers with Slack's minute) and imports
// 1,000 rows with 1,000 distinct owners by e-mail from a workspace of
// 3,000 people, as a member whose import needs approval. It reports the
// time from the submission to the form's answer and to the checked
// import (the form says it waits for approval), the Slack calls the
// check made, and the calls Slack answered 429 (each retried after its
// Retry-After; a 429 not retried would leave a row "could not look up").
func BenchmarkImportOwners(b *testing.B) {
	bin := buildRelease(b)
	for range b.N {
		fake := slackfake.New()
		sim := tlsSandbox(b, apiclient.ProviderPDD)
		env := map[string]string{"MAILBOT_APPROVALS": "requests", "SSL_CERT_FILE": sim.caFile}
		for _, kv := range sim.vars {
			env[kv[0]] = kv[1]
		}
		_, _, _, stop := startRelease(b, bin, fake, env)
		r := checkOwners(b, fake)
		stop()
		sim.close()
		fake.Close()
		b.ReportMetric(r.answer.Seconds()*1000, "answer-ms")
		b.ReportMetric(r.checked.Seconds(), "checked-s")
		for _, m := range []string{"users.list", "users.lookupByEmail", "users.info", "views.update"} {
			b.ReportMetric(float64(r.calls[m]), m)
		}
		b.ReportMetric(float64(r.limited), "429s")
	}
}

type ownersRun struct {
	answer, checked time.Duration
	calls           map[string]int
	limited         int
}

func checkOwners(b *testing.B, fake *slackfake.Server) ownersRun {
	b.Helper()
	id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", "register imp.example.com")
	mustB(b, err)
	_, err = fake.WaitPosts(id, 1, benchWait)
	mustB(b, err)
	var rows strings.Builder
	rows.WriteString("address,owner,given,family\n")
	for i := range workspacePeople {
		email := fmt.Sprintf("person%04d@people.example.org", i)
		fake.SetUser(slackfake.User{ID: fmt.Sprintf("UP%05d", i), Email: email, EmailConfirmed: true})
		if i < importRows {
			fmt.Fprintf(&rows, "i%04d@imp.example.com,%s\n", i, email)
		}
	}
	file := fake.UploadFile("people.csv", rows.String())
	_, err = fake.SlashCommand("UMEMBER", "CGENERAL", "/mailbox", "import")
	mustB(b, err)
	view, err := fake.WaitModal("UMEMBER", benchWait)
	mustB(b, err)
	fake.Faults.SetCallDelay(slackLatency)
	fake.Faults.SetRateTiers(time.Minute)
	before := map[string]int{}
	methods := []string{"users.list", "users.lookupByEmail", "users.info", "views.update"}
	for _, m := range methods {
		before[m] = len(fake.Calls(m))
	}
	begin := time.Now()
	sub, err := fake.SubmitView("UMEMBER", slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{
		slackfake.FileInput("mailbot_file", "value", file), slackfake.Text("mailbot_reason", "value", "new office")}})
	mustB(b, err)
	ack, err := fake.Socket.WaitAck(sub, benchWait)
	mustB(b, err)
	r := ownersRun{answer: ack.At.Sub(ack.Sent), calls: map[string]int{}}
	mustB(b, fake.Wait(benchWait, "the checked import", func() bool {
		v, _ := fake.View(view.ID)
		raw, _ := json.Marshal(v.JSON["blocks"])
		if strings.Contains(string(raw), "Nothing was imported") {
			b.Fatalf("the check refused the import: %s", raw)
		}
		return strings.Contains(string(raw), "waits for an admin")
	}))
	r.checked = time.Since(begin)
	for _, m := range methods {
		r.calls[m] = len(fake.Calls(m)) - before[m]
		r.limited += fake.Faults.RateLimited(m)
	}
	return r
}
