package console

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readAll reads lines until an error, and returns them with that error.
func readAll(c terminal) ([]string, error) {
	var lines []string
	for {
		l, err := c.ReadLine()
		if err != nil {
			return lines, err
		}
		lines = append(lines, l)
	}
}

// TestPlainConsole: without a terminal the console reads plain lines, has
// no prompt and writes replies as they are.
func TestPlainConsole(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxLineBytes)
	var out bytes.Buffer
	c, err := newConsole(strings.NewReader("/mailbox help\r\n\n  as UBOB \n"+long+"\nlast"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Terminal() {
		t.Error("Terminal() = true for a strings.Reader")
	}
	c.SetPrompt("USHELL> ")
	lines, err := readAll(c)
	if !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	if diff := cmp.Diff([]string{"/mailbox help", "", "  as UBOB ", long, "last"}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if _, err := io.WriteString(c, "reply\n"); err != nil || out.String() != "reply\n" {
		t.Errorf("Write: %v, output %q; want the reply as is, and no prompt", err, out.String())
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestPlainConsoleLineTooLong(t *testing.T) {
	t.Parallel()
	c, err := newConsole(strings.NewReader(strings.Repeat("x", 2<<20)+"\nnext\n"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadLine(); !errors.Is(err, errLineTooLong) {
		t.Errorf("ReadLine of a 2 MiB line = %v, want errLineTooLong", err)
	}
	if l, err := c.ReadLine(); l != "next" || err != nil {
		t.Errorf("ReadLine after the long line = %q, %v; want the next line", l, err)
	}
}

// TestConsoleOverPipes: files that are not terminals get the plain console.
func TestConsoleOverPipes(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	c, err := newConsole(r, w)
	if err != nil {
		t.Fatal(err)
	}
	if c.Terminal() || IsTerminal(r, w) {
		t.Error("a pipe is taken for a terminal")
	}
	if _, err := w.WriteString("one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if lines, err := readAll(c); !errors.Is(err, io.EOF) || !cmp.Equal(lines, []string{"one", "two"}) {
		t.Errorf("lines %q, %v; want one, two and io.EOF", lines, err)
	}
}

func TestCRLFWriter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"no newline", "no newline"},
		{"one\n", "one\r\n"},
		{"a\nb\n", "a\r\nb\r\n"},
		{"already\r\n", "already\r\n"},
		{"\n\n", "\r\n\r\n"},
	} {
		var out bytes.Buffer
		n, err := crlfWriter{&out}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) || out.String() != tc.want {
			t.Errorf("Write(%q) = %d, %v, wrote %q; want %d, nil, %q", tc.in, n, err, out.String(), len(tc.in), tc.want)
		}
	}
}

// TestPlainConsoleLineBound: a line of maxLineBytes is a line, one byte
// more is too long, and either way the next line follows; the last line
// needs no end, and CRLF ends a line as LF does.
func TestPlainConsoleLineBound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxLineBytes)
	con := &plainConsole{in: bufio.NewReader(strings.NewReader(long + "\r\n" + long + "y\nnext\r\n\nlast")), out: io.Discard}
	for i, want := range []struct {
		line string
		err  error
	}{{long, nil}, {"", errLineTooLong}, {"next", nil}, {"", nil}, {"last", nil}, {"", io.EOF}} {
		got, err := con.ReadLine()
		if got != want.line || !errors.Is(err, want.err) || (want.err == nil) != (err == nil) {
			t.Fatalf("line %d: ReadLine() = %.20q (%d bytes), %v; want %.20q, %v", i, got, len(got), err, want.line, want.err)
		}
	}
}
