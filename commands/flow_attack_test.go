package commands_test

import (
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// Found under attack: a request message whose reference the store did not take, and
// a signed value clicked on another request's message.

// updatesOf returns the updates of the request message at ref.
func (m *recMessenger) updatesOf(ref commands.MessageRef) []call {
	var out []call
	for _, c := range m.of("update") {
		if c.Ref == ref {
			out = append(out, c)
		}
	}
	return out
}

// TestUnrecordedMessageStillUpdated: the database is away while two
// request messages are posted, so the store takes neither reference.
// Once it is back, the first is approved from the Home tab (a click with
// no message) and the second expires: each message ends showing what
// happened, once, and the sweep records the reference it kept.
func TestUnrecordedMessageStillUpdated(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e, ds := newDownEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalTTL: time.Hour}, true)
	ds.set(true, "Attach")
	p1, ref1 := e.request(user1, "/mailbox add first@example.com")
	p2, ref2 := e.request(user1, "/mailbox add second@example.com")
	e.sweep(0, 0) // still away: the references are kept
	ds.set(false, "Attach")
	if got := e.record(p2.ID).Message; !got.IsZero() {
		t.Fatalf("the store has p2's message %+v while its database was away", got)
	}

	if label := e.click(commands.ButtonApprove, p1, admin1, commands.MessageRef{}); label != commands.LabelOK {
		t.Fatalf("approve from the Home tab = %q, want ok", label)
	}
	if ups := e.msgr.updatesOf(ref1); len(ups) != 1 || ups[0].View.State != commands.StateDone || ups[0].View.Buttons() {
		t.Errorf("p1's message updates = %+v, want one, done, without buttons", ups)
	}
	e.sweep(0, 0)
	if got := e.record(p2.ID).Message; got != ref2 {
		t.Errorf("after a sweep with the database back, the store has p2's message %+v, want %+v", got, ref2)
	}
	e.clk.Advance(time.Hour)
	e.sweep(1, 0)
	e.sweep(0, 0)
	if ups := e.msgr.updatesOf(ref2); len(ups) != 1 || ups[0].View.State != commands.StateExpired || ups[0].View.Buttons() {
		t.Errorf("p2's message updates = %+v, want one, expired, without buttons", ups)
	}
	if ups := e.msgr.updatesOf(ref1); len(ups) != 1 {
		t.Errorf("p1's message was updated %d times, want once", len(ups))
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
}

// TestUnrecordedMessageOtherReplica: replica a posts a request whose
// reference the store does not take; replica b, which cannot know where
// the message is, runs it from the Home tab. When a's sweep records the
// reference, it finds the request done and shows that in the message.
func TestUnrecordedMessageOtherReplica(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	cfg := commands.Config{Approvals: commands.ApprovalsRequests}
	a, ds := newDownEnv(t, api, cfg, true)
	b := newEnv(t, api, cfg, func(commands.Store) commands.Store { return ds })
	ds.set(true, "Attach")
	p, ref := a.request(user1, "/mailbox add shared@example.com")
	ds.set(false, "Attach")
	if label := b.click(commands.ButtonApprove, p, admin1, commands.MessageRef{}); label != commands.LabelOK {
		t.Fatalf("approve from b's Home tab = %q, want ok", label)
	}
	if ups := b.msgr.of("update"); len(ups) != 0 {
		t.Fatalf("b updated %+v, a message it cannot know", ups)
	}
	a.sweep(0, 0)
	if ups := a.msgr.updatesOf(ref); len(ups) != 1 || ups[0].View.State != commands.StateDone || ups[0].View.Buttons() {
		t.Errorf("the request message after a's sweep: updates %+v, want one, done, without buttons", ups)
	}
	a.sweep(0, 0)
	if n := len(a.msgr.updatesOf(ref)); n != 1 {
		t.Errorf("the request message was updated %d times, want once", n)
	}
}

// TestMovedValueRefused: A's signed value clicked on B's message is
// refused, Approve and Deny alike, whether the store knows where B's
// message is, knows B without its message, or (without a database,
// after a restart) knows neither; nothing runs, neither message changes,
// neither request is decided, and B's own Approve still runs B.
func TestMovedValueRefused(t *testing.T) {
	t.Parallel()
	cfg := commands.Config{Approvals: commands.ApprovalsRequests}
	for _, tc := range []struct {
		name string
		// setup returns the env the clicks go to, with A, B and B's message.
		setup func(t *testing.T, api *fakeProvider) (e *env, a, b commands.Pending, refB commands.MessageRef)
	}{
		{"store knows the messages", func(t *testing.T, api *fakeProvider) (*env, commands.Pending, commands.Pending, commands.MessageRef) {
			e, _ := newDownEnv(t, api, cfg, true)
			a, _ := e.request(user1, "/mailbox add a@example.com")
			b, refB := e.request(user2, "/mailbox add b@example.com")
			return e, a, b, refB
		}},
		{"store lost the messages", func(t *testing.T, api *fakeProvider) (*env, commands.Pending, commands.Pending, commands.MessageRef) {
			e, ds := newDownEnv(t, api, cfg, true)
			ds.set(true, "Attach")
			a, _ := e.request(user1, "/mailbox add a@example.com")
			b, refB := e.request(user2, "/mailbox add b@example.com")
			ds.set(false, "Attach")
			e.msgr.shows = showsOnly(refB, e.core.EncodePending(b))
			return e, a, b, refB
		}},
		{"restart without a database", func(t *testing.T, api *fakeProvider) (*env, commands.Pending, commands.Pending, commands.MessageRef) {
			before := newEnv(t, &fakeProvider{}, cfg, nil)
			a, _ := before.request(user1, "/mailbox add a@example.com")
			b, refB := before.request(user2, "/mailbox add b@example.com")
			e := newEnv(t, api, cfg, nil)
			e.msgr.shows = showsOnly(refB, before.core.EncodePending(b))
			return e, a, b, refB
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := &fakeProvider{}
			e, a, b, refB := tc.setup(t, api)
			mark := len(e.msgr.of("update"))
			for _, kind := range []commands.ButtonKind{commands.ButtonApprove, commands.ButtonDeny} {
				if label := e.click(kind, a, admin1, refB); label != commands.LabelInvalid {
					t.Errorf("%s with A's value on B's message = %q, want invalid", kind, label)
				}
				if r := e.msgr.lastTo(admin1); !r.Error || r.Title != "This button is not valid here" {
					t.Errorf("the clicker was told %+v, want a refusal", r)
				}
			}
			if n := len(e.msgr.of("update")); n != mark || api.calls.Load() != 0 {
				t.Errorf("A's value on B's message: %d message updates, %d API calls; want none", n-mark, api.calls.Load())
			}
			for _, p := range []commands.Pending{a, b} {
				if rec, known, err := e.store.Get(t.Context(), p.ID); err != nil || known && rec.State != commands.StatePending {
					t.Errorf("request %s after A's value on B's message: %s (%v), want pending or unknown", p.Op, rec.State, err)
				}
			}
			if label := e.click(commands.ButtonApprove, b, admin1, refB); label != commands.LabelOK {
				t.Errorf("B's own Approve = %q, want ok", label)
			}
			if ups := e.msgr.updatesOf(refB); len(ups) == 0 || ups[len(ups)-1].View.Pending.ID != b.ID || ups[len(ups)-1].View.State != commands.StateDone {
				t.Errorf("B's message after its own Approve: %+v, want B done", ups)
			}
		})
	}
}

// showsOnly reads back the one message at ref, offering value.
func showsOnly(ref commands.MessageRef, value string) func(commands.MessageRef) (string, error) {
	return func(got commands.MessageRef) (string, error) {
		if got != ref {
			return "", nil // gone
		}
		return value, nil
	}
}
