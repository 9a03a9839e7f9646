package slackfake

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Delivery is one sending of an envelope on a connection.
type Delivery struct {
	Conn    int       // the connection it went to
	Attempt int       // retry_attempt: 0 the first time
	Reason  string    // retry_reason: "" the first time, then "timeout"
	At      time.Time // when the fake sent it
}

// envelope is one envelope the fake sent, with what the audience of its
// answers needs; s.mu guards it.
type envelope struct {
	id, typ    string
	payload    json.RawMessage
	accepts    bool   // accepts_response_payload
	user       string // who acted: the only one who sees its ack and ephemeral replies
	channel    string // the channel of a command or a click on a message
	messageTS  string // the message clicked, for a click on a message
	viewID     string // the view submitted, for a view_submission
	submission bool   // a view_submission: its ack may carry a response_action
	trigger    string // the trigger_id it carries, issued at its first delivery
	deliveries []Delivery
	acks       int
	timer      *time.Timer
}

// tried returns the connections the envelope went to.
func (e *envelope) tried() []int {
	var out []int
	for _, d := range e.deliveries {
		out = append(out, d.Conn)
	}
	return out
}

// newEnvelopeID returns a fresh envelope id; a command's or a click's
// response_url is named after it.
func (s *Server) newEnvelopeID() string { return fmt.Sprintf("env-%d", s.envelopes.Add(1)) }

// send delivers a new envelope with payload on conn (0: round-robin) and
// returns its id. A payload that is a json.RawMessage is sent as it is.
func (s *Server) send(e *envelope, payload any, conn int) (string, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("slackfake: payload: %w", err)
	}
	e.payload = raw
	s.mu.Lock()
	s.envs[e.id] = e
	s.mu.Unlock()
	if err := s.deliver(e, conn, ""); err != nil {
		s.mu.Lock()
		delete(s.envs, e.id)
		s.mu.Unlock()
		return "", err
	}
	return e.id, nil
}

// deliver sends e on conn (0: round-robin, another connection than before
// when one is open); reason "" is the first delivery.
func (s *Server) deliver(e *envelope, conn int, reason string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("slackfake: closed")
	}
	c, err := s.pick(conn, e.tried())
	if err != nil {
		s.mu.Unlock()
		return err
	}
	attempt := len(e.deliveries)
	now := time.Now()
	e.deliveries = append(e.deliveries, Delivery{Conn: c.id, Attempt: attempt, Reason: reason, At: now})
	s.issueTrigger(e, now)
	s.scheduleRedelivery(e, attempt)
	s.changed()
	s.mu.Unlock()
	wire := map[string]any{
		"envelope_id": e.id, "type": e.typ, "payload": e.payload,
		"accepts_response_payload": e.accepts, "retry_attempt": attempt, "retry_reason": reason,
	}
	if err := c.write(wire); err != nil {
		return fmt.Errorf("slackfake: send on connection %d: %w", c.id, err)
	}
	return nil
}

// scheduleRedelivery arms the timeout of delivery attempt; call it with
// s.mu held.
func (s *Server) scheduleRedelivery(e *envelope, attempt int) {
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	d := s.redeliverAfter
	if d <= 0 || attempt >= MaxRetries {
		return
	}
	e.timer = time.AfterFunc(d, func() { s.timedOut(e, attempt) })
}

// timedOut re-sends e if delivery attempt is still its latest and unacked.
func (s *Server) timedOut(e *envelope, attempt int) {
	s.mu.Lock()
	stale := s.closed || e.acks > 0 || len(e.deliveries)-1 != attempt
	s.mu.Unlock()
	if stale {
		return
	}
	if err := s.deliver(e, 0, "timeout"); err != nil {
		// No connection now: look again after another window, as Slack
		// keeps the envelope.
		s.mu.Lock()
		if !s.closed && s.redeliverAfter > 0 {
			e.timer = time.AfterFunc(s.redeliverAfter, func() { s.timedOut(e, attempt) })
		}
		s.mu.Unlock()
	}
}

// SetRedeliveryAfter sets how long an envelope may wait for its ack before
// the fake re-sends it (at most MaxRetries times, preferring another
// connection); 0 disables re-delivery. It applies to later deliveries.
func (s *Server) SetRedeliveryAfter(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redeliverAfter = d
}

// Redeliver re-sends the envelope id now, as Slack does after a timeout:
// same envelope_id and payload, retry_attempt one more, retry_reason
// "timeout", on another connection when one is open.
func (s *Server) Redeliver(id string) error { return s.Via(0).Redeliver(id) }

// recordAck stores an acknowledgement that came on connection conn.
func (s *Server) recordAck(conn int, id string, payload json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := Ack{EnvelopeID: id, Payload: payload, At: time.Now(), Conn: conn}
	if e := s.envs[id]; e != nil {
		a.Sent = e.deliveries[len(e.deliveries)-1].At
		e.acks++
		if e.timer != nil {
			e.timer.Stop()
			e.timer = nil
		}
		s.checkAck(e, payload)
	}
	s.acks = append(s.acks, a)
	s.changed()
}

// WaitAck waits for the first acknowledgement of an envelope.
func (s *Server) WaitAck(id string, timeout time.Duration) (Ack, error) {
	acks, err := s.WaitAcks(id, 1, timeout)
	if len(acks) == 0 {
		return Ack{}, err
	}
	return acks[0], err
}

// WaitAcks waits until an envelope has been acknowledged n times (once per
// delivery, if the bot acks each) and returns its acks.
func (s *Server) WaitAcks(id string, n int, timeout time.Duration) ([]Ack, error) {
	err := s.waitFor(timeout, func() bool { return len(s.acksOf(id)) >= n }, fmt.Sprintf("%d acks of %s", n, id))
	return s.AcksOf(id), err
}

// AcksOf returns every acknowledgement of an envelope, in order.
func (s *Server) AcksOf(id string) []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acksOf(id)
}

func (s *Server) acksOf(id string) []Ack {
	var out []Ack
	for _, a := range s.acks {
		if a.EnvelopeID == id {
			out = append(out, a)
		}
	}
	return out
}

// Acks returns every acknowledgement so far, in order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acks)
}

// Deliveries returns every sending of an envelope, in order.
func (s *Server) Deliveries(id string) []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.envs[id]; e != nil {
		return slices.Clone(e.deliveries)
	}
	return nil
}

// WaitDeliveries waits until an envelope has been sent n times in all.
func (s *Server) WaitDeliveries(id string, n int, timeout time.Duration) ([]Delivery, error) {
	err := s.waitFor(timeout, func() bool { e := s.envs[id]; return e != nil && len(e.deliveries) >= n }, fmt.Sprintf("%d deliveries of %s", n, id))
	return s.Deliveries(id), err
}
