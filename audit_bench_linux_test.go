package main

import (
	"bufio"
	"io"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// BenchmarkAuditCLI runs the release binary's `mailbot audit` over a year
// of history (1M audit entries in the window, 100k requests beside them),
// as JSON and as a table, and reports the time to its first line, the
// time to its last, its peak RSS (VmHWM, sampled every 2 ms until its
// output ends) and the lines it printed.
//
//	go test -run XXX -bench AuditCLI -benchtime 1x .
func BenchmarkAuditCLI(b *testing.B) {
	bin := buildRelease(b)
	dsn := pgtest.NewDatabase(b)
	st, err := pgstore.Open(b.Context(), dsn, zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	if err := pgtest.FillHistory(b.Context(), dsn, pgtest.History{Decided: 100_000, Audit: 1_000_000}, time.Now()); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"json", []string{"audit", "--json", "--since", "9000h"}},
		{"table", []string{"audit", "--since", "9000h"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var first, last time.Duration
			var rssKB int64
			var lines int
			for b.Loop() {
				r := runAuditCLI(b, bin, dsn, tc.args)
				first, last, lines = first+r.first, last+r.last, r.lines
				rssKB = max(rssKB, r.rssKB)
			}
			n := float64(b.N)
			b.ReportMetric(first.Seconds()*1000/n, "first-line-ms")
			b.ReportMetric(last.Seconds()/n, "last-line-s")
			b.ReportMetric(float64(rssKB)/1024, "peak-rss-MiB")
			b.ReportMetric(float64(lines), "lines")
		})
	}
}

// auditRun is what one run of `mailbot audit` took.
type auditRun struct {
	first, last time.Duration
	rssKB       int64
	lines       int
}

// runAuditCLI runs bin args on dsn, reading its output as a terminal
// would, and measures it.
func runAuditCLI(b *testing.B, bin, dsn string, args []string) auditRun {
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"MAILBOT_DATABASE_URL=" + dsn}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// VmHWM, the high-water mark of the process's RSS, sampled until it
	// exits: rusage's maxrss would count the benchmark's own memory,
	// which the child shared until its exec.
	var hwm atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			hwm.Store(max(hwm.Load(), int64(procKB(cmd.Process.Pid, "VmHWM"))))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var r auditRun
	rd := bufio.NewReaderSize(out, 64<<10)
	for {
		_, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			break
		}
		if r.lines == 0 {
			r.first = time.Since(start)
		}
		r.lines++
	}
	close(done)
	<-sampled
	if err := cmd.Wait(); err != nil {
		b.Fatalf("mailbot %v: %v", args, err)
	}
	r.last = time.Since(start)
	r.rssKB = hwm.Load()
	return r
}
