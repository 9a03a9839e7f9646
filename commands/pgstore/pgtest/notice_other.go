//go:build !linux

package pgtest

// announce writes the notice to the terminal, if there is one, once per
// parent process. Following the go command's last line needs Linux's
// /proc (notice_linux.go).
func announce(text string) { tellTerminal(text) }
