package slackfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// socket is one Socket Mode connection.
type socket struct {
	id      int
	ws      *websocket.Conn
	writeMu sync.Mutex // gorilla allows one writer at a time
	leaving bool       // told to disconnect or dropped: gets no new envelopes
}

// write sends v on the connection.
func (c *socket) write(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

// Socket is the fake's Socket Mode side: the connections, the envelopes
// sent on them and the bot's acknowledgements, re-delivery and the
// failures a test makes (disconnects, drops, no pings). Server.Socket is
// the fake's; the fake's lock (hub.mu) guards it.
type Socket struct {
	*hub
	upgrader       websocket.Upgrader
	ping           time.Duration
	envelopes      atomic.Int64 // envelope ids handed out
	socks          []*socket    // open connections, oldest first
	connects       int
	rr             int // round-robin position
	envs           map[string]*envelope
	acks           []Ack
	redeliverAfter time.Duration
	pingsOff       bool
	// onDeliver and onAck are called with mu held as an envelope is
	// sent (its trigger_id is issued) and as an ack arrives (its payload
	// is checked).
	onDeliver func(e *envelope, now time.Time)
	onAck     func(e *envelope, payload json.RawMessage)
}

func newSocket(h *hub, onDeliver func(*envelope, time.Time), onAck func(*envelope, json.RawMessage)) *Socket {
	k := &Socket{hub: h, ping: time.Second, envs: map[string]*envelope{}, redeliverAfter: DefaultRedeliveryAfter, onDeliver: onDeliver, onAck: onAck}
	// Slack's client sends Origin: https://api.slack.com.
	k.upgrader.CheckOrigin = func(*http.Request) bool { return true }
	return k
}

// stop closes every socket and stops the re-delivery timers; call it with
// mu held.
func (k *Socket) stop() {
	for _, c := range k.socks {
		_ = c.ws.Close()
	}
	for _, e := range k.envs {
		if e.timer != nil {
			e.timer.Stop()
		}
	}
}

func (k *Socket) websocket(w http.ResponseWriter, r *http.Request) {
	ws, err := k.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := k.open(ws)
	if c == nil {
		return
	}
	done := make(chan struct{})
	go k.pinger(c, done)
	defer close(done)
	for {
		var msg struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := ws.ReadJSON(&msg); err != nil {
			break
		}
		k.recordAck(c.id, msg.EnvelopeID, msg.Payload)
	}
	k.mu.Lock()
	k.forget(c)
	k.mu.Unlock()
}

// open registers ws as an open connection and says hello on it; nil, the
// socket turned away and closed, when the server is closed or has
// MaxConnections already.
func (k *Socket) open(ws *websocket.Conn) *socket {
	k.mu.Lock()
	if k.closed || len(k.socks) >= MaxConnections {
		closed := k.closed
		k.mu.Unlock()
		if !closed {
			_ = ws.WriteJSON(map[string]any{"type": "disconnect", "reason": "too_many_websockets", "debug_info": map[string]any{"host": "fake"}})
		}
		_ = ws.Close()
		return nil
	}
	k.connects++
	c := &socket{id: k.connects, ws: ws}
	c.writeMu.Lock() // hello goes out before any envelope
	k.socks = append(k.socks, c)
	n := len(k.socks)
	k.changed()
	k.mu.Unlock()
	_ = ws.WriteJSON(map[string]any{"type": "hello", "num_connections": n, "connection_info": map[string]any{"app_id": AppID}, "debug_info": map[string]any{"host": "fake"}})
	c.writeMu.Unlock()
	return c
}

// forget removes c from the open connections; call it with mu held.
func (k *Socket) forget(c *socket) {
	c.leaving = true
	k.socks = slices.DeleteFunc(k.socks, func(o *socket) bool { return o == c })
	k.changed()
}

func (k *Socket) pinger(c *socket, done chan struct{}) {
	t := time.NewTicker(k.ping)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			k.mu.Lock()
			off := k.pingsOff
			k.mu.Unlock()
			if off {
				continue
			}
			if err := c.ws.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(time.Second)); err != nil {
				return
			}
		}
	}
}

// StopPings stops (true) or resumes (false) the WebSocket pings on every
// connection; slack-go drops a connection that gets none for 30 s.
func (k *Socket) StopPings(stop bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pingsOff = stop
}

// WaitConnected waits until the bot has connected n times in all and a
// connection is open.
func (k *Socket) WaitConnected(n int, timeout time.Duration) error {
	return k.waitFor(timeout, func() bool { return k.connects >= n && len(k.socks) > 0 }, fmt.Sprintf("%d connections", n))
}

// WaitConnections waits until n connections are open at once.
func (k *Socket) WaitConnections(n int, timeout time.Duration) error {
	return k.waitFor(timeout, func() bool { return len(k.live()) >= n }, fmt.Sprintf("%d open connections", n))
}

// Connects returns how many times the bot has connected.
func (k *Socket) Connects() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.connects
}

// Connections returns how many connections are open and not told to leave.
func (k *Socket) Connections() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.live())
}

// ConnIDs returns the ids of the open connections, oldest first. A
// connection's id is its number in the order of connecting: the first is 1.
func (k *Socket) ConnIDs() []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	var ids []int
	for _, c := range k.live() {
		ids = append(ids, c.id)
	}
	return ids
}

// live returns the connections that may get envelopes; call it with mu
// held.
func (k *Socket) live() []*socket {
	var out []*socket
	for _, c := range k.socks {
		if !c.leaving {
			out = append(out, c)
		}
	}
	return out
}

// pick chooses the connection for a delivery: conn when not 0, else the
// next in round-robin order, skipping those in avoid while another is
// open. Call it with mu held.
func (k *Socket) pick(conn int, avoid []int) (*socket, error) {
	open := k.live()
	if conn != 0 {
		for _, c := range open {
			if c.id == conn {
				return c, nil
			}
		}
		return nil, fmt.Errorf("slackfake: connection %d is not open", conn)
	}
	if len(open) == 0 {
		return nil, fmt.Errorf("slackfake: no connection")
	}
	for i := range open {
		c := open[(k.rr+i)%len(open)]
		if !slices.Contains(avoid, c.id) {
			k.rr += i + 1
			return c, nil
		}
	}
	c := open[k.rr%len(open)]
	k.rr++
	return c, nil
}

// target returns the open connections that conns names (all when empty).
func (k *Socket) target(conns []int) []*socket {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(conns) == 0 {
		return append([]*socket(nil), k.socks...)
	}
	var out []*socket
	for _, c := range k.socks {
		if slices.Contains(conns, c.id) {
			out = append(out, c)
		}
	}
	return out
}

// Disconnect sends Slack's disconnect message ("refresh_requested") on
// every open connection; they get no new envelopes.
func (k *Socket) Disconnect() error { return k.disconnect(nil) }

// DisconnectConn sends the disconnect message on the connection id alone.
func (k *Socket) DisconnectConn(id int) error { return k.disconnect([]int{id}) }

func (k *Socket) disconnect(conns []int) error {
	targets := k.target(conns)
	if len(targets) == 0 {
		return fmt.Errorf("slackfake: no connection")
	}
	for _, c := range targets {
		k.mu.Lock()
		c.leaving = true
		k.mu.Unlock()
		if err := c.write(map[string]any{"type": "disconnect", "reason": "refresh_requested", "debug_info": map[string]any{"host": "fake"}}); err != nil {
			return fmt.Errorf("slackfake: disconnect %d: %w", c.id, err)
		}
	}
	return nil
}

// Drop closes every socket abruptly, as a network failure would.
func (k *Socket) Drop() { k.drop(nil) }

// DropConn closes the connection id abruptly.
func (k *Socket) DropConn(id int) { k.drop([]int{id}) }

func (k *Socket) drop(conns []int) {
	for _, c := range k.target(conns) {
		k.mu.Lock()
		k.forget(c)
		k.mu.Unlock()
		_ = c.ws.UnderlyingConn().Close()
	}
}
