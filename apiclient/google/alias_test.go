package google_test

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// aliasEnv is setup with the users bob and carol of example.com, and the
// token fetched.
func aliasEnv(t *testing.T) *env {
	t.Helper()
	e := setup(t)
	for _, login := range []string{"bob", "carol"} {
		if _, err := e.c.AddMailbox(t.Context(), "example.com", login, password, false); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// refused checks that err is a refusal of op for reason whose message
// holds want.
func refused(t *testing.T, what string, err error, op apiclient.Op, reason apiclient.Reason, want string) {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) || e.Op != op || e.Class != apiclient.ClassRefused || e.Reason != reason || !strings.Contains(e.Message, want) {
		t.Errorf("%s: %v; want %s refused, %s, saying %q", what, err, op, reason, want)
	}
}

func TestAliasListSortedAndRemoveSaysTheMailbox(t *testing.T) {
	t.Parallel()
	e := aliasEnv(t)
	ctx := t.Context()
	for _, a := range []string{"Zeta@example.com", "alpha@example.com"} {
		got, err := e.c.AddAlias(ctx, a, "bob@example.com")
		if err != nil || got.Address != strings.ToLower(a) || got.Mailbox != "bob@example.com" {
			t.Fatalf("AddAlias(%s) = %+v, %v", a, got, err)
		}
	}
	list, err := e.c.ListAliases(ctx, "bob@example.com")
	if err != nil || !slices.Equal(list, []string{"alpha@example.com", "zeta@example.com"}) {
		t.Errorf("ListAliases = %q, %v; want both, sorted (the API lists them as added)", list, err)
	}
	got, err := e.c.RemoveAlias(ctx, "zeta@example.com")
	if err != nil || got.Mailbox != "bob@example.com" {
		t.Errorf("RemoveAlias = %+v, %v; want the mailbox it delivered to", got, err)
	}
	if _, err := e.c.ListAliases(ctx, "nobody@example.com"); apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
		t.Errorf("ListAliases of an unknown mailbox: %v, want not found", err)
	}
}

func TestAliasAddressesCheckedBeforeSending(t *testing.T) {
	t.Parallel()
	e := aliasEnv(t)
	ctx := t.Context()
	before := e.sim.Requests()
	for _, bad := range []string{"sales", "sales@", "a b@example.com", "sales@exa/mple.com", "sales@example.com/../x", ".s@example.com"} {
		_, err := e.c.AddAlias(ctx, bad, "bob@example.com")
		refused(t, "AddAlias("+bad+")", err, apiclient.OpAliasAdd, apiclient.ReasonInvalid, "not an address")
		_, err = e.c.RemoveAlias(ctx, bad)
		refused(t, "RemoveAlias("+bad+")", err, apiclient.OpAliasRemove, apiclient.ReasonInvalid, "not an address")
		_, err = e.c.ListAliases(ctx, bad)
		refused(t, "ListAliases("+bad+")", err, apiclient.OpAliases, apiclient.ReasonInvalid, "not an address")
	}
	if n := e.sim.Requests() - before; n != 0 {
		t.Errorf("%d requests reached the API for addresses refused beforehand", n)
	}
}

func TestAliasMailboxesAndAliasesApart(t *testing.T) {
	t.Parallel()
	e := aliasEnv(t)
	ctx := t.Context()
	if _, err := e.c.AddAlias(ctx, "sales@example.com", "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	before := e.sim.Requests()
	_, err := e.c.RemoveAlias(ctx, "carol@example.com")
	refused(t, "RemoveAlias of a mailbox", err, apiclient.OpAliasRemove, apiclient.ReasonNotFound, "is a mailbox, not an alias")
	_, err = e.c.AddAlias(ctx, "jobs@example.com", "sales@example.com")
	refused(t, "AddAlias to an alias", err, apiclient.OpAliasAdd, apiclient.ReasonNotFound, "alias of bob@example.com")
	_, err = e.c.MoveAlias(ctx, "sales@example.com", "carol@example.com", "bob@example.com")
	if err != nil {
		t.Errorf("MoveAlias to where it delivers: %v", err)
	}
	_, err = e.c.MoveAlias(ctx, "sales@example.com", "carol@example.com", "admin@example.com")
	refused(t, "MoveAlias from a mailbox it does not deliver to", err, apiclient.OpAliasMove, apiclient.ReasonNotFound, "delivers to bob@example.com, not to carol@example.com")
	if n := e.sim.Requests() - before; n != 4 {
		t.Errorf("%d requests, want 4 reads and no write", n)
	}
	_, err = e.c.RemoveAlias(ctx, "nobody@example.com")
	refused(t, "RemoveAlias of an unknown address", err, apiclient.OpAliasRemove, apiclient.ReasonNotFound, "no user or alias nobody@example.com")
	_, err = e.c.AddAlias(ctx, "sales@elsewhere.example", "bob@example.com")
	refused(t, "AddAlias in a domain the customer lacks", err, apiclient.OpAliasAdd, apiclient.ReasonInvalid, "domain")
	if got := e.sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Errorf("bob's aliases: %q", got)
	}
}

func TestAliasMoveGivesBack(t *testing.T) {
	t.Parallel()
	e := aliasEnv(t)
	ctx := t.Context()
	if _, err := e.c.AddAlias(ctx, "sales@example.com", "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.MoveAlias(ctx, "sales@example.com", "bob@example.com", "nobody@example.com")
	refused(t, "MoveAlias to a mailbox that does not exist", err, apiclient.OpAliasMove, apiclient.ReasonNotFound, "given back to bob@example.com")
	if got := e.sim.Aliases("bob@example.com"); !slices.Equal(got, []string{"sales@example.com"}) {
		t.Errorf("bob's aliases after the failed move: %q, want the alias back", got)
	}
}

// TestAliasMoveInsertAnswerLost: the insert on the new mailbox is carried
// out but its answer lost; it is not sent again, and the give-back finds
// the address taken and says so.
func TestAliasMoveInsertAnswerLost(t *testing.T) {
	t.Parallel()
	e := aliasEnv(t)
	ctx := t.Context()
	if _, err := e.c.AddAlias(ctx, "sales@example.com", "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	e.sim.OnRequest(func() {
		if n.Add(1) == 3 { // the read, the delete, then the insert
			if err := e.sim.InjectFault(googlesim.FaultReset, 1); err != nil {
				t.Error(err)
			}
		}
	})
	_, err := e.c.MoveAlias(ctx, "sales@example.com", "bob@example.com", "carol@example.com")
	var ae *apiclient.Error
	if !errors.As(err, &ae) || ae.Class != apiclient.ClassUncertain || !strings.Contains(ae.Message, "taken again") {
		t.Errorf("MoveAlias whose insert lost its answer: %v; want uncertain, the give-back finding the address taken", err)
	}
	if got := n.Load(); got != 4 {
		t.Errorf("%d requests, want 4 (read, delete, insert once, give-back)", got)
	}
	if got := e.sim.Aliases("carol@example.com"); !slices.Equal(got, []string{"sales@example.com"}) || len(e.sim.Aliases("bob@example.com")) != 0 {
		t.Errorf("carol %q, bob %q; want the alias at carol alone", got, e.sim.Aliases("bob@example.com"))
	}
}
