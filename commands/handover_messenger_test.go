package commands_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/mailbot/mailbot/commands"
)

// handoverCall is one call the core made on the hand-over side of the
// messenger.
type handoverCall struct {
	Kind string // offer, update, value
	Ref  commands.MessageRef
	View commands.HandoverView
}

// handoverLog is recMessenger's record of hand-over messages: it keeps
// each direct message's current view, as Slack keeps the message.
type handoverLog struct {
	mu      sync.Mutex
	calls   []handoverCall
	msgs    map[commands.MessageRef]commands.HandoverView
	failOff bool // OfferHandover fails
}

var handovers sync.Map // *recMessenger -> *handoverLog

// ho returns m's hand-over log.
func (m *recMessenger) ho() *handoverLog {
	v, _ := handovers.LoadOrStore(m, &handoverLog{msgs: map[commands.MessageRef]commands.HandoverView{}})
	return v.(*handoverLog)
}

func (m *recMessenger) OfferHandover(_ context.Context, v commands.HandoverView) (commands.MessageRef, error) {
	h := m.ho()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failOff {
		return commands.MessageRef{}, fmt.Errorf("conversations.open: cannot_dm_bot")
	}
	ref := commands.MessageRef{Channel: "D" + v.Handover.Owner, TS: fmt.Sprintf("1772366500.%06d", len(h.calls)+1)}
	h.calls = append(h.calls, handoverCall{Kind: "offer", Ref: ref, View: v})
	h.msgs[ref] = v
	return ref, nil
}

func (m *recMessenger) UpdateHandover(_ context.Context, ref commands.MessageRef, v commands.HandoverView) error {
	h := m.ho()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, handoverCall{Kind: "update", Ref: ref, View: v})
	h.msgs[ref] = v
	return nil
}

func (m *recMessenger) HandoverValue(_ context.Context, ref commands.MessageRef) (string, error) {
	h := m.ho()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, handoverCall{Kind: "value", Ref: ref})
	return h.msgs[ref].Value, nil
}

// handoverCalls returns the hand-over calls of kind so far.
func (m *recMessenger) handoverCalls(kind string) []handoverCall {
	h := m.ho()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []handoverCall
	for _, c := range h.calls {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// message returns the direct message at ref as it shows now.
func (m *recMessenger) message(ref commands.MessageRef) commands.HandoverView {
	h := m.ho()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.msgs[ref]
}
