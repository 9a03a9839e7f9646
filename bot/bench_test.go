package bot_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkAckBurst sends a burst of 500 /mailbox add commands at 500 per
// second to one mailbot (8 workers, a sandbox answering in 5 ms) and
// reports, over all bursts, the ack latency as the fake Slack sees it
// (from writing the envelope to reading the ack: p50, p99, max) and the
// time until every result was delivered (s/burst).
func BenchmarkAckBurst(b *testing.B) {
	const burst = 500
	h := newHarness(b)
	h.ownDomain("bench.example")
	h.sim.SetLatency(5 * time.Millisecond)
	runBurst := func(round int) []time.Duration {
		ids := make([]string, burst)
		tick := time.NewTicker(time.Second / burst)
		defer tick.Stop()
		for j := range burst {
			id, err := h.slack.SlashCommand(admin, general, "/mailbox", fmt.Sprintf("add u%d-%d@bench.example", round+1, j))
			if err != nil {
				b.Fatal(err)
			}
			ids[j] = id
			<-tick.C
		}
		lat := make([]time.Duration, 0, burst)
		for _, id := range ids {
			ack, err := h.slack.WaitAck(id, time.Minute)
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, ack.At.Sub(ack.Sent))
			if _, err := h.slack.WaitPosts(id, 1, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
		return lat
	}
	runBurst(-1) // warm up: connection pools fill to their steady size
	goroutinesBefore := runtime.NumGoroutine()
	var lat []time.Duration
	var complete time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		lat = append(lat, runBurst(i)...)
		complete += time.Since(start)
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ack-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ack-p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ack-max-ms")
	b.ReportMetric(complete.Seconds()/float64(b.N), "s/burst")
	if err := h.slack.Wait(10*time.Second, "work to drain", func() bool { return runtime.NumGoroutine() <= goroutinesBefore+5 }); err != nil {
		b.Errorf("goroutines: %d before the bursts, %d after: %v", goroutinesBefore, runtime.NumGoroutine(), err)
	}
}
