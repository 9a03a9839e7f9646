package slackfake

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

const wait = 10 * time.Second

// replica is a real slack-go Socket Mode client connected to the fake, as
// one mailbot replica would be.
type replica struct {
	sm  *socketmode.Client
	got chan socketmode.Event // requests (hello aside) and unparsable messages
}

// handler decides whether and with what a replica acknowledges a request.
type handler func(socketmode.Event) (ack bool, payload any)

func ackAll(socketmode.Event) (bool, any)  { return true, nil }
func ackNone(socketmode.Event) (bool, any) { return false, nil }

func newFake(t *testing.T) *Server {
	t.Helper()
	f := New()
	t.Cleanup(f.Close)
	return f
}

func newAPI(f *Server) *slack.Client {
	return slack.New(BotToken, slack.OptionAppLevelToken(AppToken), slack.OptionAPIURL(f.URL))
}

// startReplica connects a Socket Mode client to f and waits until f has
// seen connection number conn (its id).
func startReplica(t *testing.T, f *Server, conn int, h handler) *replica {
	t.Helper()
	r := &replica{sm: socketmode.New(newAPI(f)), got: make(chan socketmode.Event, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = r.sm.RunContext(ctx) })
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case evt := <-r.sm.Events:
				switch {
				case evt.Request != nil && evt.Type != socketmode.EventTypeHello:
					if ok, payload := h(evt); ok {
						_ = r.sm.Ack(*evt.Request, payload)
					}
					r.got <- evt
				case evt.Type == socketmode.EventTypeErrorBadMessage:
					r.got <- evt
				}
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	if err := f.Socket.WaitConnected(conn, wait); err != nil {
		t.Fatal(err)
	}
	return r
}

// next returns the next request the replica got.
func (r *replica) next(t *testing.T) socketmode.Event {
	t.Helper()
	select {
	case evt := <-r.got:
		return evt
	case <-time.After(wait):
		t.Fatal("no request reached the replica")
		return socketmode.Event{}
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestSlashCommandAckAndResponseURL(t *testing.T) {
	f := newFake(t)
	r := startReplica(t, f, 1, func(socketmode.Event) (bool, any) { return true, map[string]any{"text": "working on it"} })
	id := must[string](t)(f.SlashCommand("U1", "C1", "/mailbox", "add a@b.c"))
	evt := r.next(t)
	cmd, ok := evt.Data.(slack.SlashCommand)
	if !ok || cmd.Command != "/mailbox" || cmd.Text != "add a@b.c" || cmd.UserID != "U1" || evt.Request.EnvelopeID != id {
		t.Fatalf("replica got %+v (%T), want the command of envelope %s", evt.Data, evt.Data, id)
	}
	ack := must[Ack](t)(f.Socket.WaitAck(id, wait))
	if !strings.Contains(string(ack.Payload), "working on it") || ack.Conn != 1 {
		t.Errorf("ack %s on connection %d", ack.Payload, ack.Conn)
	}
	if err := slack.PostWebhook(cmd.ResponseURL, &slack.WebhookMessage{Text: "done", ResponseType: "ephemeral"}); err != nil {
		t.Fatal(err)
	}
	if posts := f.Posts(id); len(posts) != 1 || posts[0].Body["text"] != "done" {
		t.Errorf("posts %+v", posts)
	}
	if got := f.Texts().To["U1"]; !contains(got, "done") || !contains(got, "working on it") {
		t.Errorf("U1 sees %q, want the ack and the post", got)
	}
}

func contains(texts []string, s string) bool {
	for _, t := range texts {
		if t == s {
			return true
		}
	}
	return false
}

func TestRoundRobinAndTargetedSends(t *testing.T) {
	f := newFake(t)
	a := startReplica(t, f, 1, ackAll)
	b := startReplica(t, f, 2, ackAll)
	if err := f.Socket.WaitConnections(2, wait); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		must[string](t)(f.SlashCommand("U1", "C1", "/maildomain", "help"))
	}
	for range 2 {
		a.next(t)
		b.next(t)
	}
	id := must[string](t)(f.Via(2).SlashCommand("U1", "C1", "/maildomain", "help"))
	if got := b.next(t).Request.EnvelopeID; got != id {
		t.Errorf("connection 2 got %s, want %s", got, id)
	}
	if ack := must[Ack](t)(f.Socket.WaitAck(id, wait)); ack.Conn != 2 {
		t.Errorf("ack on connection %d, want 2", ack.Conn)
	}
	if _, err := f.Via(7).SlashCommand("U1", "C1", "/maildomain", "help"); err == nil {
		t.Error("send to a connection that is not open succeeded")
	}
	if n, ids := f.Socket.Connections(), f.Socket.ConnIDs(); n != 2 || len(ids) != 2 || ids[0] != 1 || ids[1] != 2 {
		t.Errorf("Connections %d, ConnIDs %v", n, ids)
	}
}

func TestRedeliveryGoesToAnotherConnection(t *testing.T) {
	f := newFake(t)
	f.Socket.SetRedeliveryAfter(50 * time.Millisecond)
	deaf := startReplica(t, f, 1, ackNone)
	ok := startReplica(t, f, 2, ackAll)
	id := must[string](t)(f.Via(1).SlashCommand("U1", "C1", "/mailbox", "add x"))
	if first := deaf.next(t).Request; first.RetryAttempt != 0 || first.RetryReason != "" {
		t.Errorf("first delivery: attempt %d reason %q", first.RetryAttempt, first.RetryReason)
	}
	again := ok.next(t).Request
	if again.EnvelopeID != id || again.RetryAttempt != 1 || again.RetryReason != "timeout" {
		t.Errorf("re-delivery %+v, want envelope %s attempt 1 reason timeout", again, id)
	}
	ack := must[Ack](t)(f.Socket.WaitAck(id, wait))
	ds := f.Socket.Deliveries(id)
	if ack.Conn != 2 || len(ds) != 2 || ds[0].Conn != 1 || ds[1].Conn != 2 || ds[1].Attempt != 1 {
		t.Errorf("ack on %d, deliveries %+v", ack.Conn, ds)
	}
	f.mu.Lock()
	armed := f.Socket.envs[id].timer != nil
	f.mu.Unlock()
	if armed {
		t.Error("an acknowledged envelope is still due for re-delivery")
	}
}

func TestRedeliveryStopsAfterThreeRetries(t *testing.T) {
	f := newFake(t)
	f.Socket.SetRedeliveryAfter(20 * time.Millisecond)
	r := startReplica(t, f, 1, ackNone)
	id := must[string](t)(f.SlashCommand("U1", "C1", "/mailbox", "add x"))
	for want := range MaxRetries + 1 {
		if got := r.next(t).Request.RetryAttempt; got != want {
			t.Fatalf("retry_attempt %d, want %d", got, want)
		}
	}
	f.mu.Lock()
	armed := f.Socket.envs[id].timer != nil
	f.mu.Unlock()
	if armed {
		t.Errorf("a 4th re-delivery is due after %d retries", MaxRetries)
	}
}

func TestRedeliverExplicitlyAndDisabled(t *testing.T) {
	f := newFake(t)
	f.Socket.SetRedeliveryAfter(0)
	r := startReplica(t, f, 1, ackAll)
	id := must[string](t)(f.SlashCommand("U1", "C1", "/mailbox", "add x"))
	r.next(t)
	must[Ack](t)(f.Socket.WaitAck(id, wait))
	if err := f.Redeliver(id); err != nil {
		t.Fatal(err)
	}
	again := r.next(t).Request
	if again.EnvelopeID != id || again.RetryAttempt != 1 || again.RetryReason != "timeout" {
		t.Errorf("re-delivery %+v", again)
	}
	if acks := must[[]Ack](t)(f.Socket.WaitAcks(id, 2, wait)); len(acks) != 2 || len(f.Socket.AcksOf(id)) != 2 {
		t.Errorf("acks %+v, want two", acks)
	}
	f.mu.Lock()
	armed := f.Socket.envs[id].timer != nil
	f.mu.Unlock()
	if armed {
		t.Error("re-delivery armed while disabled")
	}
	if err := f.Redeliver("env-none"); err == nil {
		t.Error("re-delivery of an unknown envelope succeeded")
	}
}

func TestDisconnectOneAndDropAll(t *testing.T) {
	f := newFake(t)
	a := startReplica(t, f, 1, ackAll)
	startReplica(t, f, 2, ackAll)
	if err := f.Socket.DisconnectConn(1); err != nil {
		t.Fatal(err)
	}
	if ids := f.Socket.ConnIDs(); len(ids) != 1 || ids[0] != 2 {
		t.Errorf("after disconnecting 1, ConnIDs %v", ids)
	}
	if err := f.Socket.WaitConnected(3, wait); err != nil { // replica a comes back
		t.Fatal(err)
	}
	id := must[string](t)(f.Via(3).SlashCommand("U1", "C1", "/maildomain", "help"))
	if got := a.next(t).Request.EnvelopeID; got != id {
		t.Errorf("reconnected replica got %s, want %s", got, id)
	}
	f.Socket.Drop()
	if err := f.Socket.WaitConnected(5, wait); err != nil {
		t.Fatal(err)
	}
	if err := f.Socket.WaitConnections(2, wait); err != nil {
		t.Fatal(err)
	}
}

func TestEleventhConnectionIsTurnedAway(t *testing.T) {
	f := newFake(t)
	var resp struct{ URL string }
	if err := json.Unmarshal([]byte(postForm(t, f.URL+"apps.connections.open", "token="+AppToken)), &resp); err != nil {
		t.Fatal(err)
	}
	for i := range MaxConnections + 1 {
		ws, _, err := websocket.DefaultDialer.Dial(resp.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = ws.Close() }()
		var msg map[string]any
		if err := ws.ReadJSON(&msg); err != nil {
			t.Fatal(err)
		}
		want := "hello"
		if i == MaxConnections {
			want = "disconnect"
		}
		if msg["type"] != want {
			t.Fatalf("connection %d got %v, want %s", i+1, msg, want)
		}
	}
	if n := f.Socket.Connections(); n != MaxConnections {
		t.Errorf("%d connections open, want %d", n, MaxConnections)
	}
}
