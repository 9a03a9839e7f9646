package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildRelease builds mailbot with the Dockerfile's flags.
func buildRelease(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "mailbot")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// procKB reads a field such as VmRSS or VmHWM of /proc/<pid>/status, in kB.
func procKB(pid int, field string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return n
		}
	}
	return 0
}

// BenchmarkBinary starts the release binary against a fake Slack and the
// sandbox, and reports the start-up time to a connected socket, the idle
// RSS, the peak RSS after a burst of 500 commands, and the binary's size.
func BenchmarkBinary(b *testing.B) {
	bin := buildRelease(b)
	var startup time.Duration
	var idle, peak float64
	for i := 0; i < b.N; i++ {
		env, fake, _ := serveEnv(b)
		cmd := exec.Command(bin)
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if err := fake.WaitConnected(1, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		startup += time.Since(start)
		time.Sleep(200 * time.Millisecond)
		idle += procKB(cmd.Process.Pid, "VmRSS")
		ids := make([]string, 0, 500)
		for j := range 500 {
			id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", fmt.Sprintf("register r%d.example.com", j))
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, id)
			time.Sleep(2 * time.Millisecond)
		}
		for _, id := range ids {
			if _, err := fake.WaitPosts(id, 1, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
		peak += procKB(cmd.Process.Pid, "VmHWM")
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		fake.Close()
	}
	st, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	b.ReportMetric(float64(startup.Microseconds())/1000/n, "startup-ms")
	b.ReportMetric(idle/1024/n, "idle-RSS-MB")
	b.ReportMetric(peak/1024/n, "peak-RSS-MB")
	b.ReportMetric(float64(st.Size())/(1<<20), "binary-MB")
}
