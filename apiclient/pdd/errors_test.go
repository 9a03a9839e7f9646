package pdd_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
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
		_, err := e.c.AddMailbox(t.Context(), domain, login, pw, false)
		return err
	}
}

// TestErrorCodes checks every error code: those the sandbox gives by its
// rules, and the others as the sandbox injects them.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	failWith := func(code pddsim.Code) func(*testing.T, *env) {
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
		if _, err := e.c.AddMailbox(t.Context(), "example.com", "taken", "Secret-1", false); err != nil {
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
		wantOp       pddsim.Op
		wantCode     pddsim.Code
		wantAttempts int
		wantMeaning  string
	}{
		// register, by the sandbox's rules
		{"bad token", nil, badToken, pddsim.OpRegisterDomain, pddsim.CodeBadToken, 1, "token is invalid"},
		{"no domain", nil, register(""), pddsim.OpRegisterDomain, pddsim.CodeNoDomain, 1, "omitted"},
		{"bad domain", nil, register("-bad.example"), pddsim.OpRegisterDomain, pddsim.CodeBadDomain, 1, "RFC"},
		{"prohibited", nil, register("forbidden.example"), pddsim.OpRegisterDomain, pddsim.CodeProhibited, 1, "forbidden"},
		{"blocked", nil, register("spam.example"), pddsim.OpRegisterDomain, pddsim.CodeBlocked, 1, "blocked"},
		{"domain occupied", takenByOther, register("other.example"), pddsim.OpRegisterDomain, pddsim.CodeOccupied, 1, "in use by another user"},
		{"domain limit", fillUp, register("d51.example"), pddsim.OpRegisterDomain, pddsim.CodeDomainLimitReached, 1, "limit"},
		// add, by the sandbox's rules
		{"not allowed", takenByOther, add("other.example", "u", password), pddsim.OpAddMailbox, pddsim.CodeNotAllowed, 1, "not the domain administrator"},
		{"add no domain", nil, add("", "u", password), pddsim.OpAddMailbox, pddsim.CodeNoDomain, 1, "omitted"},
		{"no login", nil, add("example.com", "", password), pddsim.OpAddMailbox, pddsim.CodeNoLogin, 1, "mailbox name was omitted"},
		{"no password", nil, add("example.com", "u", ""), pddsim.OpAddMailbox, pddsim.CodeNoPassword, 1, "password was omitted"},
		{"bad login", nil, add("example.com", "1u", password), pddsim.OpAddMailbox, pddsim.CodeBadLoginFormat, 1, "not allowed"},
		{"login of another domain", nil, add("example.com", "u@other.example", password), pddsim.OpAddMailbox, pddsim.CodeBadLoginFormat, 1, "not allowed"},
		{"login too long", nil, add("example.com", strings.Repeat("u", 31), password), pddsim.OpAddMailbox, pddsim.CodeLoginTooLong, 1, "too long"},
		{"password too short", nil, add("example.com", "u", "Ab&1"), pddsim.OpAddMailbox, pddsim.CodePasswdTooShort, 1, "too short"},
		{"password too long", nil, add("example.com", "u", password+password), pddsim.OpAddMailbox, pddsim.CodePasswdTooLong, 1, "too long"},
		{"bad password", nil, add("example.com", "u", "Pass word&1"), pddsim.OpAddMailbox, pddsim.CodeBadPasswdChars, 1, "not allowed"},
		{"password is the login", nil, add("example.com", "secret1", "SECRET1"), pddsim.OpAddMailbox, pddsim.CodeBadPasswdChars, 1, "not allowed"},
		{"mailbox occupied", mailboxExists, add("example.com", "taken", password), pddsim.OpAddMailbox, pddsim.CodeOccupied, 1, "the mailbox already exists"},
		// codes the sandbox gives only when told to
		{"unknown", func(_ *testing.T, e *env) { e.sim.FailNext(3) }, register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeUnknown, 3, "repeat the request later"},
		{"unknown on add", func(_ *testing.T, e *env) { e.sim.FailNext(3) }, add("example.com", "u", password), pddsim.OpAddMailbox, pddsim.CodeUnknown, 3, "repeat the request later"},
		{"no token", failWith(pddsim.CodeNoToken), register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeNoToken, 1, "omitted"},
		{"no ip", failWith(pddsim.CodeNoIP), register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeNoIP, 1, "IP address"},
		{"no auth", failWith(pddsim.CodeNoAuth), register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeNoAuth, 1, "PddToken header"},
		{"bad login (auth)", failWith(pddsim.CodeBadLogin), register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeBadLogin, 1, "username is invalid"},
		{"bad passwd (auth)", failWith(pddsim.CodeBadPasswd), register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeBadPasswd, 1, "password is invalid"},
		{"no reply", failWith(pddsim.CodeNoReply), register("example.com"), pddsim.OpRegisterDomain, pddsim.CodeNoReply, 1, "source server"},
		{"login reserved", failWith(pddsim.CodeLoginReserved), add("example.com", "postmaster", password), pddsim.OpAddMailbox, pddsim.CodeLoginReserved, 1, "reserved"},
		{"a code nobody knows", failWith("quota-exceeded"), add("example.com", "u", password), pddsim.OpAddMailbox, "quota-exceeded", 1, "does not know"},
		{"a code nobody knows, odd text", failWith("Some Error: 42"), register("example.com"), pddsim.OpRegisterDomain, "Some Error: 42", 1, "does not know"},
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
			wantOp := map[pddsim.Op]apiclient.Op{pddsim.OpRegisterDomain: apiclient.OpRegister, pddsim.OpAddMailbox: apiclient.OpAdd}[tc.wantOp]
			if apiErr.Op != wantOp || apiErr.Code != string(tc.wantCode) || apiErr.Attempts != tc.wantAttempts || apiErr.HTTPStatus != 200 {
				t.Errorf("error = {Op %q Code %q Attempts %d HTTP %d}, want {%q %q %d 200}", apiErr.Op, apiErr.Code, apiErr.Attempts, apiErr.HTTPStatus, wantOp, tc.wantCode, tc.wantAttempts)
			}
			if got := e.sim.Requests(tc.wantOp) - before; got != tc.wantAttempts {
				t.Errorf("the sandbox saw %d requests, want %d", got, tc.wantAttempts)
			}
			msg := err.Error()
			if !strings.Contains(msg, string(tc.wantCode)) || !strings.Contains(msg, tc.wantMeaning) || !strings.Contains(apiErr.Message, tc.wantMeaning) {
				t.Errorf("error text %q, want the code %q and the meaning %q", msg, tc.wantCode, tc.wantMeaning)
			}
			checkNoSecrets(t, err, e.token, password)
		})
	}
}
