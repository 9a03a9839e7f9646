//go:build !race

// The race detector's sync.Pool drops pooled values at random, so that
// allocation counts under it are not the service's: these tests are
// built without it.

package commands

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestSealAllocations bounds what sealing allocates: a "Check DNS"
// button (on every register reply) the returned string alone, another
// value that and the payload passed as an interface; not an encoder, a
// buffer, a keyed hash and the strings in between.
func TestSealAllocations(t *testing.T) {
	c := newCore(t, &fakeAPI{}, Config{})
	rec := &apiclient.Record{Type: "TXT", Value: "v=1"}
	c.reads.checkButton("example.com", rec)
	if n := testing.AllocsPerRun(200, func() { c.reads.checkButton("example.com", rec) }); n > 1 {
		t.Errorf("checkButton allocates %.1f times; want at most 1", n)
	}
	w := wireForm{Channel: "C1", Action: ActionAddMailbox}
	if n := testing.AllocsPerRun(200, func() { c.seal(formKind, w) }); n > 3 {
		t.Errorf("seal allocates %.1f times; want at most 3", n)
	}
}
