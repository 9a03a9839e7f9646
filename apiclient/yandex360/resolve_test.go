package yandex360_test

import (
	"testing"
)

// TestResolveNameInAnotherDomain: a user's nickname at another domain of
// the organisation is another name of the user, whose own address is at
// the default domain.
func TestResolveNameInAnotherDomain(t *testing.T) {
	t.Parallel()
	e := setup(t)
	withAda(t, e)
	if err := e.sim.AddDomain("example.net"); err != nil {
		t.Fatal(err)
	}
	r, err := e.c.ResolveMailbox(t.Context(), "example.net", "ada")
	if err != nil || !r.Alias || r.Address != "ada@example.org" {
		t.Errorf("ResolveMailbox(ada@example.net) = %+v, %v; want another name of ada@example.org", r, err)
	}
	r, err = e.c.ResolveMailbox(t.Context(), "example.org", "ADA")
	if err != nil || r.Alias || r.Address != "ada@example.org" {
		t.Errorf("ResolveMailbox(ADA@example.org) = %+v, %v; want ada@example.org itself", r, err)
	}
}
