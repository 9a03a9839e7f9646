package commands_test

import (
	"context"
	"fmt"
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
}

func (m *progressMessenger) PostProgress(_ context.Context, _ string, r commands.Reply) (commands.MessageRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes, m.last = append(m.writes, time.Now()), r
	return commands.MessageRef{Channel: "DREQ", TS: "1"}, nil
}

func (m *progressMessenger) UpdateProgress(_ context.Context, _ commands.MessageRef, r commands.Reply) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes, m.last = append(m.writes, time.Now()), r
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

// slowBoxes is mailboxes whose add takes a while, so that an import lasts
// several progress periods.
type slowBoxes struct {
	*mailboxes
	delay time.Duration
}

func (s slowBoxes) AddMailbox(ctx context.Context, domain, login, pw string, force bool) (*apiclient.Mailbox, error) {
	t := time.NewTimer(s.delay) // the provider's latency
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.mailboxes.AddMailbox(ctx, domain, login, pw, force)
}

// TestImportProgressRateLimited: the progress message is written when the
// import starts, then at most once per period while rows end, then once
// with the summary; the ops channel gets one notice, updated at the end.
func TestImportProgressRateLimited(t *testing.T) {
	const every = 100 * time.Millisecond
	defer commands.SetProgressEvery(every)()
	api := slowBoxes{newMailboxes(), 5 * time.Millisecond}
	cfg := commands.Config{People: emailPeople{directory()}, Domains: []string{"example.com"}, ImportConcurrency: 2}
	e := newEnv(t, api, cfg, nil)
	pm := &progressMessenger{recMessenger: e.msgr}
	core, err := commands.New(api, e.store, pm, withTestDefaults(e.cfg, cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder
	for i := range 120 {
		fmt.Fprintf(&rows, "r%03d@example.com\n", i)
	}
	d, errs := core.PrepareImport(t.Context(), commands.Request{UserID: admin1, Command: commands.CmdMailbox}, commands.ImportInput{Text: rows.String()})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	begin := time.Now()
	core.Execute(t.Context(), commands.Route{User: admin1}, d)
	took := time.Since(begin)
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if !strings.Contains(pm.last.Title, "120 created, 0 already existing, 0 failed") {
		t.Errorf("last progress write %q, want the summary", pm.last.Title)
	}
	periodic := pm.writes[1 : len(pm.writes)-1]
	if max := int(took/every) + 1; len(periodic) > max || len(periodic) == 0 {
		t.Errorf("%d updates while the import ran %s, want 1 to %d (one per %s at most)", len(periodic), took, max, every)
	}
	for i := 1; i < len(periodic); i++ {
		if gap := periodic[i].Sub(periodic[i-1]); gap < every*9/10 {
			t.Errorf("updates %s apart, want at least %s", gap, every)
		}
	}
	if len(pm.notices) != 2 || !strings.HasPrefix(pm.notices[0], "post: ") || !strings.Contains(pm.notices[1], "120 created") {
		t.Errorf("ops notices %q, want one posted and updated with the counts", pm.notices)
	}
}

// withTestDefaults is cfg with what newEnv gave e's core.
func withTestDefaults(envCfg, cfg commands.Config) commands.Config {
	envCfg.People, envCfg.Domains, envCfg.ImportConcurrency = cfg.People, cfg.Domains, cfg.ImportConcurrency
	return envCfg
}
