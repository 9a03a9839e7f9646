package google_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
)

// A read of a user or alias the client created moments ago that Google
// answers 403 forbidden or 404 (its directory catching up) is temporary:
// retried, and read once Google shows it.
func TestReadAfterInsertWaitsForTheDirectory(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		e := setup(t)
		if err := e.sim.SetLag(2, status); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.AddMailbox(t.Context(), "example.com", "ann", password, false); err != nil {
			t.Fatal(err)
		}
		m, err := e.c.LookupMailbox(t.Context(), "example.com", "ann")
		if err != nil || m.Address != "ann@example.com" {
			t.Errorf("HTTP %d to the first reads after the insert: look-up = %+v, %v; want it retried to the user", status, m, err)
		}
		if _, err := e.c.AddAlias(t.Context(), "sales@example.com", "ann@example.com"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.RemoveAlias(t.Context(), "sales@example.com"); err != nil {
			t.Errorf("HTTP %d to the first reads of a new alias: remove = %v, want it retried", status, err)
		}
	}
}

// A 403 forbidden to a read of an address the client did not insert
// stays refused credentials naming the admin; one that keeps answering
// after an insert ends temporary, in words, never as credentials.
func TestForbiddenElsewhereIsStillCredentials(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.sim.AddUser("clerk@"+googlesim.DefaultPrimaryDomain, "Clerk-pass-1")
	clerk := e.connect(t, "clerk@"+googlesim.DefaultPrimaryDomain, google.Settings{})
	_, err := clerk.LookupMailbox(t.Context(), "example.com", "ann")
	credentials(t, "a read by an admin without the privilege", err, "GOOGLE_ADMIN", "super admin")
	if err := e.sim.SetLag(10, http.StatusForbidden); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.AddMailbox(t.Context(), "example.com", "bea", password, false); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.LookupMailbox(t.Context(), "example.com", "bea")
	if got := asErr(t, err); got.Class != apiclient.ClassTemporary || got.Attempts != 3 || !strings.Contains(got.Message, "yet") {
		t.Errorf("a new user Google keeps hiding: %+v, want temporary after 3 attempts, in words", got)
	}
}

// 403 domainCannotUseApis is refused in words, not credentials.
func TestDomainCannotUseApis(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.sim.AddForeignDomain("other.example")
	_, err := e.c.LookupMailbox(t.Context(), "other.example", "bob")
	got := asErr(t, err)
	if got.Class != apiclient.ClassRefused || got.Reason != apiclient.ReasonNotAllowed || got.Code != "domainCannotUseApis" || !strings.Contains(got.Message, "not one of the Workspace customer's") {
		t.Errorf("domainCannotUseApis: %+v, want refused, not allowed, in words", got)
	}
	if got.Attempts != 1 {
		t.Errorf("%d attempts, want 1 (a refusal is not retried)", got.Attempts)
	}
}

// An API not enabled in the key's project (403 accessNotConfigured,
// SERVICE_DISABLED) is refused credentials naming the key and the API to
// enable.
func TestAPINotEnabled(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.sim.DisableAPI(googlesim.ServiceDirectory, true); err != nil {
		t.Fatal(err)
	}
	credentials(t, "the Directory API disabled", e.c.Check(t.Context()), "GOOGLE_CREDENTIALS", "Admin SDK API (admin.googleapis.com) is not enabled")
	if err := e.sim.DisableAPI(googlesim.ServiceDirectory, false); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.DisableAPI(googlesim.ServiceVerification, true); err != nil {
		t.Fatal(err)
	}
	e.sim.AddDomain("new.example")
	_, verr := e.c.VerifyDomain(t.Context(), "new.example")
	credentials(t, "Site Verification disabled", verr, "GOOGLE_CREDENTIALS", "Site Verification API (siteverification.googleapis.com) is not enabled")
}

// After an insert whose answer was lost, Google answers the look-up 404
// for a while; the second insert, with the same password, gets 409
// duplicate: the mailbox exists with that password, and the result says
// so in a warning. With another password, 409 stays "exists".
func TestLostInsertThenDuplicate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.sim.SetLag(5, http.StatusNotFound); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.InjectFault(googlesim.FaultReset, 1); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.AddMailbox(t.Context(), "example.com", "cat", password, true)
	if !apiclient.MayHaveHappened(err) {
		t.Fatalf("insert with a lost answer = %v, want uncertain", err)
	}
	if _, err := e.c.LookupMailbox(t.Context(), "example.com", "cat"); apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
		t.Fatalf("look-up during the lag = %v, want not found", err)
	}
	if _, err := e.c.AddMailbox(t.Context(), "example.com", "cat", "Other-pw-98765", true); apiclient.ReasonOf(err) != apiclient.ReasonExists {
		t.Errorf("second insert with another password = %v, want refused: exists", err)
	}
	m, err := e.c.AddMailbox(t.Context(), "example.com", "cat", password, true)
	if err != nil || m.Address != "cat@example.com" || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "reset the password") {
		t.Fatalf("second insert with the same password = %+v, %v; want the mailbox, with a warning", m, err)
	}
	if info, _ := e.sim.Mailbox("cat@example.com"); info.Password != password {
		t.Errorf("the mailbox's password is not the one the lost insert sent")
	}
}

// asErr returns err as an *apiclient.Error, or fails.
func asErr(t *testing.T, err error) *apiclient.Error {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *apiclient.Error", err, err)
	}
	return e
}
