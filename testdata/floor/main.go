// Command floor is the leanest Socket Mode bot for mailbot's job, the
// yardstick of BenchmarkRelease (docs/performance.md): it acknowledges
// `/maildomain register <domain>`, registers the domain with the PDD API
// over HTTPS, posts the API's answer to the command's response_url and a
// line to the ops channel, with the same environment as `mailbot serve`
// and the same HTTP connection pools. It checks, renders, records and
// logs nothing. Built with -tags libs it also links and uses what the
// design card requires (zap, envconfig, go-password) and pgx's pool (pgxpool, as mailbot uses it),
// so that the figures separate what the libraries cost from what mailbot
// itself costs. It is not part of mailbot: testdata is outside the module's
// packages, and only the benchmark builds it.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// The hooks -tags libs fills in (libs.go).
var (
	setup    = func() {}                   // at start, before connecting
	generate = func() string { return "" } // per command: a password
	logDone  = func(domain string) {}      // per command: a log line
)

func main() {
	setup()
	concurrency, _ := strconv.Atoi(os.Getenv("MAILBOT_CONCURRENCY"))
	if concurrency <= 0 {
		concurrency = 8
	}
	transport := func() *http.Transport {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = concurrency
		return t
	}
	f := &floor{
		pdd:         &http.Client{Timeout: 10 * time.Second, Transport: transport()},
		hooks:       &http.Client{Timeout: 10 * time.Second, Transport: transport()},
		ops:         os.Getenv("MAILBOT_OPS_CHANNEL"),
		registerURL: os.Getenv("PDD_BASE_URL") + "/api2/admin/domain/register",
		token:       os.Getenv("PDD_TOKEN"),
		api: slack.New(os.Getenv("SLACK_BOT_TOKEN"),
			slack.OptionAppLevelToken(os.Getenv("SLACK_APP_TOKEN")),
			slack.OptionAPIURL(os.Getenv("SLACK_API_URL")),
			slack.OptionHTTPClient(&http.Client{Timeout: 30 * time.Second, Transport: transport()})),
	}
	sm := socketmode.New(f.api)

	var ready atomic.Bool
	go func() {
		_ = http.ListenAndServe(os.Getenv("MAILBOT_HTTP_ADDR"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/readyz":
				if !ready.Load() {
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			case "/metrics": // the two series BenchmarkRelease reads
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				_, _ = fmt.Fprintf(w, "go_memstats_alloc_bytes_total %d\ngo_gc_duration_seconds_count %d\n", ms.TotalAlloc, ms.NumGC)
			}
		}))
	}()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// Commands wait in a queue for the workers, as in mailbot, so that
	// acknowledging never waits for the API. At SIGTERM the floor simply
	// exits: the benchmark stops it once every result has arrived.
	queue := make(chan slack.SlashCommand, 1000)
	for range concurrency {
		go func() {
			for cmd := range queue {
				f.register(ctx, cmd)
			}
		}()
	}
	go func() {
		for ev := range sm.Events {
			switch ev.Type {
			case socketmode.EventTypeConnected:
				ready.Store(true)
			case socketmode.EventTypeSlashCommand:
				cmd, ok := ev.Data.(slack.SlashCommand)
				if !ok {
					continue
				}
				if err := sm.Ack(*ev.Request); err != nil {
					continue
				}
				queue <- cmd
			}
		}
	}()
	if err := sm.RunContext(ctx); ctx.Err() == nil { // it always ends with an error
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// floor is what the workers share, the environment read once.
type floor struct {
	pdd, hooks         *http.Client
	api                *slack.Client
	ops                string // the ops channel
	registerURL, token string // the PDD API's
}

// register runs one `/maildomain register <domain>`.
func (f *floor) register(ctx context.Context, cmd slack.SlashCommand) {
	_, domain, _ := strings.Cut(cmd.Text, " ")
	_ = generate()
	form := url.Values{"domain": {domain}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.registerURL, strings.NewReader(form.Encode()))
	if err != nil {
		return
	}
	req.Header.Set("PddToken", f.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	text := "failed"
	if resp, err := f.pdd.Do(req); err == nil {
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		text = string(body)
	}
	_ = slack.PostWebhookCustomHTTPContext(ctx, cmd.ResponseURL, f.hooks, &slack.WebhookMessage{Text: text, ResponseType: slack.ResponseTypeEphemeral})
	_, _, _ = f.api.PostMessageContext(ctx, f.ops, slack.MsgOptionText("<@"+cmd.UserID+"> registered "+domain, false))
	logDone(domain)
}
