package commands

import (
	"context"
	"errors"
	"time"
)

// Store keeps what must outlive one click and, with a database, one
// process: the requests waiting for approval with their decisions, and the
// audit trail (docs/state.md). Package memstore keeps it in the process;
// package pgstore in PostgreSQL, shared by any number of replicas.
//
// Every method that changes a request is a compare-and-set: of several
// concurrent calls on one request, on one replica or many, exactly one
// wins. Nothing a Store keeps is secret: no password, no verification
// secret, no token is ever given to it.
type Store interface {
	// Durable reports whether the store outlives the process (a database).
	// Without one, the flow reads the request message back from the
	// transport before it runs a request the store does not know.
	Durable() bool

	// Submit records p as a new pending request. While another request
	// of the same action on the same domain and mailbox is pending and
	// not past its expiry (at p.Created), it records nothing and returns
	// a *PendingExistsError naming that request: of concurrent submits
	// of one target, on one replica or many, exactly one is recorded.
	Submit(ctx context.Context, p Pending) error
	// Attach records where the request's message is, so that expiry and
	// reminders can update it without a click.
	Attach(ctx context.Context, id string, ref MessageRef) error
	// Get returns the request with the ID; ok is false when the store
	// does not know it.
	Get(ctx context.Context, id string) (rec Record, ok bool, err error)

	// Approve counts approver's approval of p, atomically. When the store
	// does not know p (it was made before a restart without a database),
	// it first records p as pending. Then, by the request's state:
	//   - not pending: ApproveClosed, nothing changes;
	//   - pending but at or past p.Expires (at now): it becomes expired,
	//     ApproveExpired (the caller tells everyone, once);
	//   - approver has approved already: ApproveDuplicate;
	//   - otherwise the approver is added; with need distinct approvers
	//     it becomes running and the answer is ApproveRun (exactly one
	//     call ever gets it per run), else ApproveCounted.
	// The returned record is the state after the call.
	Approve(ctx context.Context, p Pending, approver string, need int, now time.Time) (Record, ApproveResult, error)
	// End moves the pending request p to a final state (StateDenied,
	// StateCancelled or StateExpired) by who at now. It records p first
	// when the store does not know it. ended is false, and rec the
	// current state, when the request was not pending.
	End(ctx context.Context, p Pending, to State, by string, now time.Time) (rec Record, ended bool, err error)
	// Finish records the end of a run that Approve started: to StateDone,
	// StateFailed or StateUncertain, with runText, what it did in words (no secret, the
	// request's RunText);
	// or back to StatePending, with the approvals cleared, when the API
	// certainly did nothing (runText says what failed). It changes only
	// a running request.
	Finish(ctx context.Context, id string, to State, runText string, now time.Time) error

	// Pending lists pending requests, oldest first, at most limit; those
	// of requester only when requester is not empty.
	Pending(ctx context.Context, requester string, limit int) ([]Record, error)
	// ClaimExpired moves pending requests whose expiry is at or before now
	// to StateExpired and returns them, at most limit. A request is
	// returned by one call only, whatever the number of replicas.
	ClaimExpired(ctx context.Context, now time.Time, limit int) ([]Record, error)
	// ClaimReminders marks pending requests created at or before cutoff
	// (and not expired at now) as reminded and returns them, at most
	// limit. A request is returned by one call only, ever.
	ClaimReminders(ctx context.Context, cutoff, now time.Time, limit int) ([]Record, error)
	// ClaimStale moves running requests whose run started (DecidedAt) at
	// or before cutoff to StateUncertain with runText, and returns them,
	// at most limit: runs that never reported back (the process ended
	// mid-run, or lost its database as it finished). A request is
	// returned by one call only, whatever the number of replicas.
	ClaimStale(ctx context.Context, cutoff time.Time, runText string, limit int) ([]Record, error)

	// Begin records an operation about to be sent to the PDD API and
	// returns the entry's ID, for Complete. With a database, an error
	// means the operation must not run.
	Begin(ctx context.Context, e AuditEntry) (int64, error)
	// Complete records the outcome of the operation Begin recorded: it
	// sets Result, Status, Stage, UID and Code of entry id.
	Complete(ctx context.Context, id int64, e AuditEntry) error
	// AppendAudit adds a finished entry to the audit trail: a decision
	// (approval, denial, cancellation, expiry), a hand-over expired,
	// an import done, a domain verified.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// Audit lists entries at or after since: oldest first, or newest
	// first when newestFirst; at most limit (0: no limit).
	Audit(ctx context.Context, since time.Time, limit int, newestFirst bool) ([]AuditEntry, error)

	HandoverStore
}

// Pruner is a Store that deletes its old history when asked (a database:
// the in-memory store forgets by itself). The sweep calls Prune at every
// pass; the store decides how often it does the work.
type Pruner interface {
	// Prune deletes the decided requests and the audit entries past their
	// retention at now, and says how many of each.
	Prune(ctx context.Context, now time.Time) (requests, entries int64, err error)
}

// PendingExistsError is Submit's refusal of a second request of an
// action on a target while one is pending.
type PendingExistsError struct {
	ID string // the pending request
}

func (e *PendingExistsError) Error() string {
	return "request " + e.ID + " is pending for the same operation"
}

// ErrStoreUnavailable wraps a store's failure to reach its database, so
// that the flow can say "mailbot cannot reach its database".
var ErrStoreUnavailable = errors.New("store unavailable")

// State is where a request is in its life (docs/state.md):
// pending → running → done / failed / uncertain, or pending → denied,
// cancelled or expired. A failed run that certainly did nothing goes
// back to pending.
type State string

// The states of a request.
const (
	StatePending   State = "pending"
	StateRunning   State = "running"   // approved; the operation is running
	StateDone      State = "done"      // ran and succeeded
	StateFailed    State = "failed"    // ran and failed for good
	StateUncertain State = "uncertain" // ran, and whether it happened is unknown
	StateDenied    State = "denied"
	StateCancelled State = "cancelled"
	StateExpired   State = "expired"
)

// Final reports whether no decision can change s any more.
func (s State) Final() bool { return s != StatePending && s != StateRunning }

// ApproveResult is what [Store.Approve] did.
type ApproveResult int

// The results of [Store.Approve].
const (
	ApproveCounted   ApproveResult = iota // counted; more approvals are needed
	ApproveRun                            // the last approval: run the operation now, once
	ApproveDuplicate                      // this approver had approved already; nothing changed
	ApproveClosed                         // not pending (decided, running, cancelled, expired)
	ApproveExpired                        // was pending and expired now; tell everyone
)

// MessageRef says where a request's message is in the transport: for
// Slack a channel and a message ts.
type MessageRef struct {
	Channel string
	TS      string
}

// IsZero reports whether the reference is empty.
func (r MessageRef) IsZero() bool { return r.Channel == "" || r.TS == "" }

// Record is a request as a [Store] keeps it.
type Record struct {
	Pending
	State     State
	Approvers []string   // distinct admins who approved, in order
	DecidedBy string     // who denied, cancelled, or gave the last approval
	DecidedAt time.Time  // when the request left pending (zero while pending)
	RunText   string     // what the last run of the request did, in words; no secret
	Message   MessageRef // where the request message is; may be zero
	Reminded  bool
}

// AuditEntry is one line of the audit trail. It never holds
// a password, a verification secret or a token.
type AuditEntry struct {
	ID        int64
	Time      time.Time
	RequestID string   // empty for a direct operation
	Event     Event    // what happened
	Actor     string   // who typed the command
	Deciders  []string // who approved, denied, cancelled
	Action    Action
	Provider  string // the provider of the entry's domain, that a run went to (apiclient.ProviderPDD, …)
	Domain    string
	Login     string
	Reason    string
	HandedTo  string // the user ID the credentials went to, in a hand-over
	Outcome   string // OutcomeOK, OutcomeError, OutcomeUnknown; empty while running and for decisions
	Status    string // register: the domain's status
	Stage     string // register: the domain's stage
	UID       string // add: the new mailbox's ID at the provider, whole (text: Google's have 21 digits)
	Source    string // where the entry came from: SourceSlack, SourceShell; "" before sources were recorded
	Code      string // on failure: the provider's error code or a notice code; CodeUnchanged on a success that changed nothing
	To        string // the operation's second address (Operation.To), or an offboarding step's
}

// Event is the kind of an [AuditEntry].
type Event string

// The events of the audit trail.
const (
	EventRun       Event = "run"       // an operation sent to the provider
	EventApproval  Event = "approval"  // one approval, more needed
	EventApproved  Event = "approved"  // the last approval: the operation runs
	EventDenied    Event = "denied"    // denied by an admin
	EventCancelled Event = "cancelled" // withdrawn by the requester
	EventExpired   Event = "expired"   // expired without a decision
	// A reset that a person ran on their own mailbox, without an admin.
	EventSelfService Event = "self_service"
	// A hand-over's password set and shown to its owner.
	EventHandoverShown Event = "handover_shown"
	// A hand-over whose deadline passed before its owner saw it.
	EventHandoverExpired Event = "handover_expired"
)

// Where an audit entry came from ([Config.Source]).
const (
	SourceSlack = "slack" // mailbot serve: a slash command, click or form in Slack
	SourceShell = "shell" // mailbot shell
)

// The outcomes of a run in the audit trail.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"
	OutcomeUnknown = "unknown"
)
