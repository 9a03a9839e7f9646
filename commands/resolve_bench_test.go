package commands_test

import (
	"testing"

	"github.com/mailbot/mailbot/commands"
)

// BenchmarkResolveStep measures what the resolve step costs a command, on
// the Google sandbox over HTTPS on loopback: Decide (what the
// acknowledgement waits for: it calls no provider), the step's read alone
// (users.get), the write alone (users.update) and a whole reset run by an
// admin (resolve, then the write, with audit and reply), whose provider
// requests are reported as requests/op.
func BenchmarkResolveStep(b *testing.B) {
	sim, api, _ := googleWorld(b)
	e := newEnv(b, api, commands.Config{}, nil)
	e.msgr.discard = true
	b.Run("Decide", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if d := e.core.Decide(commands.Request{UserID: admin1, ChannelID: "C1", Command: "/mailbox", Text: "reset bob@example.com"}); d.Step != commands.StepRun {
				b.Fatal(d.Step)
			}
		}
	})
	b.Run("ResolveMailbox", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := api.ResolveMailbox(b.Context(), "example.com", "bob"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SetPassword", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := api.SetPassword(b.Context(), "example.com", "bob", "Bench-12345678", false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Reset", func(b *testing.B) {
		b.ReportAllocs()
		before, n := sim.Requests(), 0
		for b.Loop() {
			n++
			if _, label := e.typed(admin1, "/mailbox reset bob@example.com"); label != commands.LabelOK {
				b.Fatal(label)
			}
		}
		b.ReportMetric(float64(sim.Requests()-before)/float64(n), "requests/op")
	})
}
