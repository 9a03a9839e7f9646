// Package memstore keeps mailbot's requests and audit trail in the process
// (docs/state.md): the default store, used by the shell and by serve without
// a database. It is a [commands.Store] behind one mutex.
//
// Memory is bounded. A request in a final state is forgotten once its
// expiry has passed and it has been final for the retention (7 days by
// default); an audit entry is forgotten once it is older than the
// retention, and the oldest entries go first when there are more than
// MaxAudit (10 000 by default). When there are more than MaxRequests
// requests (10 000 by default; checked every 16 new requests), final
// requests whose expiry has passed go, oldest decision first, even within
// the retention, down to seven eighths of MaxRequests. A final request is
// never forgotten before its expiry, so a stale click on it cannot bring
// it back as a new pending request; pending and running requests are
// never forgotten (expiry moves pending ones to a final state).
package memstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// Defaults of [Options].
const (
	DefaultRetention   = 7 * 24 * time.Hour
	DefaultMaxRequests = 10000
	DefaultMaxAudit    = 10000
)

// The requests are pruned every pruneEvery new requests, and every
// pruneGap while there are MaxRequests or more, so that a pruning (a scan
// of every request) costs little per write. The audit trail is trimmed
// on every write.
const (
	pruneEvery = 256
	pruneGap   = 16
)

// Options bound the memory of a [Store]. Zero values take the defaults.
type Options struct {
	Retention   time.Duration    // how long final requests and audit entries are kept
	MaxRequests int              // requests kept beyond which final ones are forgotten early
	MaxAudit    int              // audit entries kept at most
	Now         func() time.Time // the clock for forgetting; time.Now by default
}

// Store is an in-memory [commands.Store]. It is safe for concurrent use.
// The zero value is not usable; call [New].
type Store struct {
	opts Options

	mu    sync.Mutex
	reqs  map[string]*commands.Record
	audit []commands.AuditEntry // in ID order: a window of auditBuf
	// auditBuf is the array the audit window moves along (room)
	auditBuf []commands.AuditEntry
	nextID   int64
	writes   int // since the last pruning of the requests
	ho       handovers
	im       map[string]*commands.ImportRecord
}

var _ commands.Store = (*Store)(nil)

// New returns an empty store bounded by opts.
func New(opts Options) *Store {
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultMaxRequests
	}
	if opts.MaxAudit <= 0 {
		opts.MaxAudit = DefaultMaxAudit
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{opts: opts, reqs: make(map[string]*commands.Record)}
}

// Durable reports false: the store ends with the process.
func (s *Store) Durable() bool { return false }

// Submit records p as a new pending request. A request with the same ID
// is an error.
func (s *Store) Submit(ctx context.Context, p commands.Pending) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.reqs[p.ID]; ok {
		return fmt.Errorf("memstore: request %s exists", p.ID)
	}
	for id, r := range s.reqs {
		if r.State == commands.StatePending && r.Expires.After(p.Created) && r.Op.Action == p.Op.Action &&
			r.Op.Domain == p.Op.Domain && r.Op.Login == p.Op.Login {
			return &commands.PendingExistsError{ID: id}
		}
	}
	s.add(p)
	return nil
}

// Attach records where the request's message is.
func (s *Store) Attach(ctx context.Context, id string, ref commands.MessageRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reqs[id]
	if !ok {
		return fmt.Errorf("memstore: no request %s", id)
	}
	r.Message = ref
	return nil
}

// Get returns a copy of the request with the ID.
func (s *Store) Get(ctx context.Context, id string) (commands.Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reqs[id]
	if !ok {
		return commands.Record{}, false, nil
	}
	return clone(r), true, nil
}

// Approve counts approver's approval of p as [commands.Store] says.
func (s *Store) Approve(ctx context.Context, p commands.Pending, approver string, need int, now time.Time) (commands.Record, commands.ApproveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.known(p)
	res := decide(r, approver, need, now)
	return clone(r), res, nil
}

// decide applies one approval to r, which the caller holds locked.
func decide(r *commands.Record, approver string, need int, now time.Time) commands.ApproveResult {
	switch {
	case r.State != commands.StatePending:
		return commands.ApproveClosed
	case !now.Before(r.Expires):
		r.State, r.DecidedAt, r.DecidedBy = commands.StateExpired, now, ""
		return commands.ApproveExpired
	case slices.Contains(r.Approvers, approver):
		return commands.ApproveDuplicate
	}
	r.Approvers = append(r.Approvers, approver)
	if len(r.Approvers) < max(need, 1) {
		return commands.ApproveCounted
	}
	r.State, r.DecidedBy, r.DecidedAt = commands.StateRunning, approver, now
	return commands.ApproveRun
}

// End moves the pending request p to the final state to.
func (s *Store) End(ctx context.Context, p commands.Pending, to commands.State, by string, now time.Time) (commands.Record, bool, error) {
	if to != commands.StateDenied && to != commands.StateCancelled && to != commands.StateExpired {
		return commands.Record{}, false, fmt.Errorf("memstore: End to %q", to)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.known(p)
	if r.State != commands.StatePending {
		return clone(r), false, nil
	}
	r.State, r.DecidedBy, r.DecidedAt = to, by, now
	return clone(r), true, nil
}

// Finish records the end of a run; it changes only a running request.
func (s *Store) Finish(ctx context.Context, id string, to commands.State, runText string, now time.Time) error {
	switch to {
	case commands.StateDone, commands.StateFailed, commands.StateUncertain, commands.StatePending:
	default:
		return fmt.Errorf("memstore: Finish to %q", to)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reqs[id]
	if !ok || r.State != commands.StateRunning {
		return nil
	}
	r.State, r.RunText = to, runText
	if to == commands.StatePending {
		r.Approvers, r.DecidedBy, r.DecidedAt = nil, "", time.Time{}
	}
	return nil
}

// known returns the record of p, recording p as pending first when the
// store does not know it. The caller holds s.mu.
func (s *Store) known(p commands.Pending) *commands.Record {
	if r, ok := s.reqs[p.ID]; ok {
		return r
	}
	return s.add(p)
}

// add records p as pending and prunes now and then. The caller holds s.mu.
func (s *Store) add(p commands.Pending) *commands.Record {
	s.writes++
	if s.writes >= pruneEvery || (s.writes >= pruneGap && len(s.reqs) >= s.opts.MaxRequests) {
		s.pruneRequests()
	}
	r := &commands.Record{Pending: p, State: commands.StatePending}
	s.reqs[p.ID] = r
	return r
}

// Pending lists pending requests, oldest first; limit <= 0 lists all.
func (s *Store) Pending(ctx context.Context, requester string, limit int) ([]commands.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.collect(limit, func(r *commands.Record) bool {
		return r.State == commands.StatePending && (requester == "" || r.Requester == requester)
	}, byCreated, nil), nil
}

// ClaimExpired moves pending requests due at now to expired.
func (s *Store) ClaimExpired(ctx context.Context, now time.Time, limit int) ([]commands.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.collect(limit, func(r *commands.Record) bool {
		return r.State == commands.StatePending && !now.Before(r.Expires)
	}, byExpires, func(r *commands.Record) {
		r.State, r.DecidedAt, r.DecidedBy = commands.StateExpired, now, ""
	}), nil
}

// ClaimReminders marks pending requests created at or before cutoff as
// reminded.
func (s *Store) ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]commands.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.collect(limit, func(r *commands.Record) bool {
		return r.State == commands.StatePending && !r.Reminded &&
			!r.Created.After(cutoff) && now.Before(r.Expires)
	}, byCreated, func(r *commands.Record) { r.Reminded = true }), nil
}

// ClaimStale moves running requests started at or before cutoff to
// uncertain.
func (s *Store) ClaimStale(ctx context.Context, cutoff time.Time, runText string, limit int) ([]commands.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.collect(limit, func(r *commands.Record) bool {
		return r.State == commands.StateRunning && !r.DecidedAt.After(cutoff)
	}, byCreated, func(r *commands.Record) { r.State, r.RunText = commands.StateUncertain, runText }), nil
}

// collect returns copies of the records that match, sorted by order, at
// most limit (all when limit <= 0), after applying change (if any) to
// each. The caller holds s.mu.
func (s *Store) collect(limit int, match func(*commands.Record) bool, order func(a, b *commands.Record) int, change func(*commands.Record)) []commands.Record {
	var hits []*commands.Record
	for _, r := range s.reqs {
		if match(r) {
			hits = append(hits, r)
		}
	}
	slices.SortFunc(hits, order)
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]commands.Record, 0, len(hits))
	for _, r := range hits {
		if change != nil {
			change(r)
		}
		out = append(out, clone(r))
	}
	return out
}

func byCreated(a, b *commands.Record) int {
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func byExpires(a, b *commands.Record) int {
	if c := a.Expires.Compare(b.Expires); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// clone returns a copy of r that shares no slice with it.
func clone(r *commands.Record) commands.Record {
	c := *r
	c.Approvers = slices.Clone(r.Approvers)
	return c
}

// errNoEntry is Complete's answer for an entry the store does not hold.
var errNoEntry = errors.New("memstore: no such audit entry")
