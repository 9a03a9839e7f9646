package bot_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkAckBurst sends a burst of 500 /mailbox add commands at 500 per
// second to one mailbot (8 workers, a sandbox answering in 5 ms) and
// reports, over all bursts, the ack latency as the fake Slack sees it
// (from writing the envelope to reading the ack: p50, p99, max) and the
// time until every result was delivered (s/burst).
func BenchmarkAckBurst(b *testing.B) {
	h := newHarness(b)
	h.ownDomain("bench.example")
	h.sim.SetLatency(5 * time.Millisecond)
	cmd := func(round, j int) (string, string, string) {
		return admin, "/mailbox", fmt.Sprintf("add u%d-%d@bench.example", round+1, j)
	}
	sendBurst(b, h.env, -1, cmd) // warm up: connection pools fill to their steady size
	goroutinesBefore := runtime.NumGoroutine()
	var lat []time.Duration
	var complete time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		lat = append(lat, sendBurst(b, h.env, i, cmd)...)
		complete += time.Since(start)
	}
	b.StopTimer()
	reportPercentiles(b, lat, "ack")
	b.ReportMetric(complete.Seconds()/float64(b.N), "s/burst")
	if err := h.slack.Wait(10*time.Second, "work to drain", func() bool { return runtime.NumGoroutine() <= goroutinesBefore+5 }); err != nil {
		b.Errorf("goroutines: %d before the bursts, %d after: %v", goroutinesBefore, runtime.NumGoroutine(), err)
	}
}

// burstSize is the commands of one burst, sent at burstSize per second.
const burstSize = 500

// sendBurst sends burstSize slash commands at burstSize per second, cmd
// giving each one's user, command and text, then waits for every ack and
// result; it returns the ack latencies as the fake Slack sees them (from
// writing the envelope to reading the ack).
func sendBurst(b *testing.B, e *env, round int, cmd func(round, j int) (user, command, text string)) []time.Duration {
	ids := make([]string, burstSize)
	tick := time.NewTicker(time.Second / burstSize)
	defer tick.Stop()
	for j := range burstSize {
		user, command, text := cmd(round, j)
		id, err := e.slack.SlashCommand(user, general, command, text)
		if err != nil {
			b.Fatal(err)
		}
		ids[j] = id
		<-tick.C
	}
	lat := make([]time.Duration, 0, burstSize)
	for _, id := range ids {
		ack, err := e.slack.Socket.WaitAck(id, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, ack.At.Sub(ack.Sent))
		if _, err := e.slack.WaitPosts(id, 1, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	return lat
}

// reportPercentiles reports the p50, p99 and maximum of lat in ms.
func reportPercentiles(b *testing.B, lat []time.Duration, what string) {
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), what+"-p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), what+"-p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), what+"-max-ms")
}

// BenchmarkSlashAck sends one slash command at a time through the fake
// Slack and waits for its ack: the socket loop's path from the envelope to
// the acknowledgement with its reply (help, which the core answers at
// once, and a register, acknowledged with the interim reply while the
// worker reads the domain's status; its result is awaited too, so that
// commands do not pile up). Its allocations include the fake's and the
// socketmode client's.
//
//	go test -run '^$' -bench SlashAck -benchmem ./bot/
func BenchmarkSlashAck(b *testing.B) {
	h := newHarness(b)
	for _, tc := range []struct{ name, command, text string }{
		{"help", "/mailbox", "help"},
		{"register", "/maildomain", "register b%d.example.com"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				text := tc.text
				if strings.Contains(text, "%d") {
					text = fmt.Sprintf(text, i%10)
				}
				id, _ := h.command(admin, tc.command, text)
				if tc.name == "register" {
					if _, err := h.slack.WaitPosts(id, 1, time.Minute); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
