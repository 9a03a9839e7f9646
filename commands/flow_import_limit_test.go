package commands_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// limited is mailboxes whose provider rate-limits the first adds: a
// temporary failure after the adapter's own retries, nothing done.
type limited struct {
	*mailboxes
	refuse atomic.Int64 // adds still to refuse
	paused atomic.Int64 // adds refused
}

func (l *limited) AddMailbox(ctx context.Context, domain, login, pw string, force bool) (*apiclient.Mailbox, error) {
	if l.refuse.Add(-1) >= 0 {
		l.paused.Add(1)
		return nil, &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpAdd, Class: apiclient.ClassTemporary, HTTPStatus: 429, Attempts: 3}
	}
	return l.mailboxes.AddMailbox(ctx, domain, login, pw, force)
}

// TestImportRateLimitSlowsNotFails: a provider that answers 429 to the
// first adds slows the import down (a pause the rows share) and fails
// no row: every mailbox is created once.
func TestImportRateLimitSlowsNotFails(t *testing.T) {
	defer commands.SetRowPause(10 * time.Millisecond)()
	api := &limited{mailboxes: newMailboxes()}
	api.refuse.Store(6)
	e := importEnv(t, api, commands.Config{ImportConcurrency: 3})
	var rows strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rows, "q%02d@example.com\n", i)
	}
	d, errs := e.importRows(admin1, rows.String(), "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	e.core.Execute(t.Context(), commands.Route{User: admin1}, d)
	if got := e.msgr.lastTo(admin1).Title; !strings.Contains(got, "20 created, 0 already existing, 0 failed") {
		t.Errorf("summary %q after %d rate-limited adds, want every row created", got, api.paused.Load())
	}
	for i := range 20 {
		if n := api.count(fmt.Sprintf("q%02d@example.com", i)); n != 1 {
			t.Errorf("q%02d created %d times", i, n)
		}
	}
	if api.paused.Load() != 6 {
		t.Errorf("%d adds refused, want the 6 the provider refused", api.paused.Load())
	}
}
