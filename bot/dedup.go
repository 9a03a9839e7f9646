package bot

import (
	"encoding/json"
	"sync"
)

// envelopes remembers the IDs of the latest envelopes and the payload of
// each one's acknowledgement, so that an envelope Slack re-sends (it did
// not see the ack in time) is acknowledged again with the same answer and
// not run again. The memory is bounded: the oldest ID is forgotten first.
type envelopes struct {
	mu       sync.Mutex
	payloads map[string]json.RawMessage
	ring     []string
	next     int
}

func newEnvelopes(n int) *envelopes {
	return &envelopes{payloads: make(map[string]json.RawMessage), ring: make([]string, n)} // the map grows with use: nothing at idle
}

// first records id and reports whether it was not seen before; for one
// seen before it returns the payload its first ack carried.
func (e *envelopes) first(id string) (json.RawMessage, bool) {
	if id == "" {
		return nil, true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.payloads[id]; ok {
		return p, false
	}
	if old := e.ring[e.next]; old != "" {
		delete(e.payloads, old)
	}
	e.ring[e.next] = id
	e.payloads[id] = nil
	e.next = (e.next + 1) % len(e.ring)
	return nil, true
}

// acked records the payload of id's ack, for a re-sent envelope.
func (e *envelopes) acked(id string, payload json.RawMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.payloads[id]; ok {
		e.payloads[id] = payload
	}
}
