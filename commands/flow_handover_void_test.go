package commands_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// SetLoginEnabled blocks or unblocks any mailbox.
func (f *resetAPI) SetLoginEnabled(_ context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	state := apiclient.StateBlocked
	if enabled {
		state = apiclient.StateActive
	}
	return &apiclient.Mailbox{Address: login + "@" + domain, State: state}, nil
}

// A hand-over follows the mailbox's latest owner: a later reset (for
// someone else or for nobody), block or offboarding of the mailbox voids
// the open hand-over, its message says so and loses its button, and its
// owner's click is refused with no provider call.
func TestHandoverVoidedByWhatComesAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line, says string
	}{
		{"reset for another", "/mailbox reset ada@example.com for <@UBOB|bob> taking over", "replaced"},
		{"reset", "/mailbox reset ada@example.com leaked", "replaced"},
		{"block", "/mailbox block ada@example.com left", "blocked"},
		{"offboard", "/mailbox offboard ada@example.com", "offboarded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var voided atomic.Int32
			e, api := handoverEnv(t, commands.Config{OnHandover: func(ev commands.HandoverEvent) {
				if ev == commands.HandoverVoided {
					voided.Add(1)
				}
			}})
			api.lookup = func(_ context.Context, domain, login string) (*apiclient.Mailbox, error) {
				return &apiclient.Mailbox{Address: login + "@" + domain, State: apiclient.StateActive}, nil
			}
			if _, label := e.typed(admin1, "/mailbox reset ada@example.com for <@UADA|ada> locked out"); label != commands.LabelOK {
				t.Fatalf("reset for @ada: %q", label)
			}
			first := offered(t, e)
			e.clk.Advance(time.Minute)
			if _, label := e.typed(admin1, tc.line); label != commands.LabelOK {
				t.Fatalf("%s: %q\n%s", tc.line, label, e.msgr.lastTo(admin1).PlainText())
			}
			v := e.msgr.message(first.Ref)
			if v.Button() || v.State != commands.HandoverStateVoided || !strings.Contains(v.Text, tc.says) {
				t.Errorf("the first hand-over's message after %q: %+v; want voided, no button, saying %q", tc.line, v, tc.says)
			}
			if voided.Load() != 1 {
				t.Errorf("hand-overs counted voided: %d, want 1", voided.Load())
			}
			sets := len(api.sets())
			if got := e.show(first, newHire); got != commands.LabelDecided || len(api.sets()) != sets {
				t.Errorf("the first owner's click: %q with %d provider calls; want refused with none", got, len(api.sets())-sets)
			}
			if r := e.msgr.lastTo(newHire); !r.Error || !strings.Contains(r.PlainText(), "Nothing was done") || !strings.Contains(r.PlainText(), tc.says) {
				t.Errorf("the refusal: %s", r.PlainText())
			}
			if tc.name != "reset for another" {
				return
			}
			second := offered(t, e)
			if second.View.Handover.Owner != "UBOB" || e.show(second, "UBOB") != commands.LabelShown {
				t.Errorf("the later hand-over to UBOB does not work: %+v", second.View)
			}
		})
	}
}

func (d *downStore) OfferHandover(ctx context.Context, h commands.Handover) ([]commands.HandoverRecord, error) {
	if d.fails("OfferHandover") {
		return nil, errDown
	}
	return d.Store.OfferHandover(ctx, h)
}

// With a database, a hand-over that cannot be recorded is not posted: it
// could be neither voided by a later reset nor known after a restart. The
// requester is told that nobody got the password.
func TestHandoverNotRecordedNotPosted(t *testing.T) {
	t.Parallel()
	api := &resetAPI{}
	e, ds := newDownEnv(t, api, commands.Config{People: directory(), ForcePasswordChange: true}, true)
	ds.set(true, "OfferHandover")
	e.typed(admin1, "/mailbox reset ada@example.com for <@UADA|ada> locked out")
	if offers := e.msgr.handoverCalls("offer"); len(offers) != 0 {
		t.Errorf("%d hand-overs posted that the store did not record, want none", len(offers))
	}
	if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.PlainText(), "nobody knows the password") {
		t.Errorf("the requester's reply:\n%s", r.PlainText())
	}
}
