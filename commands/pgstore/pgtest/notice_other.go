//go:build !linux

package pgtest

import "os"

// announce writes the notice to the terminal, if there is one, once per
// parent process. Following the go command's last line needs Linux's
// /proc (notice_linux.go).
func announce(text string) {
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer func() { _ = tty.Close() }() // a notice; nothing to do if it fails
	if firstOfRun(os.Getppid()) {
		_, _ = tty.WriteString(text)
	}
}
