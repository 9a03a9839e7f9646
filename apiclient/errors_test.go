package apiclient_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pddsim"
)

const password = "Pa&ss+w%rd;1"

// call is one operation of a test, through the env's client.
type call func(*testing.T, *env) error

func register(domain string) call {
	return func(t *testing.T, e *env) error {
		_, err := e.c.RegisterDomain(t.Context(), domain)
		return err
	}
}

func add(domain, login, pw string) call {
	return func(t *testing.T, e *env) error {
		_, err := e.c.AddMailbox(t.Context(), domain, login, pw)
		return err
	}
}

// TestErrorCodes checks every error code: those the sandbox gives by its
// rules, and the others as the sandbox injects them.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	failWith := func(code apiclient.Code) func(*testing.T, *env) {
		return func(_ *testing.T, e *env) { e.sim.FailNextWith(1, code) }
	}
	fillUp := func(t *testing.T, e *env) {
		for i := 2; i <= pddsim.DomainLimit; i++ {
			if _, err := e.c.RegisterDomain(t.Context(), fmt.Sprintf("d%d.example", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	takenByOther := func(t *testing.T, e *env) {
		if _, err := e.client(t, e.sim.NewAccount()).RegisterDomain(t.Context(), "other.example"); err != nil {
			t.Fatal(err)
		}
	}
	mailboxExists := func(t *testing.T, e *env) {
		if _, err := e.c.AddMailbox(t.Context(), "example.com", "taken", "Secret-1"); err != nil {
			t.Fatal(err)
		}
	}
	badToken := func(t *testing.T, e *env) error {
		_, err := e.client(t, "NOT-A-TOKEN").RegisterDomain(t.Context(), "example.com")
		return err
	}
	tests := []struct {
		name         string
		setup        func(*testing.T, *env)
		call         call
		wantOp       apiclient.Op
		wantCode     apiclient.Code
		wantAttempts int
		wantMeaning  string
	}{
		// register, by the sandbox's rules
		{"bad token", nil, badToken, apiclient.OpRegisterDomain, apiclient.CodeBadToken, 1, "token is invalid"},
		{"no domain", nil, register(""), apiclient.OpRegisterDomain, apiclient.CodeNoDomain, 1, "omitted"},
		{"bad domain", nil, register("-bad.example"), apiclient.OpRegisterDomain, apiclient.CodeBadDomain, 1, "RFC"},
		{"prohibited", nil, register("forbidden.example"), apiclient.OpRegisterDomain, apiclient.CodeProhibited, 1, "forbidden"},
		{"blocked", nil, register("spam.example"), apiclient.OpRegisterDomain, apiclient.CodeBlocked, 1, "blocked"},
		{"domain occupied", takenByOther, register("other.example"), apiclient.OpRegisterDomain, apiclient.CodeOccupied, 1, "in use by another user"},
		{"domain limit", fillUp, register("d51.example"), apiclient.OpRegisterDomain, apiclient.CodeDomainLimitReached, 1, "limit"},
		// add, by the sandbox's rules
		{"not allowed", takenByOther, add("other.example", "u", password), apiclient.OpAddMailbox, apiclient.CodeNotAllowed, 1, "not the domain administrator"},
		{"add no domain", nil, add("", "u", password), apiclient.OpAddMailbox, apiclient.CodeNoDomain, 1, "omitted"},
		{"no login", nil, add("example.com", "", password), apiclient.OpAddMailbox, apiclient.CodeNoLogin, 1, "mailbox name was omitted"},
		{"no password", nil, add("example.com", "u", ""), apiclient.OpAddMailbox, apiclient.CodeNoPassword, 1, "password was omitted"},
		{"bad login", nil, add("example.com", "1u", password), apiclient.OpAddMailbox, apiclient.CodeBadLoginFormat, 1, "not allowed"},
		{"login of another domain", nil, add("example.com", "u@other.example", password), apiclient.OpAddMailbox, apiclient.CodeBadLoginFormat, 1, "not allowed"},
		{"login too long", nil, add("example.com", strings.Repeat("u", 31), password), apiclient.OpAddMailbox, apiclient.CodeLoginTooLong, 1, "too long"},
		{"password too short", nil, add("example.com", "u", "Ab&1"), apiclient.OpAddMailbox, apiclient.CodePasswdTooShort, 1, "too short"},
		{"password too long", nil, add("example.com", "u", password+password), apiclient.OpAddMailbox, apiclient.CodePasswdTooLong, 1, "too long"},
		{"bad password", nil, add("example.com", "u", "Pass word&1"), apiclient.OpAddMailbox, apiclient.CodeBadPasswdChars, 1, "not allowed"},
		{"password is the login", nil, add("example.com", "secret1", "SECRET1"), apiclient.OpAddMailbox, apiclient.CodeBadPasswdChars, 1, "not allowed"},
		{"mailbox occupied", mailboxExists, add("example.com", "taken", password), apiclient.OpAddMailbox, apiclient.CodeOccupied, 1, "the mailbox already exists"},
		// codes the sandbox gives only when told to
		{"unknown", func(_ *testing.T, e *env) { e.sim.FailNext(3) }, register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeUnknown, 3, "repeat the request later"},
		{"unknown on add", func(_ *testing.T, e *env) { e.sim.FailNext(3) }, add("example.com", "u", password), apiclient.OpAddMailbox, apiclient.CodeUnknown, 3, "repeat the request later"},
		{"no token", failWith(apiclient.CodeNoToken), register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeNoToken, 1, "omitted"},
		{"no ip", failWith(apiclient.CodeNoIP), register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeNoIP, 1, "IP address"},
		{"no auth", failWith(apiclient.CodeNoAuth), register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeNoAuth, 1, "PddToken header"},
		{"bad login (auth)", failWith(apiclient.CodeBadLogin), register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeBadLogin, 1, "username is invalid"},
		{"bad passwd (auth)", failWith(apiclient.CodeBadPasswd), register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeBadPasswd, 1, "password is invalid"},
		{"no reply", failWith(apiclient.CodeNoReply), register("example.com"), apiclient.OpRegisterDomain, apiclient.CodeNoReply, 1, "source server"},
		{"login reserved", failWith(apiclient.CodeLoginReserved), add("example.com", "postmaster", password), apiclient.OpAddMailbox, apiclient.CodeLoginReserved, 1, "reserved"},
		{"a code nobody knows", failWith("quota-exceeded"), add("example.com", "u", password), apiclient.OpAddMailbox, "quota-exceeded", 1, "does not know"},
		{"a code nobody knows, odd text", failWith("Some Error: 42"), register("example.com"), apiclient.OpRegisterDomain, "Some Error: 42", 1, "does not know"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, false)
			if tc.setup != nil {
				tc.setup(t, e)
			}
			before := e.sim.Requests(tc.wantOp)
			err := tc.call(t, e)
			var apiErr *apiclient.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v (%T), want an *apiclient.Error", err, err)
			}
			if apiErr.Op != tc.wantOp || apiErr.Code != tc.wantCode || apiErr.Attempts != tc.wantAttempts {
				t.Errorf("error = {Op %q Code %q Attempts %d}, want {%q %q %d}", apiErr.Op, apiErr.Code, apiErr.Attempts, tc.wantOp, tc.wantCode, tc.wantAttempts)
			}
			if got := apiclient.ErrorCode(err); got != tc.wantCode {
				t.Errorf("ErrorCode(err) = %q, want %q", got, tc.wantCode)
			}
			if got := e.sim.Requests(tc.wantOp) - before; got != tc.wantAttempts {
				t.Errorf("the sandbox saw %d requests, want %d", got, tc.wantAttempts)
			}
			msg := err.Error()
			if !strings.Contains(msg, string(tc.wantCode)) || !strings.Contains(msg, tc.wantMeaning) || !strings.Contains(apiErr.Meaning(), tc.wantMeaning) {
				t.Errorf("error text %q, want the code %q and the meaning %q", msg, tc.wantCode, tc.wantMeaning)
			}
			checkNoSecrets(t, err, e.token, password)
		})
	}
}

func TestErrorCodeOfOtherErrors(t *testing.T) {
	t.Parallel()
	for _, err := range []error{nil, errors.New("x"), &apiclient.ResponseError{}, &apiclient.TransportError{Err: errors.New("x")}} {
		if got := apiclient.ErrorCode(err); got != "" {
			t.Errorf("ErrorCode(%v) = %q, want \"\"", err, got)
		}
	}
	wrapped := fmt.Errorf("register: %w", &apiclient.Error{Op: apiclient.OpRegisterDomain, Code: apiclient.CodeBlocked})
	if got := apiclient.ErrorCode(wrapped); got != apiclient.CodeBlocked {
		t.Errorf("ErrorCode(wrapped) = %q, want blocked", got)
	}
}
