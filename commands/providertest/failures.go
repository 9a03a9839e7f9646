package providertest

// The cases of how an adapter meets a provider that fails: refused
// credentials, throttling, a bad gateway, a reset connection and a slow
// answer; and the count of requests a sandbox reports.

import (
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

func testCredentialsRefused(t *testing.T, s *suite) {
	s.add(t, "alice")
	bad := s.connect(t, false, callTimeout)
	calls := []struct {
		op apiclient.Op
		fn func() error
	}{
		{apiclient.OpAdd, func() error { _, err := bad.AddMailbox(t.Context(), Domain, "bob", s.password(), false); return err }},
		{apiclient.OpReset, func() error { _, err := bad.SetPassword(t.Context(), Domain, "alice", s.password(), false); return err }},
		{apiclient.OpBlock, func() error { _, err := bad.SetLoginEnabled(t.Context(), Domain, "alice", false); return err }},
		{apiclient.OpDomainStatus, func() error { _, err := bad.DomainStatus(t.Context(), Domain); return err }},
	}
	total := 0
	for _, c := range calls {
		sent := s.requests(func() {
			s.fail(t, string(c.op)+" with refused credentials", c.fn(), c.op, apiclient.ClassCredentials, "")
		})
		if len(sent) > 1 {
			t.Errorf("%s with refused credentials: %d requests, want at most 1 (never retried, nothing after the refusal)", c.op, len(sent))
		}
		total += len(sent)
	}
	if total == 0 { // mailcow sends nothing after a 401 (fail2ban), but the first call asks
		t.Error("refused credentials: no request reached the sandbox")
	}
	if _, ok := s.sb.Mailbox(address("bob")); ok || s.mailbox(t, "alice").State != string(apiclient.StateActive) {
		t.Error("refused credentials changed the sandbox")
	}
}

func testTooManyRequests(t *testing.T, s *suite) {
	s.add(t, "alice")
	pw := s.password()
	s.fault(t, "429", 1)
	writes := s.requests(func() {
		_, err := s.p.SetPassword(t.Context(), Domain, "alice", pw, false)
		s.ok(t, "SetPassword after a 429", err)
	}).writes()
	if len(writes) != 2 || !writes.repeated() {
		t.Fatalf("SetPassword after a 429: %d writes, want the same one twice", len(writes))
	}
	if gap := writes[1].at.Sub(writes[0].at); gap < time.Second {
		t.Errorf("the retry came %s after the 429, before its Retry-After of 1 s", gap)
	}
	if s.mailbox(t, "alice").Password != pw {
		t.Error("the password sent after a 429 is not set")
	}
	s.fault(t, "429", 3)
	_, err := s.p.AddMailbox(t.Context(), Domain, "bob", s.password(), false)
	if e := s.classed(t, "AddMailbox after three 429", err, apiclient.OpAdd, apiclient.ClassTemporary, ""); e.Attempts != 3 {
		t.Errorf("AddMailbox after three 429: %d attempts, want 3", e.Attempts)
	}
}

func testBadGateway(t *testing.T, s *suite) {
	pw := s.add(t, "alice")
	s.fault(t, "502", 1)
	next := s.password()
	if n := writes(s, func() {
		_, err := s.p.SetPassword(t.Context(), Domain, "alice", next, false)
		s.ok(t, "SetPassword after a 502", err)
	}); n != 2 || s.mailbox(t, "alice").Password != next {
		t.Errorf("SetPassword after a 502: %d writes (want 2), or the password is not set", n)
	}
	s.fault(t, "502", 3)
	n := writes(s, func() {
		_, err := s.p.SetPassword(t.Context(), Domain, "alice", pw, false)
		s.fail(t, "SetPassword after three 502", err, apiclient.OpReset, apiclient.ClassTemporary, "")
	})
	if n != 3 || s.mailbox(t, "alice").Password != next {
		t.Errorf("SetPassword after three 502: %d writes (want 3), or the password changed", n)
	}
	s.fault(t, "502", 1)
	n = writes(s, func() {
		_, err := s.p.AddMailbox(t.Context(), Domain, "bob", s.password(), false)
		s.fail(t, "AddMailbox answered 502", err, apiclient.OpAdd, apiclient.ClassUncertain, "")
	})
	if n != 1 {
		t.Errorf("AddMailbox answered 502: %d writes, want 1 (a create is not re-sent)", n)
	}
}

func testResetAfterProcessing(t *testing.T, s *suite) {
	pw := s.password()
	s.fault(t, "reset", 1)
	n := writes(s, func() {
		_, err := s.p.AddMailbox(t.Context(), Domain, "alice", pw, false)
		s.fail(t, "AddMailbox whose answer was lost", err, apiclient.OpAdd, apiclient.ClassUncertain, "")
	})
	if n != 1 || s.mailbox(t, "alice").Password != pw {
		t.Errorf("AddMailbox whose answer was lost: %d writes (want 1: not re-sent), or the password is not the one sent", n)
	}
	next := s.password()
	s.fault(t, "reset", 1)
	if n := writes(s, func() {
		_, err := s.p.SetPassword(t.Context(), Domain, "alice", next, false)
		s.ok(t, "SetPassword whose first answer was lost", err)
	}); n != 2 || s.mailbox(t, "alice").Password != next {
		t.Errorf("SetPassword whose first answer was lost: %d writes (want 2: retried as it is), or the password is not the one sent", n)
	}
	s.fault(t, "reset", 1)
	if n := writes(s, func() {
		_, err := s.p.SetLoginEnabled(t.Context(), Domain, "alice", false)
		s.ok(t, "SetLoginEnabled whose first answer was lost", err)
	}); n != s.env.Writes.block()+1 || s.mailbox(t, "alice").State == string(apiclient.StateActive) {
		t.Errorf("SetLoginEnabled whose first answer was lost: %d writes (want %d), or not blocked", n, s.env.Writes.block()+1)
	}
}

func testSlowAnswer(t *testing.T, s *suite) {
	slow := s.connect(t, true, slowTimeout)
	pw := s.password()
	s.fault(t, "slow", 1)
	n := writes(s, func() {
		_, err := slow.AddMailbox(t.Context(), Domain, "alice", pw, false)
		if e := s.classed(t, "AddMailbox answered late", err, apiclient.OpAdd, apiclient.ClassUncertain, ""); !e.Timeout {
			t.Errorf("AddMailbox answered late: %v is not a timeout", err)
		}
	})
	if n != 1 || s.mailbox(t, "alice").Password != pw {
		t.Errorf("AddMailbox answered late: %d writes (want 1), or the mailbox is not as sent", n)
	}
	next := s.password()
	s.fault(t, "slow", 1)
	if n := writes(s, func() {
		_, err := slow.SetPassword(t.Context(), Domain, "alice", next, false)
		s.ok(t, "SetPassword answered late once", err)
	}); n != 2 || s.mailbox(t, "alice").Password != next {
		t.Errorf("SetPassword answered late once: %d writes (want 2), or the password is not the one sent", n)
	}
}

// writes runs fn and returns how many requests that change something it
// sent.
func writes(s *suite, fn func()) int { return len(s.requests(fn).writes()) }

// notRetried checks that a refused operation sent at most one write and
// no request twice.
func notRetried(t *testing.T, what string, sent calls) {
	t.Helper()
	if n := len(sent.writes()); n > 1 || sent.repeated() {
		t.Errorf("%s: %d writes (want at most 1), or a request sent twice: a refusal is not retried", what, n)
	}
}

// testCounts checks the sandbox's own count of the requests (Requests,
// OnRequest), which end-to-end tests in another process rely on, against
// the requests the suite saw reach it.
func testCounts(t *testing.T, s *suite) {
	requests, arrivals := s.counted()
	sent := s.requests(func() { s.add(t, "alice") })
	nowRequests, nowArrivals := s.counted()
	if len(sent) == 0 || nowRequests-requests != len(sent) || nowArrivals-arrivals != len(sent) {
		t.Errorf("%d requests reached the sandbox; it counted %d and announced %d", len(sent), nowRequests-requests, nowArrivals-arrivals)
	}
}
