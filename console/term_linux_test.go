package console

import (
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/term"

	"github.com/mailbot/mailbot/internal/testkit"
)

// openPty opens a pseudo-terminal: the test types on master, the console
// under test uses tty. Both close at the end of the test.
func openPty(t *testing.T) (master, tty *os.File) { return testkit.OpenPty(t) }

// screen collects what the terminal shows, for polling.
func screen(t *testing.T, master *os.File) *testkit.Buffer {
	var out testkit.Buffer
	go func() { _, _ = io.Copy(&out, master) }() // ends with EIO when tty closes
	return &out
}

// waitScreen waits until the screen holds want, waking on every write.
func waitScreen(t *testing.T, out *testkit.Buffer, want string) {
	t.Helper()
	if !testkit.Until(10*time.Second, out.Written, func() bool { return strings.Contains(out.String(), want) }) {
		t.Fatalf("the terminal never showed %q; it shows %q", want, out.String())
	}
}

type lineResult struct {
	line string
	err  error
}

// readLine runs ReadLine in the background: it blocks until a key ends it.
func readLine(c terminal) <-chan lineResult {
	ch := make(chan lineResult, 1)
	go func() {
		l, err := c.ReadLine()
		ch <- lineResult{l, err}
	}()
	return ch
}

func await(t *testing.T, ch <-chan lineResult) lineResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("ReadLine did not return")
		return lineResult{}
	}
}

func termState(t *testing.T, f *os.File) *term.State {
	t.Helper()
	st, err := term.GetState(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestConsoleOnTerminal types on a pseudo-terminal: line editing, history,
// replies in CRLF with the prompt, Ctrl-D, and the terminal restored.
func TestConsoleOnTerminal(t *testing.T) {
	master, tty := openPty(t)
	before := termState(t, tty)
	out := screen(t, master)
	c, err := newConsole(tty, tty)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Terminal() {
		t.Fatal("Terminal() = false on a pseudo-terminal")
	}
	if reflect.DeepEqual(termState(t, tty), before) {
		t.Error("the terminal is not in raw mode")
	}
	c.SetPrompt("UBOB> ")

	ch := readLine(c)
	waitScreen(t, out, "UBOB> ")
	if _, err := master.WriteString("/mailbox hepl\x7f\x7flp\r"); err != nil { // two backspaces
		t.Fatal(err)
	}
	if r := await(t, ch); r.err != nil || r.line != "/mailbox help" {
		t.Errorf("ReadLine = %q, %v; want the edited line /mailbox help", r.line, r.err)
	}
	ch = readLine(c)
	if _, err := master.WriteString("\x1b[A\r"); err != nil { // up arrow, enter
		t.Fatal(err)
	}
	if r := await(t, ch); r.err != nil || r.line != "/mailbox help" {
		t.Errorf("ReadLine after the up arrow = %q, %v; want the previous line", r.line, r.err)
	}

	ch = readLine(c)
	if _, err := io.WriteString(c, "reply one\nreply two\n"); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, out, "reply one\r\nreply two\r\nUBOB> ")
	if _, err := master.WriteString("\x04"); err != nil { // Ctrl-D
		t.Fatal(err)
	}
	if r := await(t, ch); !errors.Is(r.err, io.EOF) {
		t.Errorf("ReadLine after Ctrl-D = %q, %v; want io.EOF", r.line, r.err)
	}

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(termState(t, tty), before) {
		t.Error("Close did not restore the terminal")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestConsoleRestoresOnSignal: SIGTERM gives the terminal back at once.
func TestConsoleRestoresOnSignal(t *testing.T) {
	_, tty := openPty(t)
	before := termState(t, tty)
	c, err := newConsole(tty, tty)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "the terminal out of raw mode after SIGTERM", func() bool {
		return reflect.DeepEqual(termState(t, tty), before)
	})
}
