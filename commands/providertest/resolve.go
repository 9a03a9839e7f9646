package providertest

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
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

// AdminSandbox is a [Sandbox] of a provider that reports administrators:
// MakeAdmin makes the mailbox at address one.
type AdminSandbox interface {
	Sandbox
	MakeAdmin(address string) error
}

// AliasMaker is a [Sandbox] that makes an alias itself, for a provider
// whose adapter cannot (Microsoft 365's proxy addresses).
type AliasMaker interface {
	Sandbox
	MakeAlias(alias, mailbox string) error
}

// RunResolve runs the resolve part of the conformance suite against an
// adapter of a provider with aliases (made by the adapter, as
// [RunAliases] requires, or by an [AliasMaker] sandbox; a provider without
// them passes [Run]'s plain case alone), each test on a fresh sandbox, in
// parallel:
//
//   - an alias resolves to the mailbox it delivers to, Alias set, and
//     that mailbox to itself, with no write;
//   - where the sandbox is an [AdminSandbox]: an administrator resolves
//     to itself with Admin set, and a plain mailbox beside it without;
//   - where the adapter acts as an account (Env.ActsAs): that account
//     resolves with ActsAs set.
func RunResolve(t *testing.T, h Harness) {
	type test struct {
		name string
		fn   func(t *testing.T, s *suite)
	}
	tests := []test{{"Alias", testResolveAlias}}
	probe := h.New(t)
	if _, ok := probe.Sandbox.(AdminSandbox); ok {
		tests = append(tests, test{"Admin", testResolveAdmin})
	}
	if probe.ActsAs != "" {
		tests = append(tests, test{"ActsAs", testResolveActsAs})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, start(t, h))
		})
	}
}

// resolve resolves login@Domain, checking that it only read.
func (s *suite) resolve(t *testing.T, domain, login string) *apiclient.Resolved {
	t.Helper()
	var r *apiclient.Resolved
	if n := writes(s, func() {
		var err error
		r, err = s.p.ResolveMailbox(t.Context(), domain, login)
		s.ok(t, "ResolveMailbox("+login+"@"+domain+")", err)
	}); n != 0 {
		t.Errorf("ResolveMailbox(%s@%s) sent %d writes, want none", login, domain, n)
	}
	return r
}

func testResolveAlias(t *testing.T, s *suite) {
	s.add(t, "bob")
	s.makeAlias(t, address("sales"), address("bob"))
	r := s.resolve(t, Domain, "sales")
	if !r.Alias || !strings.EqualFold(r.Address, address("bob")) || r.Admin || r.ActsAs {
		t.Errorf("ResolveMailbox(%s) = %+v; want an alias of %s", address("sales"), r, address("bob"))
	}
	if r := s.resolve(t, Domain, "bob"); r.Alias || !strings.EqualFold(r.Address, address("bob")) {
		t.Errorf("ResolveMailbox(%s), which has an alias = %+v; want itself, no alias", address("bob"), r)
	}
}

func testResolveAdmin(t *testing.T, s *suite) {
	sb := s.sb.(AdminSandbox) // RunResolve runs this test only then
	s.add(t, "ada")
	s.add(t, "bob")
	if err := sb.MakeAdmin(address("ada")); err != nil {
		t.Fatalf("MakeAdmin: %v", err)
	}
	if r := s.resolve(t, Domain, "ada"); !r.Admin || r.Alias || !strings.EqualFold(r.Address, address("ada")) {
		t.Errorf("ResolveMailbox of an administrator = %+v; want itself, Admin", r)
	}
	if r := s.resolve(t, Domain, "bob"); r.Admin || r.ActsAs {
		t.Errorf("ResolveMailbox of a plain mailbox beside an administrator = %+v; want no Admin", r)
	}
}

func testResolveActsAs(t *testing.T, s *suite) {
	login, domain, _ := strings.Cut(s.env.ActsAs, "@")
	if r := s.resolve(t, domain, login); !r.ActsAs || !strings.EqualFold(r.Address, s.env.ActsAs) {
		t.Errorf("ResolveMailbox(%s), the account the adapter acts as = %+v; want ActsAs", s.env.ActsAs, r)
	}
}

// makeAlias makes alias deliver to mailbox: by the sandbox where it is an
// [AliasMaker], else by the adapter.
func (s *suite) makeAlias(t *testing.T, alias, mailbox string) {
	t.Helper()
	if m, ok := s.sb.(AliasMaker); ok {
		if err := m.MakeAlias(alias, mailbox); err != nil {
			t.Fatalf("MakeAlias: %v", err)
		}
		return
	}
	a, ok := s.p.(commands.Aliaser)
	if !ok || !s.caps.Aliases {
		t.Fatalf("the adapter (Aliaser %v, Capabilities.Aliases %v) has no aliases, and the sandbox makes none", ok, s.caps.Aliases)
	}
	if _, err := a.AddAlias(t.Context(), alias, mailbox); err != nil {
		t.Fatalf("AddAlias: %v", err)
	}
}
