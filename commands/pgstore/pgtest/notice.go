package pgtest

import (
	"errors"
	"fmt"
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
// know. So a package whose tests skipped writes one line to the
// controlling terminal, /dev/tty, which go test does not capture: what
// was not tested and how to test it. One line per go command, not one per
// package: the first package to write it leaves a marker named after the
// go command's process ID (the parent of every test binary it runs), and
// the others see it. Without a terminal (CI, a pipe) nothing is written:
// CI sets MAILBOT_TEST_POSTGRES=required, and -v shows every skip anyway.
//
// A package whose tests skipped is never cached as passed, so that the
// line comes back at every go test ./..., not only the first: go test
// does not cache a run that read a file of the module modified within the
// last two seconds, and such a run writes and reads one,
// .pgtest-skipped.out at the module's root (ignored by git as *.out).

// skipped counts the tests of this process skipped for want of
// PostgreSQL.
var skipped atomic.Int32

// noticeText is the line on the terminal.
const noticeText = "pgtest: tests that need PostgreSQL were SKIPPED (no initdb and postgres on the PATH, under /usr/lib/postgresql/*/bin or in " +
	EnvBinDir + "); install PostgreSQL 13 or later (Debian: apt-get install postgresql) and run " +
	EnvRequired + "=required go test ./...\n"

// noteSkip counts a skipped test. A package without [Run] gets the notice
// at once; one with it, at the end of its tests.
func noteSkip() {
	if skipped.Add(1) > 1 {
		return
	}
	uncache() // while the tests run: go test records their files until then
	shared.Lock()
	main := shared.main
	shared.Unlock()
	if !main {
		tellTerminal()
	}
}

// tellTerminal writes the notice to the terminal once per go command.
func tellTerminal() {
	dir := filepath.Join(os.TempDir(), "mailbot-pgtest")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return // no terminal
	}
	defer func() { _ = tty.Close() }() // a notice; nothing to do if it fails
	if firstOfRun(dir) {
		_, _ = fmt.Fprint(tty, noticeText)
	}
}

// firstOfRun reports whether this is the first test binary of the go
// command that runs it to claim the notice, and forgets the claims of
// go commands long gone.
func firstOfRun(dir string) bool {
	forgetOld(dir)
	f, err := os.OpenFile(filepath.Join(dir, "go-"+strconv.Itoa(os.Getppid())), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return !errors.Is(err, fs.ErrExist) // no marker can be made: tell, maybe twice
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
