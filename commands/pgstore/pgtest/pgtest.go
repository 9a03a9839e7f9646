// Package pgtest gives tests a throwaway PostgreSQL server: a cluster in a
// temporary directory, listening on 127.0.0.1 at a free port (and on a
// unix socket inside the directory), with a fresh database per test, and a
// TCP proxy in front of it that a test can cut to simulate an outage.
//
// A test package shares one cluster among its tests by calling [Main]
// from TestMain; the cluster starts with the first [NewDatabase] and stops
// when the tests end:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.NewDatabase(t) // a new, empty database
//		...
//	}
//
// Without Main, every test that asks for a database gets a cluster of its
// own (correct, but a second or so slower each).
//
// PostgreSQL must be installed: initdb and postgres on the PATH, or under
// /usr/lib/postgresql/*/bin, or in the directory MAILBOT_TEST_POSTGRES_BIN
// names. When it is not, the tests that need it say so and skip, and one
// line after the last of the go command's output says so (notice.go); with
// MAILBOT_TEST_POSTGRES=required in the environment (as CI sets it) they
// fail instead. PostgreSQL refuses to run as root: as root
// the server runs as the postgres user (or nobody), which owns the
// temporary directory.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvRequired names the environment variable that, set to "required",
// turns a missing PostgreSQL into a test failure instead of a skip.
const EnvRequired = "MAILBOT_TEST_POSTGRES"

// EnvBinDir names the environment variable that, when set, is the one
// directory where initdb and postgres are looked for (a PostgreSQL
// installed elsewhere than on the PATH or under /usr/lib/postgresql).
const EnvBinDir = "MAILBOT_TEST_POSTGRES_BIN"

// shared is the package's cluster when the tests run under Main.
var shared struct {
	sync.Mutex
	main    bool
	cluster *Cluster
	err     error
}

// Main runs the tests of m, stops the shared cluster if one was started,
// and exits with the tests' code. Call it from TestMain.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main without the exit, for a TestMain that does more: it runs
// the tests of m, stops the shared cluster if one was started, and
// returns the tests' code.
func Run(m *testing.M) int {
	shared.Lock()
	shared.main = true
	shared.Unlock()
	code := m.Run()
	shared.Lock()
	defer shared.Unlock()
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
		shared.cluster = nil
	}
	return code
}

// NewDatabase creates an empty database for t on the package's cluster,
// starting the cluster first if need be, and returns its DSN (a URL, for
// the superuser, without a password). The database is dropped when t ends.
// Without PostgreSQL, t is skipped (or fails: see [EnvRequired]).
func NewDatabase(t testing.TB) string {
	t.Helper()
	return Shared(t).NewDatabase(t)
}

// Shared returns the package's cluster, starting it if need be (see
// [NewDatabase] for what happens without PostgreSQL).
func Shared(t testing.TB) *Cluster {
	t.Helper()
	RequireInstalled(t)
	shared.Lock()
	defer shared.Unlock()
	if !shared.main {
		c, err := Start()
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		t.Cleanup(func() {
			if err := c.Stop(); err != nil {
				t.Errorf("pgtest: %v", err)
			}
		})
		return c
	}
	if shared.cluster == nil && shared.err == nil {
		shared.cluster, shared.err = Start()
	}
	if shared.err != nil {
		t.Fatalf("pgtest: %v", shared.err)
	}
	return shared.cluster
}

// RequireInstalled skips t when PostgreSQL is not installed, or fails it
// when the environment requires PostgreSQL. Call it from the test that
// needs the database, not from one of its subtests: a skip ends the
// goroutine of the test it is called on.
func RequireInstalled(t testing.TB) {
	t.Helper()
	if _, err := findBinaries(); err != nil {
		if os.Getenv(EnvRequired) == "required" {
			t.Fatalf("pgtest: %s=required, but %v", EnvRequired, err)
		}
		noteSkip(err)
		t.Skipf("pgtest: skipped, %v (set %s=required to fail instead)", err, EnvRequired)
	}
}

// binaries are the paths of the PostgreSQL programs the cluster runs.
type binaries struct {
	initdb, postgres string
}

// findBinaries looks for initdb and postgres on the PATH, then under
// Debian's /usr/lib/postgresql/VERSION/bin, newest first.
// With EnvBinDir set, only that directory is searched.
func findBinaries() (binaries, error) {
	if dir := os.Getenv(EnvBinDir); dir != "" {
		b := binaries{filepath.Join(dir, "initdb"), filepath.Join(dir, "postgres")}
		if isExecutable(b.initdb) && isExecutable(b.postgres) {
			return b, nil
		}
		return binaries{}, fmt.Errorf("PostgreSQL is not installed in %s=%s (no initdb and postgres there)", EnvBinDir, dir)
	}
	initdb, err1 := exec.LookPath("initdb")
	postgres, err2 := exec.LookPath("postgres")
	if err1 == nil && err2 == nil {
		return binaries{initdb, postgres}, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return cmpVersionDirs(b, a) })
	for _, d := range dirs {
		b := binaries{filepath.Join(d, "initdb"), filepath.Join(d, "postgres")}
		if isExecutable(b.initdb) && isExecutable(b.postgres) {
			return b, nil
		}
	}
	return binaries{}, errors.New("PostgreSQL is not installed (no initdb and postgres on the PATH or under /usr/lib/postgresql/*/bin)")
}

// cmpVersionDirs orders /usr/lib/postgresql/N/bin by N as a number.
func cmpVersionDirs(a, b string) int {
	// A directory whose name is not a number counts as version 0.
	var va, vb int
	_, _ = fmt.Sscanf(filepath.Base(filepath.Dir(a)), "%d", &va)
	_, _ = fmt.Sscanf(filepath.Base(filepath.Dir(b)), "%d", &vb)
	return va - vb
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// NewDatabase creates an empty database for t and returns its DSN. The
// database is dropped (with any connection still open) when t ends.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	dsn, drop, err := c.CreateDatabase(t.Context())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Logf("pgtest: %v", err)
		}
	})
	return dsn
}

// CreateDatabase creates an empty database and returns its DSN and the
// function that drops it (with any connection still open). It is
// NewDatabase for a database that must outlive the test that makes it,
// such as one a subtest makes and its parent inspects at the end.
func (c *Cluster) CreateDatabase(ctx context.Context) (dsn string, drop func() error, err error) {
	c.mu.Lock()
	c.databases++
	name := fmt.Sprintf("test_%d", c.databases)
	c.mu.Unlock()
	if err := c.exec(ctx, "CREATE DATABASE "+name+c.strategy); err != nil {
		return "", nil, err
	}
	return c.DSN(name), func() error {
		return c.exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}, nil
}

// exec runs one statement as the superuser in the postgres database.
func (c *Cluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("connect to the cluster: %w", err)
	}
	defer func() { _ = conn.Close(context.Background()) }() // the statement's outcome is known
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// Exec runs one statement as the superuser in the postgres database of
// the cluster, such as CREATE ROLE.
func (c *Cluster) Exec(ctx context.Context, sql string) error { return c.exec(ctx, sql) }
