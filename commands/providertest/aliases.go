package providertest

import (
	"slices"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// AliasSandbox is a [Sandbox] of a provider with aliases: its own record
// of them is the oracle of [RunAliases].
type AliasSandbox interface {
	Sandbox
	// Aliases are the aliases that deliver to mailbox: addresses, or
	// local parts where an alias is a name at every domain of the
	// organisation.
	Aliases(mailbox string) []string
}

// RunAliases runs the alias part of the conformance suite against an
// adapter whose capabilities say it has aliases and which implements
// commands.Aliaser, each test on a fresh sandbox, in parallel:
//
//   - an alias added is in the sandbox's record and in ListAliases, and
//     gone from both once removed; each change is one write;
//   - a second add of the alias, or an alias that is a mailbox, is
//     ReasonExists; an add to a mailbox that does not exist is
//     ReasonNotFound with nothing written; removing or moving an alias that does not exist is
//     ReasonNotFound; none is retried;
//   - MoveAlias gives the alias to the other mailbox, and a second move
//     changes nothing (Already, no write);
//   - an add whose answer is lost after it was carried out is
//     ClassUncertain and sent once: the record holds the alias once;
//   - a removal whose answer is lost is done, not refused.
func RunAliases(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s *suite, a commands.Aliaser, sb AliasSandbox)
	}{
		{"AddListRemove", testAliasAddListRemove},
		{"Refused", testAliasRefused},
		{"Move", testAliasMove},
		{"AddAnswerLost", testAliasAddAnswerLost},
		{"RemoveAnswerLost", testAliasRemoveAnswerLost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, h)
			a, ok := s.p.(commands.Aliaser)
			sb, sok := s.sb.(AliasSandbox)
			if !ok || !sok || !s.caps.Aliases {
				t.Fatalf("the adapter (Aliaser %v, Capabilities.Aliases %v) or the sandbox (%v) has no aliases", ok, s.caps.Aliases, sok)
			}
			tc.fn(t, s, a, sb)
		})
	}
}

// recorded returns the sandbox's aliases of login@Domain as addresses at
// Domain.
func recorded(sb AliasSandbox, login string) []string {
	var out []string
	for _, a := range sb.Aliases(address(login)) {
		if !strings.Contains(a, "@") {
			a += "@" + Domain
		}
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

func testAliasAddListRemove(t *testing.T, s *suite, a commands.Aliaser, sb AliasSandbox) {
	s.add(t, "bob")
	if n := writes(s, func() {
		_, err := a.AddAlias(t.Context(), address("sales"), address("bob"))
		s.ok(t, "AddAlias", err)
	}); n != 1 {
		t.Errorf("AddAlias sent %d writes, want 1", n)
	}
	want := []string{address("sales")}
	if got := recorded(sb, "bob"); !slices.Equal(got, want) {
		t.Fatalf("the sandbox's aliases of bob: %q, want %q", got, want)
	}
	list, err := a.ListAliases(t.Context(), address("bob"))
	s.ok(t, "ListAliases", err)
	if !slices.Equal(list, want) {
		t.Errorf("ListAliases(bob) = %q, want %q", list, want)
	}
	if n := writes(s, func() {
		_, err := a.RemoveAlias(t.Context(), address("sales"))
		s.ok(t, "RemoveAlias", err)
	}); n != 1 {
		t.Errorf("RemoveAlias sent %d writes, want 1", n)
	}
	if got := recorded(sb, "bob"); len(got) != 0 {
		t.Errorf("the sandbox's aliases of bob after the removal: %q", got)
	}
	list, err = a.ListAliases(t.Context(), address("bob"))
	s.ok(t, "ListAliases after the removal", err)
	if len(list) != 0 {
		t.Errorf("ListAliases(bob) after the removal = %q", list)
	}
}

func testAliasRefused(t *testing.T, s *suite, a commands.Aliaser, _ AliasSandbox) {
	s.add(t, "bob")
	s.add(t, "carol")
	_, err := a.AddAlias(t.Context(), address("sales"), address("bob"))
	s.ok(t, "AddAlias", err)
	c := s.requests(func() {
		_, err = a.AddAlias(t.Context(), address("sales"), address("carol"))
	})
	s.fail(t, "AddAlias of an alias that exists", err, apiclient.OpAliasAdd, apiclient.ClassRefused, apiclient.ReasonExists)
	notRetried(t, "AddAlias of an alias that exists", c)
	_, err = a.AddAlias(t.Context(), address("carol"), address("bob"))
	s.fail(t, "AddAlias of a mailbox's address", err, apiclient.OpAliasAdd, apiclient.ClassRefused, apiclient.ReasonExists)
	c = s.requests(func() {
		_, err = a.AddAlias(t.Context(), address("jobs"), address("nobody"))
	})
	s.fail(t, "AddAlias to a mailbox that does not exist", err, apiclient.OpAliasAdd, apiclient.ClassRefused, apiclient.ReasonNotFound)
	if len(c.writes()) != 0 {
		t.Errorf("AddAlias to a mailbox that does not exist sent %d writes, want none", len(c.writes()))
	}
	c = s.requests(func() {
		_, err = a.RemoveAlias(t.Context(), address("nobody"))
	})
	s.fail(t, "RemoveAlias of an unknown alias", err, apiclient.OpAliasRemove, apiclient.ClassRefused, apiclient.ReasonNotFound)
	notRetried(t, "RemoveAlias of an unknown alias", c)
	_, err = a.MoveAlias(t.Context(), address("nobody"), address("bob"), address("carol"))
	s.fail(t, "MoveAlias of an unknown alias", err, apiclient.OpAliasMove, apiclient.ClassRefused, apiclient.ReasonNotFound)
}

func testAliasMove(t *testing.T, s *suite, a commands.Aliaser, sb AliasSandbox) {
	s.add(t, "bob")
	s.add(t, "carol")
	_, err := a.AddAlias(t.Context(), address("sales"), address("bob"))
	s.ok(t, "AddAlias", err)
	got, err := a.MoveAlias(t.Context(), address("sales"), address("bob"), address("carol"))
	s.ok(t, "MoveAlias", err)
	if got.Already || len(recorded(sb, "bob")) != 0 || !slices.Equal(recorded(sb, "carol"), []string{address("sales")}) {
		t.Errorf("after the move: Already %v, bob %q, carol %q; want the alias at carol alone", got.Already, recorded(sb, "bob"), recorded(sb, "carol"))
	}
	c := s.requests(func() {
		got, err = a.MoveAlias(t.Context(), address("sales"), address("bob"), address("carol"))
	})
	s.ok(t, "a second MoveAlias", err)
	if !got.Already || len(c.writes()) != 0 || len(c) > 1 {
		t.Errorf("a second move: Already %v, %d requests (%d writes); want Already, one read and no write", got.Already, len(c), len(c.writes()))
	}
}

func testAliasAddAnswerLost(t *testing.T, s *suite, a commands.Aliaser, sb AliasSandbox) {
	s.add(t, "bob")
	s.fault(t, "reset", 1)
	if n := writes(s, func() {
		_, err := a.AddAlias(t.Context(), address("sales"), address("bob"))
		s.fail(t, "AddAlias whose answer was lost", err, apiclient.OpAliasAdd, apiclient.ClassUncertain, "")
	}); n != 1 {
		t.Errorf("AddAlias whose answer was lost: %d writes, want 1 (not re-sent)", n)
	}
	if got := recorded(sb, "bob"); !slices.Equal(got, []string{address("sales")}) {
		t.Errorf("the sandbox's aliases of bob: %q, want the alias once", got)
	}
	list, err := a.ListAliases(t.Context(), address("bob"))
	s.ok(t, "ListAliases after a lost answer", err)
	if !slices.Equal(list, []string{address("sales")}) {
		t.Errorf("ListAliases(bob) = %q: the look-up must find the alias the lost add made", list)
	}
}

func testAliasRemoveAnswerLost(t *testing.T, s *suite, a commands.Aliaser, sb AliasSandbox) {
	s.add(t, "bob")
	_, err := a.AddAlias(t.Context(), address("sales"), address("bob"))
	s.ok(t, "AddAlias", err)
	s.fault(t, "reset", 1)
	_, err = a.RemoveAlias(t.Context(), address("sales"))
	s.ok(t, "RemoveAlias whose answer was lost", err)
	if got := recorded(sb, "bob"); len(got) != 0 {
		t.Errorf("the sandbox's aliases of bob: %q, want none", got)
	}
}
