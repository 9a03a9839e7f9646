// Package storetest is the conformance suite of [commands.Store]: every
// implementation's tests call [Run] with a function that opens a fresh,
// empty store, and so every store is held to the same behaviour (the doc
// comments of commands.Store).
package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mailbot/mailbot/commands"
)

// Replicas is implemented by a store under test that can open a second
// store on the same data, standing for another replica of mailbot. The
// concurrency tests then spread their calls over both. A store that does
// not implement it is its own replica.
type Replicas interface {
	Replica(t *testing.T) commands.Store
}

// Run runs the suite. open returns a new, empty store for one test and
// arranges its closing with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) commands.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open func(t *testing.T) commands.Store)
	}{
		{"SubmitGet", testSubmitGet},
		{"SubmitOnePendingPerTarget", testSubmitOnePending},
		{"SubmitOnePendingConcurrent", testSubmitOnePendingConcurrent},
		{"Attach", testAttach},
		{"ApproveNofM", testApproveNofM},
		{"ApproveDuplicates", testApproveDuplicates},
		{"ApproveUnknown", testApproveUnknown},
		{"ApproveExpiryBoundary", testApproveExpiry},
		{"End", testEnd},
		{"EndUnknown", testEndUnknown},
		{"Finish", testFinish},
		{"FinishBackToPending", testFinishBackToPending},
		{"ConcurrentApprove", testConcurrentApprove},
		{"ConcurrentApproveNeedTwo", testConcurrentApproveNeedTwo},
		{"EndVersusApprove", testEndVersusApprove},
		{"Pending", testPending},
		{"ClaimExpired", testClaimExpired},
		{"ClaimExpiredConcurrent", testClaimExpiredConcurrent},
		{"ClaimReminders", testClaimReminders},
		{"ClaimRemindersConcurrent", testClaimRemindersConcurrent},
		{"ClaimStale", testClaimStale},
		{"AuditRecord", testAuditRecord},
		{"AuditBeginComplete", testAuditBeginComplete},
		{"AuditSinceOrderLimit", testAuditSinceOrderLimit},
	}
	tests = append(tests, handoverTests...)
	tests = append(tests, voidTests...)
	tests = append(tests, importTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

// opts compares records and entries: times by instant, nil and empty
// slices alike.
var opts = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmpopts.EquateEmpty(),
}

// clock returns a time to build a test's times on: the wall clock, to the
// millisecond (every store keeps at least microseconds), in UTC.
func clock() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// request returns a realistic pending request with the ID, created at
// created and expiring a day later. Each ID has its own mailbox, since
// one target has at most one pending request of an action.
func request(id string, created time.Time) commands.Pending {
	return commands.Pending{
		ID:        id,
		Requester: "U0REQUESTER",
		Channel:   "C0HELPDESK",
		Op: commands.Operation{Action: commands.ActionAddMailbox, Domain: "example.com",
			Login: "ada.lovelace." + id, Reason: "new hire, starts on Monday", To: "grace.hopper@example.com"},
		Created: created,
		Expires: created.Add(24 * time.Hour),
	}
}

// submit records p in s or fails the test.
func submit(t *testing.T, s commands.Store, p commands.Pending) {
	t.Helper()
	if err := s.Submit(t.Context(), p); err != nil {
		t.Fatalf("Submit(%s): %v", p.ID, err)
	}
}

// get returns the record with the ID or fails the test.
func get(t *testing.T, s commands.Store, id string) commands.Record {
	t.Helper()
	rec, ok, err := s.Get(t.Context(), id)
	if err != nil || !ok {
		t.Fatalf("Get(%s) = ok %v, %v; want the record", id, ok, err)
	}
	return rec
}

// approve calls Approve and fails the test on an error or a result other
// than want.
func approve(t *testing.T, s commands.Store, p commands.Pending, who string, need int, now time.Time, want commands.ApproveResult) commands.Record {
	t.Helper()
	rec, res, err := s.Approve(t.Context(), p, who, need, now)
	if err != nil {
		t.Fatalf("Approve(%s by %s): %v", p.ID, who, err)
	}
	if res != want {
		t.Fatalf("Approve(%s by %s, need %d) = %s, want %s", p.ID, who, need, resultName(res), resultName(want))
	}
	return rec
}

// replicas returns n stores on the data of s: s itself and, when the
// store under test can open replicas, n-1 others.
func replicas(t *testing.T, s commands.Store, n int) []commands.Store {
	out := []commands.Store{s}
	r, ok := s.(Replicas)
	for len(out) < n {
		if ok {
			out = append(out, r.Replica(t))
		} else {
			out = append(out, s)
		}
	}
	return out
}

// together runs fn(i) for i in [0, n) in n goroutines released at once,
// and waits for all.
func together(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// resultName names an ApproveResult in failure messages.
func resultName(r commands.ApproveResult) string {
	names := map[commands.ApproveResult]string{
		commands.ApproveCounted: "Counted", commands.ApproveRun: "Run", commands.ApproveDuplicate: "Duplicate",
		commands.ApproveClosed: "Closed", commands.ApproveExpired: "Expired",
	}
	if n, ok := names[r]; ok {
		return n
	}
	return "ApproveResult(?)"
}
