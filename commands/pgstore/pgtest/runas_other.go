//go:build !linux

package pgtest

import (
	"errors"
	"os"
	"syscall"
)

// runAs is the user the server runs as: the current one. Outside Linux,
// running as root is not supported.
type runAs struct{}

// currentRunAs chooses the user for the server.
func currentRunAs() (*runAs, error) {
	if os.Geteuid() == 0 {
		return nil, errors.New("pgtest runs PostgreSQL as another user only on Linux; run the tests as a non-root user")
	}
	return &runAs{}, nil
}

// chown does nothing: the server runs as the current user.
func (r *runAs) chown(path string) error { return nil }

// attr returns no special attributes.
func (r *runAs) attr(server bool) *syscall.SysProcAttr { return nil }

// freeBytes reports no space: outside Linux clusters go to the temporary
// directory.
func freeBytes(path string) (uint64, error) { return 0, errors.ErrUnsupported }
