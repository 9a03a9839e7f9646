package commands_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/apiclient/yandex360"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands"
)

// methodCounter counts a sandbox's API requests: reads (GET) and writes.
type methodCounter struct {
	next          http.Handler
	reads, writes atomic.Int64
}

func (m *methodCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/directory/") ||
		strings.HasPrefix(r.URL.Path, "/admin/") {
		if r.Method == http.MethodGet {
			m.reads.Add(1)
		} else {
			m.writes.Add(1)
		}
	}
	m.next.ServeHTTP(w, r)
}

// offboardAliases is how many aliases the benchmark's mailbox has.
const offboardAliases = 20

// BenchmarkOffboard offboards a mailbox with 20 aliases to a successor on
// each provider's sandbox at 20 ms a request, over HTTPS: the wall time
// of the whole operation, and the provider requests it makes (reads and
// writes), reported per offboarding.
func BenchmarkOffboard(b *testing.B) {
	for _, provider := range []string{apiclient.ProviderMailcow, apiclient.ProviderYandex360, apiclient.ProviderGoogle} {
		b.Run(provider, func(b *testing.B) {
			var reads, writes int64
			for b.Loop() {
				b.StopTimer()
				api, count, latency := offboardWorld(b, provider)
				e := newEnv(b, api, commands.Config{}, nil)
				latency(20 * time.Millisecond)
				r0, w0 := count.reads.Load(), count.writes.Load()
				b.StartTimer()
				e.typed(admin1, "/mailbox offboard alice@example.com to bob@example.com")
				b.StopTimer()
				if r := e.msgr.lastTo(admin1); r.Error || len(r.Steps) != offboardAliases+1 {
					b.Fatalf("offboarding:\n%s", r.PlainText())
				}
				reads += count.reads.Load() - r0
				writes += count.writes.Load() - w0
				b.StartTimer()
			}
			b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
			b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
		})
	}
}

// offboardWorld serves the provider's sandbox over HTTPS, counted, with
// alice (20 aliases) and bob, and returns a client, the counter and the
// sandbox's latency control.
func offboardWorld(b *testing.B, provider string) (commands.Provider, *methodCounter, func(time.Duration)) {
	retry := apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	if provider == apiclient.ProviderGoogle {
		return googleOffboardWorld(b, retry)
	}
	if provider == apiclient.ProviderMailcow {
		sim := mailcowsim.New()
		count := &methodCounter{next: sim}
		ts := httptest.NewTLSServer(count)
		b.Cleanup(ts.Close)
		c, err := mailcow.New(ts.URL, sim.NewAccount(), sim.Hostname(), apiclient.WithHTTPClient(ts.Client()), retry)
		if err != nil {
			b.Fatal(err)
		}
		sim.AddDomain("example.com")
		for _, login := range []string{"alice", "bob"} {
			if _, err := c.AddMailbox(b.Context(), "example.com", login, "Secret-12", false); err != nil {
				b.Fatal(err)
			}
		}
		for i := range offboardAliases {
			if _, err := sim.AddAlias(fmt.Sprintf("a%02d@example.com", i), "alice@example.com"); err != nil {
				b.Fatal(err)
			}
		}
		return c, count, sim.SetLatency
	}
	sim := y360sim.New(y360sim.WithDefaultDomain("example.com"))
	count := &methodCounter{next: sim}
	ts := httptest.NewTLSServer(count)
	b.Cleanup(ts.Close)
	creds := sim.NewAccount()
	c, err := yandex360.New(ts.URL, creds.Token, yandex360.Settings{OrgID: creds.OrgID}, apiclient.WithHTTPClient(ts.Client()), retry)
	if err != nil {
		b.Fatal(err)
	}
	for _, login := range []string{"alice", "bob"} {
		if _, err := c.AddMailbox(b.Context(), "example.com", login, "Secret-12", false); err != nil {
			b.Fatal(err)
		}
	}
	for i := range offboardAliases {
		if err := sim.AddAlias(fmt.Sprintf("a%02d@example.com", i), "alice@example.com"); err != nil {
			b.Fatal(err)
		}
	}
	return c, count, sim.SetLatency
}

// googleOffboardWorld is offboardWorld's Google Workspace: the aliases
// are added through the client, and the token is fetched before the
// counting starts.
func googleOffboardWorld(b *testing.B, retry apiclient.Option) (commands.Provider, *methodCounter, func(time.Duration)) {
	sim := googlesim.New()
	count := &methodCounter{next: sim}
	ts := httptest.NewTLSServer(count)
	b.Cleanup(ts.Close)
	acct := sim.NewAccount()
	sim.AddDomain("example.com")
	c, err := google.New(ts.URL, acct.KeyFile(ts.URL), acct.Admin, google.Settings{}, apiclient.WithHTTPClient(ts.Client()), retry)
	if err != nil {
		b.Fatal(err)
	}
	for _, login := range []string{"alice", "bob"} {
		if _, err := c.AddMailbox(b.Context(), "example.com", login, "Secret-12", false); err != nil {
			b.Fatal(err)
		}
	}
	for i := range offboardAliases {
		if _, err := c.AddAlias(b.Context(), fmt.Sprintf("a%02d@example.com", i), "alice@example.com"); err != nil {
			b.Fatal(err)
		}
	}
	return c, count, sim.SetLatency
}
