package commands_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// progressMessenger is recMessenger with the import's progress message and
// ops notice, recording when each write happened.
type progressMessenger struct {
	*recMessenger
	mu      sync.Mutex
	writes  []time.Time
	last    commands.Reply
	notices []string
	now     func() time.Time // the clock of the writes
}

func (m *progressMessenger) PostProgress(_ context.Context, _ string, r commands.Reply) (commands.MessageRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes, m.last = append(m.writes, m.now()), r
	return commands.MessageRef{Channel: "DREQ", TS: "1"}, nil
}

func (m *progressMessenger) UpdateProgress(_ context.Context, _ commands.MessageRef, r commands.Reply) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes, m.last = append(m.writes, m.now()), r
	return nil
}

func (m *progressMessenger) PostNotice(_ context.Context, text string) (commands.MessageRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notices = append(m.notices, "post: "+text)
	return commands.MessageRef{Channel: "COPS", TS: "2"}, nil
}

func (m *progressMessenger) UpdateNotice(_ context.Context, _ commands.MessageRef, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notices = append(m.notices, "update: "+text)
	return nil
}

// gatedBoxes is mailboxes whose add says it has begun and waits until the
// test lets it end, so that the test knows which rows have ended.
type gatedBoxes struct {
	*mailboxes
	begun   chan string
	release chan struct{}
}

func (g gatedBoxes) AddMailbox(ctx context.Context, domain, login, pw string, force bool) (*apiclient.Mailbox, error) {
	select {
	case g.begun <- login:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.mailboxes.AddMailbox(ctx, domain, login, pw, force)
}

// TestImportProgressRateLimited: the progress message is written when the
// import starts, then at most once per period of the core's clock while
// rows end, however its wake-ups come, then once with the summary; the ops
// channel gets one notice, updated at the end. Time is the test's clock.
func TestImportProgressRateLimited(t *testing.T) {
	const every = 2 * time.Second
	defer commands.SetProgressEvery(every)()
	ticks := make(chan time.Time)
	defer commands.SetProgressTicks(ticks)()
	api := gatedBoxes{newMailboxes(), make(chan string), make(chan struct{})}
	cfg := commands.Config{People: emailPeople{directory()}, Domains: []string{"example.com"}, ImportConcurrency: 1}
	e := newEnv(t, api, cfg, nil)
	pm := &progressMessenger{recMessenger: e.msgr, now: e.clk.Now}
	core, err := commands.New(api, e.store, pm, withTestDefaults(e.cfg, cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	d, errs := core.PrepareImport(t.Context(), commands.Request{UserID: admin1, Command: commands.CmdMailbox}, commands.ImportInput{Text: "r0@example.com\nr1@example.com\nr2@example.com\nr3@example.com\n"})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	done := make(chan struct{})
	go func() { defer close(done); core.Execute(t.Context(), commands.Route{User: admin1}, d) }()
	wait := func(c <-chan string) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(10 * time.Second):
			t.Fatal("the import's next row did not begin")
		}
	}
	// endRow lets the row running end and waits for the next to begin: with
	// one row at a time, the one before has then been counted.
	endRow := func() { t.Helper(); api.release <- struct{}{}; wait(api.begun) }
	// wake wakes the progress updates and waits until the wake-up is done
	// (the second send is taken only once the first is handled).
	wake := func() { ticks <- e.clk.Now(); ticks <- e.clk.Now() }
	writes := func() int { pm.mu.Lock(); defer pm.mu.Unlock(); return len(pm.writes) }
	expect := func(n int, when string) {
		t.Helper()
		wake()
		if got := writes(); got != n {
			t.Errorf("%s: %d progress writes, want %d", when, got, n)
		}
	}
	wait(api.begun)
	endRow()
	expect(1, "a row ended, no time passed")
	e.clk.Advance(every)
	expect(2, "a row ended, a period passed")
	endRow()
	e.clk.Advance(every - time.Millisecond)
	expect(2, "a row ended, less than a period passed")
	e.clk.Advance(time.Millisecond)
	expect(3, "a row ended, a period passed")
	e.clk.Advance(every)
	expect(3, "no row ended")
	endRow()
	api.release <- struct{}{}
	<-done
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if len(pm.writes) != 4 || !strings.Contains(pm.last.Title, "4 created, 0 already existing, 0 failed") {
		t.Errorf("%d progress writes, the last %q; want 4, the last the summary", len(pm.writes), pm.last.Title)
	}
	for i := 1; i+1 < len(pm.writes); i++ {
		if gap := pm.writes[i].Sub(pm.writes[i-1]); gap < every {
			t.Errorf("updates %s apart by the clock, want at least %s", gap, every)
		}
	}
	if len(pm.notices) != 2 || !strings.HasPrefix(pm.notices[0], "post: ") || !strings.Contains(pm.notices[1], "4 created") {
		t.Errorf("ops notices %q, want one posted and updated with the counts", pm.notices)
	}
}

// withTestDefaults is cfg with what newEnv gave e's core.
func withTestDefaults(envCfg, cfg commands.Config) commands.Config {
	envCfg.People, envCfg.Domains, envCfg.ImportConcurrency = cfg.People, cfg.Domains, cfg.ImportConcurrency
	return envCfg
}
