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
// answers needs; mu guards it.
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
func (k *Socket) newEnvelopeID() string { return fmt.Sprintf("env-%d", k.envelopes.Add(1)) }

// send delivers a new envelope with payload on conn (0: round-robin) and
// returns its id. A payload that is a json.RawMessage is sent as it is.
func (k *Socket) send(e *envelope, payload any, conn int) (string, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("slackfake: payload: %w", err)
	}
	e.payload = raw
	k.mu.Lock()
	k.envs[e.id] = e
	k.mu.Unlock()
	if err := k.deliver(e, conn, ""); err != nil {
		k.mu.Lock()
		delete(k.envs, e.id)
		k.mu.Unlock()
		return "", err
	}
	return e.id, nil
}

// deliver sends e on conn (0: round-robin, another connection than before
// when one is open); reason "" is the first delivery.
func (k *Socket) deliver(e *envelope, conn int, reason string) error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return fmt.Errorf("slackfake: closed")
	}
	c, err := k.pick(conn, e.tried())
	if err != nil {
		k.mu.Unlock()
		return err
	}
	attempt := len(e.deliveries)
	now := time.Now()
	e.deliveries = append(e.deliveries, Delivery{Conn: c.id, Attempt: attempt, Reason: reason, At: now})
	k.onDeliver(e, now)
	k.scheduleRedelivery(e, attempt)
	k.changed()
	k.mu.Unlock()
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
// mu held.
func (k *Socket) scheduleRedelivery(e *envelope, attempt int) {
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	d := k.redeliverAfter
	if d <= 0 || attempt >= MaxRetries {
		return
	}
	e.timer = time.AfterFunc(d, func() { k.timedOut(e, attempt) })
}

// timedOut re-sends e if delivery attempt is still its latest and unacked.
func (k *Socket) timedOut(e *envelope, attempt int) {
	k.mu.Lock()
	stale := k.closed || e.acks > 0 || len(e.deliveries)-1 != attempt
	k.mu.Unlock()
	if stale {
		return
	}
	if err := k.deliver(e, 0, "timeout"); err != nil {
		// No connection now: look again after another window, as Slack
		// keeps the envelope.
		k.mu.Lock()
		if !k.closed && k.redeliverAfter > 0 {
			e.timer = time.AfterFunc(k.redeliverAfter, func() { k.timedOut(e, attempt) })
		}
		k.mu.Unlock()
	}
}

// SetRedeliveryAfter sets how long an envelope may wait for its ack before
// the fake re-sends it (at most MaxRetries times, preferring another
// connection); 0 disables re-delivery. It applies to later deliveries.
func (k *Socket) SetRedeliveryAfter(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.redeliverAfter = d
}

// Redeliver re-sends the envelope id now, as Slack does after a timeout:
// same envelope_id and payload, retry_attempt one more, retry_reason
// "timeout", on another connection when one is open.
func (s *Server) Redeliver(id string) error { return s.Via(0).Redeliver(id) }

// recordAck stores an acknowledgement that came on connection conn.
func (k *Socket) recordAck(conn int, id string, payload json.RawMessage) {
	k.mu.Lock()
	defer k.mu.Unlock()
	a := Ack{EnvelopeID: id, Payload: payload, At: time.Now(), Conn: conn}
	if e := k.envs[id]; e != nil {
		a.Sent = e.deliveries[len(e.deliveries)-1].At
		e.acks++
		if e.timer != nil {
			e.timer.Stop()
			e.timer = nil
		}
		k.onAck(e, payload)
	}
	k.acks = append(k.acks, a)
	k.changed()
}

// WaitAck waits for the first acknowledgement of an envelope.
func (k *Socket) WaitAck(id string, timeout time.Duration) (Ack, error) {
	acks, err := k.WaitAcks(id, 1, timeout)
	if len(acks) == 0 {
		return Ack{}, err
	}
	return acks[0], err
}

// WaitAcks waits until an envelope has been acknowledged n times (once per
// delivery, if the bot acks each) and returns its acks.
func (k *Socket) WaitAcks(id string, n int, timeout time.Duration) ([]Ack, error) {
	err := k.waitFor(timeout, func() bool { return len(k.acksOf(id)) >= n }, fmt.Sprintf("%d acks of %s", n, id))
	return k.AcksOf(id), err
}

// AcksOf returns every acknowledgement of an envelope, in order.
func (k *Socket) AcksOf(id string) []Ack {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.acksOf(id)
}

func (k *Socket) acksOf(id string) []Ack {
	var out []Ack
	for _, a := range k.acks {
		if a.EnvelopeID == id {
			out = append(out, a)
		}
	}
	return out
}

// Acks returns every acknowledgement so far, in order.
func (k *Socket) Acks() []Ack {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.acks)
}

// Deliveries returns every sending of an envelope, in order.
func (k *Socket) Deliveries(id string) []Delivery {
	k.mu.Lock()
	defer k.mu.Unlock()
	if e := k.envs[id]; e != nil {
		return slices.Clone(e.deliveries)
	}
	return nil
}

// WaitDeliveries waits until an envelope has been sent n times in all.
func (k *Socket) WaitDeliveries(id string, n int, timeout time.Duration) ([]Delivery, error) {
	err := k.waitFor(timeout, func() bool { e := k.envs[id]; return e != nil && len(e.deliveries) >= n }, fmt.Sprintf("%d deliveries of %s", n, id))
	return k.Deliveries(id), err
}
