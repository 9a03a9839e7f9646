package commands

import (
	"context"
	"time"
)

// HandoverStore keeps the hand-overs and the self-service rate limit
// (part of [Store]). It holds no password: a hand-over is which mailbox,
// whose, until when, and whether it was shown. Every change is a
// compare-and-set: of several concurrent calls on one hand-over, on one
// replica or many, exactly one wins.
type HandoverStore interface {
	// OfferHandover records h as offered. A hand-over with the same ID
	// is an error.
	OfferHandover(ctx context.Context, h Handover) error
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
