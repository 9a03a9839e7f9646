package commands_test

import (
	"testing"

	"github.com/mailbot/mailbot/commands"
)

// BenchmarkRequestApprove measures one request's life on the memory
// store with a fake API: decide, record and post it, then approve it and
// run it (the recording messenger's bookkeeping included).
func BenchmarkRequestApprove(b *testing.B) {
	e := newEnv(b, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	e.msgr.discard = true
	b.ReportAllocs()
	for b.Loop() {
		d, _ := e.typed(user1, "/maildomain register example.com")
		if label := e.click(commands.ButtonApprove, *d.Pending, admin1, e.msgr.lastPost); label != commands.LabelOK {
			b.Fatal(label)
		}
	}
}

// BenchmarkClickDecided measures a stale click on a request decided
// before: the path 50 concurrent clicks take but one.
func BenchmarkClickDecided(b *testing.B) {
	e := newEnv(b, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/maildomain register example.com")
	e.click(commands.ButtonApprove, p, admin1, ref)
	e.msgr.discard = true
	b.ReportAllocs()
	for b.Loop() {
		if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelDecided {
			b.Fatal(label)
		}
	}
}
