package providertest

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// testResolvePlain checks ResolveMailbox of a plain mailbox (itself: its
// own address, its UID and state, no alias, no administrator) and of an
// address that names nothing (ReasonNotFound), each with no write.
func testResolvePlain(t *testing.T, s *suite) {
	s.add(t, "alice")
	s.sb.AddMailboxes(Domain, 40) // alice is not on the first page
	var r *apiclient.Resolved
	if n := writes(s, func() {
		var err error
		r, err = s.p.ResolveMailbox(t.Context(), Domain, "alice")
		s.ok(t, "ResolveMailbox", err)
	}); n != 0 {
		t.Errorf("ResolveMailbox sent %d writes, want none", n)
	}
	if !strings.EqualFold(r.Address, address("alice")) || r.State != apiclient.StateActive || r.Alias || r.Admin || r.ActsAs {
		t.Errorf("ResolveMailbox(alice) = %+v; want %s itself, active, no alias, no administrator", r, address("alice"))
	}
	checkUID(t, s, &r.Mailbox, s.mailbox(t, "alice"))
	sent := s.requests(func() {
		_, err := s.p.ResolveMailbox(t.Context(), Domain, "nobody")
		s.fail(t, "ResolveMailbox of an unknown address", err, apiclient.OpResolve, apiclient.ClassRefused, apiclient.ReasonNotFound)
	})
	if n := len(sent.writes()); n != 0 || sent.repeated() {
		t.Errorf("ResolveMailbox of an unknown address: %d writes or a request sent twice; want a read, not retried", n)
	}
}
