package slackfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
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

// sockets is the Socket Mode side of the fake; s.mu guards it.
type sockets struct {
	socks          []*socket // open connections, oldest first
	connects       int
	rr             int // round-robin position
	envs           map[string]*envelope
	acks           []Ack
	redeliverAfter time.Duration
	pingsOff       bool
}

func (k *sockets) setup() {
	k.envs = map[string]*envelope{}
	k.redeliverAfter = DefaultRedeliveryAfter
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := s.open(ws)
	if c == nil {
		return
	}
	done := make(chan struct{})
	go s.pinger(c, done)
	defer close(done)
	for {
		var msg struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := ws.ReadJSON(&msg); err != nil {
			break
		}
		s.recordAck(c.id, msg.EnvelopeID, msg.Payload)
	}
	s.mu.Lock()
	s.forget(c)
	s.mu.Unlock()
}

// open registers ws as an open connection and says hello on it; nil, the
// socket turned away and closed, when the server is closed or has
// MaxConnections already.
func (s *Server) open(ws *websocket.Conn) *socket {
	s.mu.Lock()
	if s.closed || len(s.socks) >= MaxConnections {
		closed := s.closed
		s.mu.Unlock()
		if !closed {
			_ = ws.WriteJSON(map[string]any{"type": "disconnect", "reason": "too_many_websockets", "debug_info": map[string]any{"host": "fake"}})
		}
		_ = ws.Close()
		return nil
	}
	s.connects++
	c := &socket{id: s.connects, ws: ws}
	c.writeMu.Lock() // hello goes out before any envelope
	s.socks = append(s.socks, c)
	n := len(s.socks)
	s.changed()
	s.mu.Unlock()
	_ = ws.WriteJSON(map[string]any{"type": "hello", "num_connections": n, "connection_info": map[string]any{"app_id": AppID}, "debug_info": map[string]any{"host": "fake"}})
	c.writeMu.Unlock()
	return c
}

// forget removes c from the open connections; call it with s.mu held.
func (s *Server) forget(c *socket) {
	c.leaving = true
	s.socks = slices.DeleteFunc(s.socks, func(o *socket) bool { return o == c })
	s.changed()
}

func (s *Server) pinger(c *socket, done chan struct{}) {
	t := time.NewTicker(s.ping)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			s.mu.Lock()
			off := s.pingsOff
			s.mu.Unlock()
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
func (s *Server) StopPings(stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pingsOff = stop
}

// WaitConnected waits until the bot has connected n times in all and a
// connection is open.
func (s *Server) WaitConnected(n int, timeout time.Duration) error {
	return s.waitFor(timeout, func() bool { return s.connects >= n && len(s.socks) > 0 }, fmt.Sprintf("%d connections", n))
}

// WaitConnections waits until n connections are open at once.
func (s *Server) WaitConnections(n int, timeout time.Duration) error {
	return s.waitFor(timeout, func() bool { return len(s.live()) >= n }, fmt.Sprintf("%d open connections", n))
}

// Connects returns how many times the bot has connected.
func (s *Server) Connects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// Connections returns how many connections are open and not told to leave.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live())
}

// ConnIDs returns the ids of the open connections, oldest first. A
// connection's id is its number in the order of connecting: the first is 1.
func (s *Server) ConnIDs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []int
	for _, c := range s.live() {
		ids = append(ids, c.id)
	}
	return ids
}

// live returns the connections that may get envelopes; call it with s.mu
// held.
func (s *Server) live() []*socket {
	var out []*socket
	for _, c := range s.socks {
		if !c.leaving {
			out = append(out, c)
		}
	}
	return out
}

// pick chooses the connection for a delivery: conn when not 0, else the
// next in round-robin order, skipping those in avoid while another is
// open. Call it with s.mu held.
func (s *Server) pick(conn int, avoid []int) (*socket, error) {
	open := s.live()
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
		c := open[(s.rr+i)%len(open)]
		if !slices.Contains(avoid, c.id) {
			s.rr += i + 1
			return c, nil
		}
	}
	c := open[s.rr%len(open)]
	s.rr++
	return c, nil
}

// target returns the open connections that conns names (all when empty).
func (s *Server) target(conns []int) []*socket {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(conns) == 0 {
		return append([]*socket(nil), s.socks...)
	}
	var out []*socket
	for _, c := range s.socks {
		if slices.Contains(conns, c.id) {
			out = append(out, c)
		}
	}
	return out
}

// Disconnect sends Slack's disconnect message ("refresh_requested") on
// every open connection; they get no new envelopes.
func (s *Server) Disconnect() error { return s.disconnect(nil) }

// DisconnectConn sends the disconnect message on the connection id alone.
func (s *Server) DisconnectConn(id int) error { return s.disconnect([]int{id}) }

func (s *Server) disconnect(conns []int) error {
	targets := s.target(conns)
	if len(targets) == 0 {
		return fmt.Errorf("slackfake: no connection")
	}
	for _, c := range targets {
		s.mu.Lock()
		c.leaving = true
		s.mu.Unlock()
		if err := c.write(map[string]any{"type": "disconnect", "reason": "refresh_requested", "debug_info": map[string]any{"host": "fake"}}); err != nil {
			return fmt.Errorf("slackfake: disconnect %d: %w", c.id, err)
		}
	}
	return nil
}

// Drop closes every socket abruptly, as a network failure would.
func (s *Server) Drop() { s.drop(nil) }

// DropConn closes the connection id abruptly.
func (s *Server) DropConn(id int) { s.drop([]int{id}) }

func (s *Server) drop(conns []int) {
	for _, c := range s.target(conns) {
		s.mu.Lock()
		s.forget(c)
		s.mu.Unlock()
		_ = c.ws.UnderlyingConn().Close()
	}
}
