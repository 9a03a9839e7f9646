package pgtest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

// The notice of skipped tests. `go test ./...` shows the output of a
// package only when it fails (or with -v), so a skip for want of
// PostgreSQL would pass unseen: the tests that matter most for several
// replicas would never run on a contributor's machine, and nobody would
// know. So the first test skipped for want of PostgreSQL has one line
// written where the go command writes, saying what was not tested and
// why, and how to test it (notice_linux.go). It is the last line: a small
// watcher process holds the go command's standard output and writes the
// line once the go command has exited. A pipe's reader (CI, a script,
// `| tee`) sees it before the end of the output; a file has it a few
// milliseconds after the go command returns. Onto a terminal the line is
// written at once instead, among the "ok" lines (after the go command it
// would come after the shell's prompt). One line per go command, however
// many packages skip: the first to claim it leaves a marker named after
// the go command's process ID.
//
// A test binary started otherwise (by hand, or by a harness) writes the
// line to its controlling terminal, if it has one. With go test -json
// nothing is written: the JSON stream reports every skip itself. CI sets
// MAILBOT_TEST_POSTGRES=required, so that nothing is skipped.
//
// A package whose tests skipped is never cached as passed, so that the
// line comes back at every go test ./..., not only the first: go test
// does not cache a run that read a file of the module modified within the
// last two seconds, and such a run writes and reads one,
// .pgtest-skipped.out at the module's root (ignored by git as *.out).

// skipped counts the tests of this process skipped for want of
// PostgreSQL.
var skipped atomic.Int32

// noticeText is the line, with why PostgreSQL could not be used.
func noticeText(why error) string {
	return "pgtest: tests that need PostgreSQL were SKIPPED: " + why.Error() +
		"; install PostgreSQL 13 or later (Debian: apt-get install postgresql) and run " +
		EnvRequired + "=required go test ./...\n"
}

// noteSkip counts a skipped test, and the first one of the process
// arranges for the notice, saying why.
func noteSkip(why error) {
	if skipped.Add(1) > 1 {
		return
	}
	uncache() // while the tests run: go test records their files until then
	announce(noticeText(why))
}

// tellTerminal writes text to this process's controlling terminal, if it
// has one, once per parent process.
func tellTerminal(text string) {
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return // no terminal: the binary's own output says --- SKIP with -v
	}
	defer func() { _ = tty.Close() }() // a notice; nothing to do if it fails
	if firstOfRun(os.Getppid()) {
		_, _ = tty.WriteString(text)
	}
}

// noticeDir holds the markers of the go commands that have been told.
func noticeDir() string { return filepath.Join(os.TempDir(), "mailbot-pgtest") }

// firstOfRun reports whether this is the first test binary of the go
// command (or other parent) with process ID parent to claim the notice,
// and forgets the claims of go commands long gone.
func firstOfRun(parent int) bool {
	dir := noticeDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true // no marker can be made: tell, maybe twice
	}
	forgetOld(dir)
	f, err := os.OpenFile(filepath.Join(dir, "go-"+strconv.Itoa(parent)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return !errors.Is(err, fs.ErrExist)
	}
	_ = f.Close() // an empty marker
	return true
}

// uncache writes and reads a file at the module's root, found from the
// package's directory, where go test runs the tests.
func uncache() {
	wd, err := os.Getwd()
	for err == nil {
		if _, err = os.Stat(filepath.Join(wd, "go.mod")); err == nil {
			stamp := filepath.Join(wd, ".pgtest-skipped.out")
			_ = os.WriteFile(stamp, []byte(time.Now().String()+"\n"), 0o600)
			_, _ = os.ReadFile(stamp)
			return
		}
		parent := filepath.Dir(wd)
		if parent == wd {
			return
		}
		wd, err = parent, nil
	}
}

// forgetOld removes the files older than a day.
func forgetOld(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
