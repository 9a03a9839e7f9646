package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running throwaway PostgreSQL server. Its superuser is
// "postgres", trusted on the unix socket and on 127.0.0.1; every other
// role logs in over TCP with its password (scram-sha-256).
type Cluster struct {
	dir    string // the temporary directory: data/, sock/, log
	port   int
	run    *runAs
	cmd    *exec.Cmd
	exited chan struct{} // closed when the server process ends

	strategy string // " STRATEGY FILE_COPY" where the server has it (15 and later)

	mu        sync.Mutex
	databases int
}

// startTimeout bounds initdb plus the server's start.
const startTimeout = 60 * time.Second

// hba is the cluster's pg_hba.conf.
const hba = `local all all trust
host all postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
`

// Start creates and starts a cluster in a new temporary directory. Call
// Stop to stop it and remove the directory.
func Start() (*Cluster, error) {
	bins, err := findBinaries()
	if err != nil {
		return nil, err
	}
	run, err := currentRunAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(baseDir(), "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, run: run}
	if err := c.init(bins); err != nil {
		_ = os.RemoveAll(dir) // best effort: the init error is the one to report
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		err = c.start(bins)
		if err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir) // best effort: the start error is the one to report
		return nil, err
	}
	return c, nil
}

// init runs initdb and writes pg_hba.conf.
func (c *Cluster) init(bins binaries) error {
	for _, d := range []string{c.dir, filepath.Join(c.dir, "sock")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := c.run.chown(d); err != nil {
			return err
		}
	}
	data := filepath.Join(c.dir, "data")
	cmd := exec.Command(bins.initdb, "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.Dir = c.dir
	cmd.SysProcAttr = c.run.attr(false)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	path := filepath.Join(data, "pg_hba.conf")
	if err := os.WriteFile(path, []byte(hba), 0o600); err != nil {
		return err
	}
	return c.run.chown(path)
}

// start runs the server at a free port and waits until it answers.
func (c *Cluster) start(bins binaries) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	logPath := filepath.Join(c.dir, "postgres.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer func() { _ = logFile.Close() }() // the server writes through its own copy
	c.port = port
	c.cmd = exec.Command(bins.postgres, "-D", filepath.Join(c.dir, "data"),
		"-p", strconv.Itoa(port), "-k", filepath.Join(c.dir, "sock"),
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=32MB",
		"-c", "dynamic_shared_memory_type=mmap", "-c", "log_min_messages=warning")
	c.cmd.Dir = c.dir
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	c.cmd.SysProcAttr = c.run.attr(true)
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	c.exited = make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	if err := c.waitReady(); err != nil {
		c.kill()
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("postgres did not start: %v\n%s", err, tail(log, 2000))
	}
	return nil
}

// waitReady polls the server until it accepts a connection, it exits, or
// startTimeout passes.
func (c *Cluster) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err == nil {
			defer func() { _ = conn.Close(ctx) }() // only a probe
			var version int
			err = conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version)
			if version >= 150000 {
				c.strategy = " STRATEGY FILE_COPY" // faster than WAL_LOG for a small template
			}
			return err
		}
		select {
		case <-c.exited:
			return errors.New("the server exited")
		case <-ctx.Done():
			return fmt.Errorf("no answer within %v: %w", startTimeout, err)
		case <-tick.C:
		}
	}
}

// Stop stops the server (fast shutdown: open sessions are ended) and
// removes the cluster's directory.
func (c *Cluster) Stop() error {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.exited:
		case <-time.After(15 * time.Second):
			c.kill()
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("remove the cluster: %w", err)
	}
	return nil
}

// kill ends the server at once and waits for it.
func (c *Cluster) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// DSN returns the URL of database db for the superuser, over TCP.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", c.Addr(), db)
}

// Addr returns the server's TCP address, 127.0.0.1:port.
func (c *Cluster) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)) }

// baseDir returns where clusters go: /dev/shm when it is a tmpfs with at
// least 1 GiB free (a database is created there ten times faster than on
// a disk), else the temporary directory.
func baseDir() string {
	if free, err := freeBytes("/dev/shm"); err == nil && free >= 1<<30 {
		return "/dev/shm"
	}
	return os.TempDir()
}

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }() // only freeing the port matters
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// tail returns at most the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}
