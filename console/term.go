package console

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"
)

// terminal is where the shell reads its lines and writes its replies: on a
// terminal, with line editing and history (the arrow keys, Ctrl-A, Ctrl-E,
// Ctrl-U, …); elsewhere, plain lines.
type terminal interface {
	// ReadLine returns the next line, without its end; io.EOF at the end
	// of input (on a terminal: Ctrl-D on an empty line, or Ctrl-C).
	ReadLine() (string, error)
	// SetPrompt sets the prompt shown before each line on a terminal;
	// without a terminal there is none.
	SetPrompt(prompt string)
	// Write writes a reply. On a terminal it moves the line being typed
	// below the reply, and may be called while ReadLine waits.
	Write(p []byte) (int, error)
	// Terminal reports whether the console edits lines on a terminal.
	Terminal() bool
	// Close gives the terminal back as it was; it may be called again.
	Close() error
}

// newConsole is the shell's console over stdin and stdout. When both are
// terminals it puts the terminal in raw mode for line editing; Close, or
// SIGINT or SIGTERM, restore it.
func newConsole(stdin io.Reader, stdout io.Writer) (terminal, error) {
	if !IsTerminal(stdin, stdout) {
		return &plainConsole{in: bufio.NewReader(stdin), out: stdout}, nil
	}
	fd, _ := terminalFD(stdin)
	outFD, _ := terminalFD(stdout)
	state, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	rw := struct {
		io.Reader
		io.Writer
	}{stdin, stdout}
	c := &ttyConsole{
		t:     term.NewTerminal(rw, ""),
		fd:    fd,
		state: state,
		done:  make(chan struct{}),
	}
	if w, h, err := term.GetSize(outFD); err == nil && w > 0 && h > 0 {
		_ = c.t.SetSize(w, h) // the default of 80x24 stands otherwise
	}
	c.restoreOnSignal()
	return c, nil
}

// terminalFD returns the file descriptor of x, and whether it is a
// terminal.
func terminalFD(x any) (int, bool) {
	f, ok := x.(interface{ Fd() uintptr })
	if !ok {
		return -1, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// IsTerminal reports whether the shell's console over stdin and stdout
// edits lines: both must be terminals.
func IsTerminal(stdin io.Reader, stdout io.Writer) bool {
	_, in := terminalFD(stdin)
	_, out := terminalFD(stdout)
	return in && out
}

// maxLineBytes bounds a line the shell takes as a command: longer than any
// valid command can be (a command is a few hundred bytes; Slack sends at
// most 4000 characters of text).
const maxLineBytes = 64 << 10

// errLineTooLong is a line over maxLineBytes: it was read to its end and
// dropped, and the next line can be read.
var errLineTooLong = errors.New("the line is too long to be a command")

// plainConsole reads lines of any length, keeping at most maxLineBytes of
// one.
type plainConsole struct {
	in  *bufio.Reader
	out io.Writer
}

func (c *plainConsole) ReadLine() (string, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := c.in.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxLineBytes+2 {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case tooLong && (err == nil || errors.Is(err, io.EOF)):
			return "", errLineTooLong
		case err == nil || errors.Is(err, io.EOF) && len(line) > 0:
			text := strings.TrimRight(string(line), "\r\n")
			if len(text) > maxLineBytes {
				return "", errLineTooLong
			}
			return text, nil
		}
		return "", err
	}
}

func (c *plainConsole) SetPrompt(string)            {}
func (c *plainConsole) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *plainConsole) Terminal() bool              { return false }
func (c *plainConsole) Close() error                { return nil }

// ttyConsole edits lines on a terminal in raw mode.
type ttyConsole struct {
	t     *term.Terminal
	fd    int
	state *term.State // before raw mode

	once       sync.Once
	restoreErr error
	closeOnce  sync.Once
	done       chan struct{} // closed by Close
}

func (c *ttyConsole) ReadLine() (string, error)   { return c.t.ReadLine() }
func (c *ttyConsole) SetPrompt(prompt string)     { c.t.SetPrompt(prompt) }
func (c *ttyConsole) Write(p []byte) (int, error) { return c.t.Write(p) }
func (c *ttyConsole) Terminal() bool              { return true }

func (c *ttyConsole) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return c.restore()
}

// restore gives the terminal its state from before raw mode, once.
func (c *ttyConsole) restore() error {
	c.once.Do(func() {
		if err := term.Restore(c.fd, c.state); err != nil {
			c.restoreErr = fmt.Errorf("console: restoring the terminal: %w", err)
		}
	})
	return c.restoreErr
}

// restoreOnSignal restores the terminal as soon as SIGINT or SIGTERM
// arrives, before the shell winds down (main's context hears the signal
// too), until Close. In raw mode Ctrl-C is a key, not a signal: ReadLine
// returns io.EOF for it.
func (c *ttyConsole) restoreOnSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(sigs)
		select {
		case <-sigs:
			_ = c.restore() // Close reports the error
		case <-c.done:
		}
	}()
}

// LogWriter is stderr for the shell's log while the console holds the
// terminal in raw mode: when stderr is a terminal too, its lines end in
// CRLF; otherwise stderr as it is.
func LogWriter(stderr io.Writer) io.Writer {
	if _, ok := terminalFD(stderr); ok {
		return crlfWriter{stderr}
	}
	return stderr
}

// crlfWriter ends each line with CRLF, for a terminal in raw mode, where
// a bare LF moves down without going back to the first column.
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') < 0 {
		return c.w.Write(p)
	}
	buf := make([]byte, 0, len(p)+8)
	for i, b := range p {
		if b == '\n' && (i == 0 || p[i-1] != '\r') {
			buf = append(buf, '\r')
		}
		buf = append(buf, b)
	}
	if _, err := c.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
