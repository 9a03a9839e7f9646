package pdd_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
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
	failWith := func(code pdd.Code) func(*testing.T, *env) {
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
		wantOp       pdd.Op
		wantCode     pdd.Code
		wantAttempts int
		wantMeaning  string
	}{
		// register, by the sandbox's rules
		{"bad token", nil, badToken, pdd.OpRegisterDomain, pdd.CodeBadToken, 1, "token is invalid"},
		{"no domain", nil, register(""), pdd.OpRegisterDomain, pdd.CodeNoDomain, 1, "omitted"},
		{"bad domain", nil, register("-bad.example"), pdd.OpRegisterDomain, pdd.CodeBadDomain, 1, "RFC"},
		{"prohibited", nil, register("forbidden.example"), pdd.OpRegisterDomain, pdd.CodeProhibited, 1, "forbidden"},
		{"blocked", nil, register("spam.example"), pdd.OpRegisterDomain, pdd.CodeBlocked, 1, "blocked"},
		{"domain occupied", takenByOther, register("other.example"), pdd.OpRegisterDomain, pdd.CodeOccupied, 1, "in use by another user"},
		{"domain limit", fillUp, register("d51.example"), pdd.OpRegisterDomain, pdd.CodeDomainLimitReached, 1, "limit"},
		// add, by the sandbox's rules
		{"not allowed", takenByOther, add("other.example", "u", password), pdd.OpAddMailbox, pdd.CodeNotAllowed, 1, "not the domain administrator"},
		{"add no domain", nil, add("", "u", password), pdd.OpAddMailbox, pdd.CodeNoDomain, 1, "omitted"},
		{"no login", nil, add("example.com", "", password), pdd.OpAddMailbox, pdd.CodeNoLogin, 1, "mailbox name was omitted"},
		{"no password", nil, add("example.com", "u", ""), pdd.OpAddMailbox, pdd.CodeNoPassword, 1, "password was omitted"},
		{"bad login", nil, add("example.com", "1u", password), pdd.OpAddMailbox, pdd.CodeBadLoginFormat, 1, "not allowed"},
		{"login of another domain", nil, add("example.com", "u@other.example", password), pdd.OpAddMailbox, pdd.CodeBadLoginFormat, 1, "not allowed"},
		{"login too long", nil, add("example.com", strings.Repeat("u", 31), password), pdd.OpAddMailbox, pdd.CodeLoginTooLong, 1, "too long"},
		{"password too short", nil, add("example.com", "u", "Ab&1"), pdd.OpAddMailbox, pdd.CodePasswdTooShort, 1, "too short"},
		{"password too long", nil, add("example.com", "u", password+password), pdd.OpAddMailbox, pdd.CodePasswdTooLong, 1, "too long"},
		{"bad password", nil, add("example.com", "u", "Pass word&1"), pdd.OpAddMailbox, pdd.CodeBadPasswdChars, 1, "not allowed"},
		{"password is the login", nil, add("example.com", "secret1", "SECRET1"), pdd.OpAddMailbox, pdd.CodeBadPasswdChars, 1, "not allowed"},
		{"mailbox occupied", mailboxExists, add("example.com", "taken", password), pdd.OpAddMailbox, pdd.CodeOccupied, 1, "the mailbox already exists"},
		// codes the sandbox gives only when told to
		{"unknown", func(_ *testing.T, e *env) { e.sim.FailNext(3) }, register("example.com"), pdd.OpRegisterDomain, pdd.CodeUnknown, 3, "repeat the request later"},
		{"unknown on add", func(_ *testing.T, e *env) { e.sim.FailNext(3) }, add("example.com", "u", password), pdd.OpAddMailbox, pdd.CodeUnknown, 3, "repeat the request later"},
		{"no token", failWith(pdd.CodeNoToken), register("example.com"), pdd.OpRegisterDomain, pdd.CodeNoToken, 1, "omitted"},
		{"no ip", failWith(pdd.CodeNoIP), register("example.com"), pdd.OpRegisterDomain, pdd.CodeNoIP, 1, "IP address"},
		{"no auth", failWith(pdd.CodeNoAuth), register("example.com"), pdd.OpRegisterDomain, pdd.CodeNoAuth, 1, "PddToken header"},
		{"bad login (auth)", failWith(pdd.CodeBadLogin), register("example.com"), pdd.OpRegisterDomain, pdd.CodeBadLogin, 1, "username is invalid"},
		{"bad passwd (auth)", failWith(pdd.CodeBadPasswd), register("example.com"), pdd.OpRegisterDomain, pdd.CodeBadPasswd, 1, "password is invalid"},
		{"no reply", failWith(pdd.CodeNoReply), register("example.com"), pdd.OpRegisterDomain, pdd.CodeNoReply, 1, "source server"},
		{"login reserved", failWith(pdd.CodeLoginReserved), add("example.com", "postmaster", password), pdd.OpAddMailbox, pdd.CodeLoginReserved, 1, "reserved"},
		{"a code nobody knows", failWith("quota-exceeded"), add("example.com", "u", password), pdd.OpAddMailbox, "quota-exceeded", 1, "does not know"},
		{"a code nobody knows, odd text", failWith("Some Error: 42"), register("example.com"), pdd.OpRegisterDomain, "Some Error: 42", 1, "does not know"},
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
			wantOp := map[pdd.Op]apiclient.Op{pdd.OpRegisterDomain: apiclient.OpRegister, pdd.OpAddMailbox: apiclient.OpAdd}[tc.wantOp]
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
