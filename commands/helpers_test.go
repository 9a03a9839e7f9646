package commands

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeAPI is a hand-written fake of API: func fields, and a count of calls.
type fakeAPI struct {
	register func(ctx context.Context, domain string) (*apiclient.Domain, error)
	add      func(ctx context.Context, domain, login, password string) (*apiclient.Mailbox, error)
	calls    atomic.Int64
}

var _ API = (*fakeAPI)(nil)

func (f *fakeAPI) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	f.calls.Add(1)
	if f.register == nil {
		return &apiclient.Domain{Name: domain, Status: apiclient.StatusDomainActivate, Stage: apiclient.StageOwnerCheck,
			Secrets: &apiclient.Secrets{Name: "3c8a1f2e9b7d", Content: "5f0e9d8c7b6a5f4e3d2c1b0a"}}, nil
	}
	return f.register(ctx, domain)
}

func (f *fakeAPI) AddMailbox(ctx context.Context, domain, login, password string) (*apiclient.Mailbox, error) {
	f.calls.Add(1)
	if f.add == nil {
		return &apiclient.Mailbox{Domain: domain, Login: login + "@" + domain, UID: 1130000000000042}, nil
	}
	return f.add(ctx, domain, login, password)
}

// clock is a settable fake clock.
type clock struct{ t atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.t.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.t.Add(int64(d)) }

// newCore returns a core on api with cfg; Admins default to U1 and U2.
func newCore(t testing.TB, api API, cfg Config) *Core {
	t.Helper()
	if cfg.Admins == nil {
		cfg.Admins = []string{"UADMIN1", "UADMIN2"}
	}
	c, err := New(api, cfg, zap.NewNop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// golden compares got with testdata/<name>.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./commands -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
