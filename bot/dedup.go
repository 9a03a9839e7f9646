package bot

import "sync"

// envelopes remembers the IDs of the latest envelopes, so that one Slack
// re-sends (it did not see the ack in time) is acknowledged and not run
// again. The memory is bounded: the oldest ID is forgotten first.
type envelopes struct {
	mu   sync.Mutex
	ids  map[string]struct{}
	ring []string
	next int
}

func newEnvelopes(n int) *envelopes {
	return &envelopes{ids: make(map[string]struct{}, n), ring: make([]string, n)}
}

// first records id and reports whether it was not seen before.
func (e *envelopes) first(id string) bool {
	if id == "" {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.ids[id]; ok {
		return false
	}
	if old := e.ring[e.next]; old != "" {
		delete(e.ids, old)
	}
	e.ring[e.next] = id
	e.ids[id] = struct{}{}
	e.next = (e.next + 1) % len(e.ring)
	return true
}
