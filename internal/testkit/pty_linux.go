package testkit

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// OpenPty opens a pseudo-terminal: the test reads and types on master,
// the program under test gets tty. Both close at the end of the test.
func OpenPty(t testing.TB) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = master.Close() })
	var n uint32
	unlock := int32(0)
	rc, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ioctlErr error
	err = rc.Control(func(fd uintptr) {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
			ioctlErr = e
			return
		}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
			ioctlErr = e
		}
	})
	if err = errors.Join(err, ioctlErr); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tty.Close() })
	return master, tty
}
