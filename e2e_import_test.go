package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// importRestartWait bounds the wait for a killed import to be resumed:
// its lease goes stale within a minute, and the sweep runs every second
// with MAILBOT_APPROVAL_TTL=4s.
const importRestartWait = 2 * time.Minute

// testE2EImportKill: with PostgreSQL, an admin imports 120 mailboxes from a
// CSV file through the form; mailbot is killed (SIGKILL) while the answers
// of adds the provider did are held back. The restarted process takes the import over
// when its lease goes stale and finishes it: the provider adds every
// address exactly once (a row whose answer was lost is looked up, not sent
// again), none is skipped, the summary counts them all as
// created, and every owner's row is handed over.
func testE2EImportKill(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	env := w.env(map[string]string{"MAILBOT_DATABASE_URL": pgtest.NewDatabase(t), "MAILBOT_CONCURRENCY": "4", "MAILBOT_APPROVAL_TTL": "4s"})
	const rows = 120
	var csv strings.Builder
	csv.WriteString("address,owner,given,family\n")
	owned := 0
	for i := range rows {
		if i%5 == 0 {
			fmt.Fprintf(&csv, "k%03d@example.com,UOWNER,Kim,Owner\n", i)
			owned++
			continue
		}
		fmt.Fprintf(&csv, "k%03d@example.com\n", i)
	}
	// The sandbox behind a proxy that lets every add happen, counts those
	// that did by address, and from the 41st on holds the answer: mailbot
	// is killed with adds done whose answers it never got.
	var adds atomic.Int64
	var mu sync.Mutex
	done := map[string]int{}
	held, arrived := make(chan struct{}), make(chan struct{}, 1)
	release := sync.OnceFunc(func() { close(held) })
	t.Cleanup(release)
	proxy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := r.Clone(context.WithoutCancel(r.Context()))
		req.Body = io.NopCloser(bytes.NewReader(raw))
		rec := httptest.NewRecorder()
		w.sim.ServeHTTP(rec, req)
		if strings.HasSuffix(r.URL.Path, "/email/add") && strings.Contains(rec.Body.String(), `"success":"ok"`) {
			form, _ := url.ParseQuery(string(raw))
			mu.Lock()
			done[form.Get("login")+"@"+form.Get("domain")]++
			mu.Unlock()
			if adds.Add(1) > 40 {
				select {
				case arrived <- struct{}{}:
				default:
				}
				<-held
			}
		}
		for k, v := range rec.Header() {
			rw.Header()[k] = v
		}
		rw.WriteHeader(rec.Code)
		_, _ = rw.Write(rec.Body.Bytes())
	}))
	t.Cleanup(proxy.Close)
	env["PDD_BASE_URL"] = proxy.URL
	first := w.serve("first", env)

	if _, err := w.fake.SlashCommand(e2eAdmin1, "CGENERAL", "/mailbox", "import"); err != nil {
		t.Fatal(err)
	}
	view, err := w.fake.WaitModal(e2eAdmin1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	file := w.fake.UploadFile("staff.csv", csv.String())
	sub, err := w.fake.SubmitView(e2eAdmin1, slackfake.Submission{ViewID: view.ID, Values: []slackfake.Value{slackfake.FileInput("mailbot_file", "value", file)}})
	if err != nil {
		t.Fatal(err)
	}
	// Rows with owners: the form is answered at once with a "checking" view,
	// and the owners are checked after the answer.
	if ack, err := w.fake.Socket.WaitAck(sub, e2eWait); err != nil || !strings.Contains(string(ack.Payload), `"update"`) ||
		!strings.Contains(string(ack.Payload), "Checking the owners") {
		t.Fatalf("submission ack %s, %v", ack.Payload, err)
	}
	select {
	case <-arrived:
	case <-time.After(e2eWait):
		t.Fatal("the import never reached its 41st add")
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait(e2eWait)
	release() // the adds in flight complete at the provider: their answers are lost
	second := w.serve("second", env)
	want := fmt.Sprintf("%d created, 0 already existing, 0 failed", rows)
	if err := w.fake.Wait(importRestartWait, "the resumed import's summary", func() bool {
		for _, m := range w.fake.Messages("DADMIN1") {
			if strings.Contains(fmt.Sprint(m.Blocks), want) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	if log := second.stderr.String(); !strings.Contains(log, "import resumed") {
		t.Error("the second process did not log that it resumed the import")
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range rows {
		if a := fmt.Sprintf("k%03d@example.com", i); done[a] != 1 {
			t.Errorf("%s was added %d times by the provider, want exactly once", a, done[a])
		}
	}
	if n := adds.Load(); n != rows {
		t.Errorf("%d adds done for %d rows", n, rows)
	}
	if got := len(w.fake.Messages("DOWNER")); got < owned {
		var dms strings.Builder
		for _, m := range w.fake.Messages("DOWNER") {
			dms.WriteString(fmt.Sprint(m.Blocks) + "\n")
		}
		var missing []string
		for i := 0; i < rows; i += 5 {
			if a := fmt.Sprintf("k%03d@example.com", i); !strings.Contains(dms.String(), a) {
				missing = append(missing, a)
			}
		}
		t.Errorf("%d direct messages to UOWNER, want a hand-over for each of the %d rows it owns; none for %v", got, owned, missing)
	}
}
