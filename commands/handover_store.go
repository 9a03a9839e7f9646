package commands

import (
	"context"
	"errors"
	"time"
)

// ErrHandoverExists is OfferHandover's answer for a hand-over it recorded
// before.
var ErrHandoverExists = errors.New("hand-over exists")

// HandoverStore keeps the hand-overs and the self-service rate limit
// (part of [Store]). It holds no password: a hand-over is which mailbox,
// whose, until when, and whether it was shown. Every change is a
// compare-and-set: of several concurrent calls on one hand-over, on one
// replica or many, exactly one wins.
type HandoverStore interface {
	// OfferHandover records h as offered and, in the same step, voids
	// (by h.Action, DoneAt h.Created) every other open hand-over of its
	// mailbox that comes before h in the order of Created, then ID: a
	// mailbox's credentials follow its latest owner, and of concurrent
	// offers on any replicas the latest alone stays open. voided lists
	// the hand-overs it voided, h itself when a later one of the mailbox
	// is open already (h must then not be posted). An import's own
	// hand-over (ActionImport) voids none and is voided by none. A
	// hand-over with the same ID is ErrHandoverExists, and nothing
	// changes: it was offered before (a restart), so it is not posted again.
	OfferHandover(ctx context.Context, h Handover) (voided []HandoverRecord, err error)
	// VoidHandovers voids every open hand-over of the mailbox
	// login@domain created at or before now, by the action by (a reset,
	// block or offboarding that ran), and returns them.
	VoidHandovers(ctx context.Context, domain, login string, by Action, now time.Time) ([]HandoverRecord, error)
	// AttachHandover records where the hand-over's direct message is.
	AttachHandover(ctx context.Context, id string, ref MessageRef) error
	// GetHandover returns the hand-over with the ID; ok is false when the
	// store does not know it.
	GetHandover(ctx context.Context, id string) (rec HandoverRecord, ok bool, err error)
	// ClaimHandover claims h for its owner's click at now. When the store
	// does not know h (it was offered before a restart without a
	// database), it first records h as offered. Then, by its state:
	//   - offered, at or past h.Expires: it becomes expired (DoneAt now),
	//     ClaimExpired (the caller tells its owner, once);
	//   - offered, or showing since StaleClaim or longer before now, and
	//     before h.Expires: it becomes showing (ClaimedAt now),
	//     ClaimTaken;
	//   - otherwise ClaimClosed, nothing changes.
	// The returned record is the state after the call.
	ClaimHandover(ctx context.Context, h Handover, now time.Time) (HandoverRecord, ClaimResult, error)
	// ReleaseHandover returns a showing hand-over to offered: its click
	// failed, and nothing was shown.
	ReleaseHandover(ctx context.Context, id string) error
	// ShownHandover records that a showing hand-over was shown at now.
	ShownHandover(ctx context.Context, id string, now time.Time) error
	// ClaimExpiredHandovers moves offered hand-overs whose expiry is at or
	// before now to expired (DoneAt now) and returns them, at most limit.
	// A hand-over is returned by one call only, whatever the number of
	// replicas.
	ClaimExpiredHandovers(ctx context.Context, now time.Time, limit int) ([]HandoverRecord, error)
	// ClaimSelfService counts a self-service request of user at now: ok
	// when user had none in the window before now (and this one is then
	// counted), else false, nothing changes, and next says when the
	// next may run. Of concurrent calls for one user, at most one is ok.
	ClaimSelfService(ctx context.Context, user string, now time.Time, window time.Duration) (ok bool, next time.Time, err error)
}
