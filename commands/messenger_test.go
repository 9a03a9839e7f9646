package commands_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mailbot/mailbot/commands"
)

// call is one call the core made on the messenger.
type call struct {
	Kind  string // deliver, post, update, notify, remind, shows
	Route commands.Route
	Reply commands.Reply
	View  commands.RequestView
	Ref   commands.MessageRef
	Text  string
}

// recMessenger is a Messenger that records every call. It can be told to
// fail Deliver for some people, to fail PostRequest, and what
// RequestValue answers. It is safe for concurrent use.
type recMessenger struct {
	t testing.TB

	mu          sync.Mutex
	calls       []call
	posted      int
	failDeliver map[string]bool // user IDs whose Deliver fails
	failPost    bool
	// shows answers RequestValue: the value the message's buttons carry,
	// "" when it shows a decision; nil means the test does not expect it
	// to be called.
	shows func(ref commands.MessageRef) (string, error)
	// onUpdate, if set, runs before an update is recorded (as applied):
	// a test can hold an update back.
	onUpdate func(v commands.RequestView)
	// discard keeps no calls (for benchmarks); lastPost is kept anyway.
	discard  bool
	lastPost commands.MessageRef
}

var _ commands.Messenger = (*recMessenger)(nil)

func (m *recMessenger) add(c call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.discard {
		m.calls = append(m.calls, c)
	}
}

func (m *recMessenger) Deliver(_ context.Context, to commands.Route, r commands.Reply) error {
	m.add(call{Kind: "deliver", Route: to, Reply: r})
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failDeliver[to.User] {
		return errNotDelivered
	}
	return nil
}

func (m *recMessenger) PostRequest(_ context.Context, v commands.RequestView) (commands.MessageRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failPost {
		m.calls = append(m.calls, call{Kind: "post", View: v}) // discard is for benchmarks only
		return commands.MessageRef{}, errors.New("chat.postMessage: channel_not_found")
	}
	m.posted++
	ref := commands.MessageRef{Channel: "COPS", TS: fmt.Sprintf("1772366400.%06d", m.posted)}
	m.lastPost = ref
	if !m.discard {
		m.calls = append(m.calls, call{Kind: "post", View: v, Ref: ref})
	}
	return ref, nil
}

func (m *recMessenger) UpdateRequest(_ context.Context, ref commands.MessageRef, v commands.RequestView) error {
	m.mu.Lock()
	hook := m.onUpdate
	m.mu.Unlock()
	if hook != nil {
		hook(v)
	}
	m.add(call{Kind: "update", Ref: ref, View: v})
	return nil
}

func (m *recMessenger) Notify(_ context.Context, text string) error {
	m.add(call{Kind: "notify", Text: text})
	return nil
}

func (m *recMessenger) Remind(_ context.Context, ref commands.MessageRef, text string) error {
	m.add(call{Kind: "remind", Ref: ref, Text: text})
	return nil
}

func (m *recMessenger) RequestValue(_ context.Context, ref commands.MessageRef) (string, error) {
	m.add(call{Kind: "shows", Ref: ref})
	m.mu.Lock()
	shows := m.shows
	m.mu.Unlock()
	if shows == nil {
		m.t.Errorf("RequestValue(%+v) called; the test expects no reading back", ref)
		return "", nil
	}
	return shows(ref)
}

// all returns every call so far, in order.
func (m *recMessenger) all() []call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]call(nil), m.calls...)
}

// of returns the calls of kind.
func (m *recMessenger) of(kind string) []call {
	var out []call
	for _, c := range m.all() {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// last returns the last call of kind.
func (m *recMessenger) last(kind string) (call, bool) {
	cs := m.of(kind)
	if len(cs) == 0 {
		return call{}, false
	}
	return cs[len(cs)-1], true
}

// to returns the replies delivered to user.
func (m *recMessenger) to(user string) []commands.Reply {
	var out []commands.Reply
	for _, c := range m.of("deliver") {
		if c.Route.User == user {
			out = append(out, c.Reply)
		}
	}
	return out
}

// lastTo returns the last reply delivered to user.
func (m *recMessenger) lastTo(user string) commands.Reply {
	m.t.Helper()
	rs := m.to(user)
	if len(rs) == 0 {
		m.t.Fatalf("nothing was delivered to %s; calls: %s", user, m.transcript(nil))
	}
	return rs[len(rs)-1]
}

// mark returns how many calls there are, for since.
func (m *recMessenger) mark() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

// since returns the calls after mark.
func (m *recMessenger) since(mark int) []call { return m.all()[mark:] }

// transcript renders calls (all when nil) as text for a golden file:
// times come from the fake clock; request IDs, signed values and message
// timestamps are replaced by placeholders, and each of secrets by
// <secret>.
func (m *recMessenger) transcript(calls []call, secrets ...string) string {
	if calls == nil {
		calls = m.all()
	}
	var b strings.Builder
	for _, c := range calls {
		switch c.Kind {
		case "deliver":
			fmt.Fprintf(&b, "=== deliver to %s (channel %s)\n%s", c.Route.User, c.Route.Channel, renderReply(c.Reply))
		case "post", "update":
			fmt.Fprintf(&b, "=== %s request message\n%s", c.Kind, renderView(c.View))
		case "notify":
			fmt.Fprintf(&b, "=== notify ops\n%s\n", c.Text)
		case "remind":
			fmt.Fprintf(&b, "=== remind in thread\n%s\n", c.Text)
		case "shows":
			b.WriteString("=== read request message back\n")
		}
	}
	s := b.String()
	for _, c := range calls {
		if id := c.View.Pending.ID; id != "" {
			s = strings.ReplaceAll(s, id, "<id>")
		}
	}
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "<secret>")
	}
	return s
}

// renderReply is a reply as the shell shows it, and its buttons.
func renderReply(r commands.Reply) string {
	s := r.PlainText()
	if r.Error {
		s = "(error) " + s
	}
	for _, btn := range r.Buttons {
		s += fmt.Sprintf("[%s: %s]\n", btn.Kind, btn.Label)
	}
	return s
}

// renderView is a request message's content.
func renderView(v commands.RequestView) string {
	p := v.Pending
	s := fmt.Sprintf("%s (request %s, expires %s)\nstate %s, %d of %d approvals %v\n",
		p.Summary(nil), p.ID, p.Expires.Format("2006-01-02 15:04"), v.State, len(v.Approvers), v.Need, v.Approvers)
	if v.Text != "" {
		s += v.Text + "\n"
	}
	if v.Buttons() {
		s += "[approve] [deny]\n"
	}
	return s
}
