package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// handoverClicks is how many hand-overs one run offers, then shows, at
// handoverRate clicks a second.
const (
	handoverClicks = 200
	handoverRate   = 100
)

// BenchmarkReleaseHandover runs the release binary as BenchmarkRelease
// does (the fake Slack, PDD's sandbox over HTTPS with 20 ms latency),
// offers 200 hand-overs (/mailbox add … for <@U…>, each to another
// person), then has each owner click Show my password at 100 clicks a
// second. It reports the clicks' ack latency (p50, p99) and the time from
// a click to the password in the owner's answer (p50, p99); without and
// with PostgreSQL. Every click must get its password, or it fails.
//
//	go test -run XXX -bench ReleaseHandover -benchtime 1x .
func BenchmarkReleaseHandover(b *testing.B) {
	bin := buildRelease(b)
	for _, db := range []bool{false, true} {
		b.Run(fmt.Sprintf("pdd/db=%v", db), func(b *testing.B) {
			var acks, shows []time.Duration
			for range b.N {
				env := map[string]string{}
				if db {
					env["MAILBOT_DATABASE_URL"] = pgtest.NewDatabase(b)
				}
				a, s := runHandovers(b, bin, env)
				acks, shows = append(acks, a...), append(shows, s...)
			}
			slices.Sort(acks)
			slices.Sort(shows)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(acks[len(acks)/2]), "click-ack-p50-ms")
			b.ReportMetric(ms(acks[len(acks)*99/100]), "click-ack-p99-ms")
			b.ReportMetric(ms(shows[len(shows)/2]), "click-to-password-p50-ms")
			b.ReportMetric(ms(shows[len(shows)*99/100]), "click-to-password-p99-ms")
		})
	}
}

// runHandovers runs bin once: it offers the hand-overs, clicks them, and
// returns each click's ack latency and the time to its password.
func runHandovers(b *testing.B, bin string, env map[string]string) (acks, shows []time.Duration) {
	b.Helper()
	fake := slackfake.New()
	defer fake.Close()
	sim := tlsSandbox(b, apiclient.ProviderPDD)
	defer sim.close()
	for _, kv := range sim.vars {
		env[kv[0]] = kv[1]
	}
	env["SSL_CERT_FILE"] = sim.caFile
	_, _, _, stop := startRelease(b, bin, fake, env)
	defer stop()
	id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", "register hire.example.com")
	mustB(b, err)
	_, err = fake.WaitPosts(id, 1, benchWait)
	mustB(b, err)
	for i := range handoverClicks {
		_, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/mailbox", fmt.Sprintf("add h%03d@hire.example.com for <@UHIRE%03d>", i, i))
		mustB(b, err)
	}
	offers := waitOffers(b, fake)
	tick := time.NewTicker(time.Second / handoverRate)
	defer tick.Stop()
	ids := make([]string, handoverClicks)
	sent := make([]time.Time, handoverClicks)
	for i, o := range offers {
		sent[i] = time.Now()
		ids[i], err = fake.Click(fmt.Sprintf("UHIRE%03d", i), o.channel, o.ts, "mailbot_handover", "show", o.value)
		mustB(b, err)
		<-tick.C
	}
	for i, id := range ids {
		ack, err := fake.Socket.WaitAck(id, benchWait)
		mustB(b, err)
		acks = append(acks, ack.At.Sub(ack.Sent))
		posts, err := fake.WaitPosts(id, 1, benchWait)
		mustB(b, err)
		if !strings.Contains(posts[0].Raw, fmt.Sprintf("Your password for h%03d@hire.example.com", i)) {
			b.Fatalf("click %d was answered without its password:\n%s", i, posts[0].Raw)
		}
		shows = append(shows, posts[0].At.Sub(sent[i]))
	}
	return acks, shows
}

// handoverMsg is a direct message with a Show button.
type handoverMsg struct{ channel, ts, value string }

// waitOffers waits for the direct message of every hand-over and returns
// them by owner, UHIRE000 first.
func waitOffers(b *testing.B, fake *slackfake.Server) []handoverMsg {
	b.Helper()
	offers := make([]handoverMsg, handoverClicks)
	err := fake.Wait(benchWait, "every hand-over's direct message", func() bool {
		n := 0
		for _, c := range fake.Calls("chat.postMessage") {
			var i int
			ch := c.Form.Get("channel")
			if _, err := fmt.Sscanf(ch, "DHIRE%03d", &i); err != nil || i >= handoverClicks || !fake.HasMessage(ch, c.TS) {
				continue
			}
			if v, ok := callMsg(c).Button("mailbot_handover", "show"); ok && offers[i].ts == "" {
				offers[i] = handoverMsg{channel: ch, ts: c.TS, value: v}
			}
		}
		for _, o := range offers {
			if o.ts != "" {
				n++
			}
		}
		return n == handoverClicks
	})
	mustB(b, err)
	return offers
}

// mustB fails b on err.
func mustB(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
