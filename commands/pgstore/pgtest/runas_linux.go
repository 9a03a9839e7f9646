package pgtest

import (
	"errors"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// runAs is the user the server runs as: the current one, or, as root,
// the postgres user (or nobody), since PostgreSQL refuses to run as root.
type runAs struct {
	root     bool
	uid, gid uint32
}

// currentRunAs chooses the user for the server.
func currentRunAs() (*runAs, error) {
	if os.Geteuid() != 0 {
		return &runAs{}, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 == nil && err2 == nil {
			return &runAs{root: true, uid: uint32(uid), gid: uint32(gid)}, nil
		}
	}
	return nil, errors.New("running as root, and there is neither a postgres nor a nobody user to run PostgreSQL as")
}

// chown gives path to the server's user.
func (r *runAs) chown(path string) error {
	if !r.root {
		return nil
	}
	return os.Chown(path, int(r.uid), int(r.gid))
}

// attr returns the process attributes of a PostgreSQL program: its user,
// and, for the server, a signal at the test binary's death, so that a
// killed test leaves no server behind.
func (r *runAs) attr(server bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if r.root {
		a.Credential = &syscall.Credential{Uid: r.uid, Gid: r.gid} // and no supplementary groups
	}
	if server {
		a.Pdeathsig = syscall.SIGQUIT
	}
	return a
}

// freeBytes returns the space available to unprivileged users at path.
func freeBytes(path string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
