package pgtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/term"
)

// envNoticeAfter, in a watcher's environment, is the process ID of the go
// command after whose exit the watcher writes the notice, envNoticeText,
// to its file descriptor 3.
const (
	envNoticeAfter = "MAILBOT_PGTEST_NOTICE_AFTER"
	envNoticeText  = "MAILBOT_PGTEST_NOTICE_TEXT"
)

// watcherLife bounds how long a watcher waits for its go command.
const watcherLife = 6 * time.Hour

// A watcher is this test binary started again with envNoticeAfter set: it
// never reaches the tests.
func init() {
	if pid, err := strconv.Atoi(os.Getenv(envNoticeAfter)); err == nil && pid > 1 {
		os.Exit(watch(pid, os.NewFile(3, "go command's output"), os.Getenv(envNoticeText)))
	}
}

// announce arranges for the notice text: after the go command's last line
// when go test runs this binary, at once when go test writes onto a
// terminal, and on the terminal when go test did not start this binary.
func announce(text string) {
	if slices.Contains(os.Args, "-test.v=test2json") {
		return // go test -json: the stream reports the skips
	}
	parent := os.Getppid()
	if out := goTestOutput(parent); out != nil {
		defer func() { _ = out.Close() }() // the watcher has its own copy
		if !firstOfRun(parent) {
			return
		}
		if term.IsTerminal(int(out.Fd())) {
			_, _ = out.WriteString(text)
			return
		}
		startWatcher(parent, out, text)
		return
	}
	tellTerminal(text)
}

// goTestOutput opens the standard output of process pid when it is a go
// test command, and returns nil otherwise.
func goTestOutput(pid int) *os.File {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil {
		return nil
	}
	args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
	if len(args) < 2 || filepath.Base(string(args[0])) != "go" || string(args[1]) != "test" {
		return nil
	}
	out, err := os.OpenFile(filepath.Join(proc, "fd", "1"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return out
}

// startWatcher starts this binary again as the watcher of the go command
// pid, with out as its file descriptor 3 and nothing else of ours: go test
// waits for the test binary's own output to close, not for the watcher.
func startWatcher(pid int, out *os.File, text string) {
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envNoticeAfter+"="+strconv.Itoa(pid), envNoticeText+"="+text)
	cmd.ExtraFiles = []*os.File{out}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // not the test's process group
	if err := cmd.Start(); err != nil {
		return
	}
	_ = cmd.Process.Release() // it outlives this binary
}

// watch waits until process pid has exited, then writes text to out. It
// returns the watcher's exit status.
func watch(pid int, out *os.File, text string) int {
	deadline := time.Now().Add(watcherLife)
	// pid is not our child: nothing to wait on but its existence. Polled,
	// a process that ends a command line: no test waits on it.
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			return 1
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := out.WriteString(text); err != nil {
		return 1
	}
	return 0
}
