package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// importRows is how many rows the import benchmark creates.
const importRows = 1000

// BenchmarkImport runs the built mailbot against the fake Slack and PDD's
// sandbox over HTTPS with 20 ms latency, at MAILBOT_CONCURRENCY=8, and
// imports 1,000 mailboxes from a CSV file through the /mailbox import
// form, as an admin (no approval), with Slack's rate tiers on. It reports the wall time from the
// submission to the summary against the ideal (rows × latency ÷
// concurrency = 2.5 s; Microsoft 365's add is two writes, its ideal 5 s), the peak RSS growth over idle, the Slack writes
// of the progress message, the provider's requests per row, and with
// PostgreSQL the database transactions per row (every statement of the
// store is its own transaction but the import's save).
func BenchmarkImport(b *testing.B) {
	bin := buildRelease(b)
	for _, tc := range []struct {
		provider string
		db       bool
		writes   int // the writes of one add: Microsoft 365's user, then its licence
	}{{apiclient.ProviderPDD, false, 1}, {apiclient.ProviderPDD, true, 1}, {apiclient.ProviderM365, false, 2}} {
		db := tc.db
		b.Run(fmt.Sprintf("%s/db=%v", tc.provider, db), func(b *testing.B) {
			for range b.N {
				env := map[string]string{"MAILBOT_CONCURRENCY": "8", "MAILBOT_PROVIDER": tc.provider}
				dsn := ""
				if db {
					dsn = pgtest.NewDatabase(b)
					env["MAILBOT_DATABASE_URL"] = dsn
				}
				r := runImport(b, bin, tc.provider, env, dsn)
				ideal := time.Duration(importRows*tc.writes) * sandboxLatency / 8
				b.ReportMetric(r.wall.Seconds(), "wall-s")
				b.ReportMetric(r.wall.Seconds()/ideal.Seconds(), "x-ideal")
				b.ReportMetric((r.peakKB-r.idleKB)/1024, "rss-growth-MiB")
				b.ReportMetric(float64(r.progressWrites), "progress-writes")
				b.ReportMetric(r.wall.Seconds()/2+1, "progress-writes-allowed")
				b.ReportMetric(float64(r.providerRequests)/importRows, "provider-req/row")
				b.ReportMetric(float64(r.limited), "slack-429s")
				if db {
					b.ReportMetric(float64(r.xacts)/importRows, "db-xact/row")
				}
			}
		})
	}
}

type importRun struct {
	wall             time.Duration
	idleKB, peakKB   float64
	progressWrites   int
	providerRequests int64
	xacts            int64
	limited          int // Slack calls answered 429
}

func runImport(b *testing.B, bin, provider string, env map[string]string, dsn string) importRun {
	b.Helper()
	fake := slackfake.New()
	defer fake.Close()
	sim := tlsSandbox(b, provider)
	defer sim.close()
	for _, kv := range sim.vars {
		env[kv[0]] = kv[1]
	}
	env["SSL_CERT_FILE"] = sim.caFile
	pid, _, _, stop := startRelease(b, bin, fake, env)
	defer stop()
	id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", "register imp.example.com")
	mustB(b, err)
	_, err = fake.WaitPosts(id, 1, benchWait)
	mustB(b, err)
	// The domain's owner proves it, where the provider asks (users only in
	// verified domains).
	if provider != apiclient.ProviderPDD {
		sim.handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/sim/domain?name=imp.example.com", nil))
	}
	var rows strings.Builder
	rows.WriteString("address,owner,given,family\n")
	for i := range importRows {
		fmt.Fprintf(&rows, "i%04d@imp.example.com\n", i)
	}
	file := fake.UploadFile("people.csv", rows.String())
	_, err = fake.SlashCommand("UADMIN1", "CGENERAL", "/mailbox", "import")
	mustB(b, err)
	view, err := fake.WaitModal("UADMIN1", benchWait)
	mustB(b, err)
	fake.Faults.SetRateTiers(time.Minute) // Slack's tiers, from the submission on
	var r importRun
	r.idleKB = idleRSS(pid)
	xacts0 := dbXacts(b, dsn)
	requests0 := sim.requests.Load()
	begin := time.Now()
	sub, err := fake.SubmitView("UADMIN1", slackfake.Submission{ViewID: view.ID,
		Values: []slackfake.Value{slackfake.FileInput("mailbot_file", "value", file)}})
	mustB(b, err)
	_, err = fake.Socket.WaitAck(sub, benchWait)
	mustB(b, err)
	want := fmt.Sprintf("%d created, 0 already existing, 0 failed", importRows)
	defer func() {
		if b.Failed() {
			for _, c := range fake.Calls("chat.postEphemeral") {
				b.Log(c.Form.Get("text"))
			}
			for _, m := range fake.Messages("DADMIN1") {
				b.Log(m.Text)
			}
		}
	}()
	mustB(b, fake.Wait(benchWait, "the import's summary", func() bool {
		for _, m := range fake.Messages("DADMIN1") {
			if strings.Contains(fmt.Sprint(m.Blocks), want) {
				return true
			}
		}
		return false
	}))
	r.wall = time.Since(begin)
	for m := range slackfake.MethodTiers {
		r.limited += fake.Faults.RateLimited(m)
	}
	r.limited += fake.Faults.RateLimited("chat.postMessage")
	r.peakKB = procKB(pid, "VmHWM")
	r.providerRequests = sim.requests.Load() - requests0
	if dsn != "" {
		// A backend reports its statistics within a second of going idle:
		// a measurement window, not a synchronisation.
		<-time.After(1500 * time.Millisecond)
	}
	r.xacts = dbXacts(b, dsn) - xacts0
	for _, c := range append(fake.Calls("chat.update"), fake.Calls("chat.postMessage")...) {
		if c.Form.Get("channel") == "DADMIN1" && c.At.After(begin) && strings.Contains(c.Form.Get("blocks"), "Import ") {
			r.progressWrites++
		}
	}
	return r
}

// dbXacts is the transactions committed in dsn's database so far; 0
// without a database.
func dbXacts(b *testing.B, dsn string) int64 {
	if dsn == "" {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	mustB(b, err)
	defer func() { _ = conn.Close(ctx) }()
	var n int64
	// The statistics are sent when a backend goes idle; ask for a fresh
	// snapshot.
	_, _ = conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
	mustB(b, conn.QueryRow(ctx, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").Scan(&n))
	return n
}
