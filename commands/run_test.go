package commands

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
)

// timeoutErr is a network error that timed out.
type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }

// TestRunReplies runs each operation against a fake API and compares the
// reply and the notice with golden files; the audit entry of the run holds
// the outcome and no secret.
func TestRunReplies(t *testing.T) {
	t.Parallel()
	regOp := Operation{Action: ActionRegisterDomain, Domain: "example.com", Reason: "new brand"}
	addOp := Operation{Action: ActionAddMailbox, Domain: "example.com", Login: "alice"}
	fail := func(err error) func(context.Context, string) (*apiclient.Domain, error) {
		return func(context.Context, string) (*apiclient.Domain, error) { return nil, err }
	}
	failAdd := func(err error) func(context.Context, string, string, string) (*apiclient.Mailbox, error) {
		return func(context.Context, string, string, string) (*apiclient.Mailbox, error) { return nil, err }
	}
	status := func(s string) func(context.Context, string) (*apiclient.Domain, error) {
		return func(_ context.Context, d string) (*apiclient.Domain, error) {
			return pddDomain(d, s), nil
		}
	}
	// fate is what the notice says of a failure: "nothing" (NothingDone:
	// an approval is not used up), "uncertain" (the mailbox may exist), or
	// "" (a definitive failure, or a success).
	tests := []struct {
		name string
		op   Operation
		api  *fakeAPI
		ok   bool
		code string
		fate string
	}{
		{"register-domain-activate", regOp, &fakeAPI{}, true, "", ""},
		{"register-mx-activate", regOp, &fakeAPI{register: status(pdd.StatusMXActivate)}, true, "", ""},
		{"register-added", regOp, &fakeAPI{register: status(pdd.StatusAdded)}, true, "", ""},
		{"register-idn", Operation{Action: ActionRegisterDomain, Domain: "xn--e1afmkfd.xn--p1ai"}, &fakeAPI{register: status(pdd.StatusAdded)}, true, "", ""},
		{"add", addOp, &fakeAPI{}, true, "", ""},
		{"error-occupied-register", regOp, &fakeAPI{register: fail(pddErr(apiclient.OpRegister, apiclient.ClassRefused, apiclient.ReasonExists, "occupied", "the domain is in use by another account"))}, false, "occupied", ""},
		{"error-occupied-add", addOp, &fakeAPI{add: failAdd(pddErr(apiclient.OpAdd, apiclient.ClassRefused, apiclient.ReasonExists, "occupied", "the mailbox already exists"))}, false, "occupied", ""},
		{"error-unknown-retried", regOp, &fakeAPI{register: fail(withAttempts(pddErr(apiclient.OpRegister, apiclient.ClassTemporary, "", "unknown", "a temporary failure or API error occurred; repeat the request later"), 3))}, false, "unknown", "nothing"},
		{"error-bad-token", regOp, &fakeAPI{register: fail(pddErr(apiclient.OpRegister, apiclient.ClassCredentials, "", "bad_token", "the PDD token is invalid"))}, false, "bad_token", ""},
		{"error-not-allowed", addOp, &fakeAPI{add: failAdd(pddErr(apiclient.OpAdd, apiclient.ClassRefused, apiclient.ReasonNotAllowed, "not_allowed", "the operation is not allowed for this account (it is not the domain administrator)"))}, false, "not_allowed", ""},
		{"error-undocumented-code", regOp, &fakeAPI{register: fail(pddErr(apiclient.OpRegister, apiclient.ClassRefused, "", "quota_frozen", "a code mailbot does not know, shown as received"))}, false, "quota_frozen", ""},
		{"error-refused-without-code", addOp, &fakeAPI{add: failAdd(pddErr(apiclient.OpAdd, apiclient.ClassRefused, apiclient.ReasonNotFound, "", "the domain is not one of the organisation's"))}, false, "not_found", ""},
		{"error-code-without-words", regOp, &fakeAPI{register: fail(pddErr(apiclient.OpRegister, apiclient.ClassRefused, "", "weird_code", ""))}, false, "weird_code", ""},
		{"error-response", regOp, &fakeAPI{register: fail(pddErr(apiclient.OpRegister, apiclient.ClassTemporary, "", "", ""))}, false, CodeTransport, "nothing"},
		{"error-response-add", addOp, &fakeAPI{add: failAdd(pddErr(apiclient.OpAdd, apiclient.ClassUncertain, "", "", ""))}, false, CodeTransport, "uncertain"},
		{"error-transport-timeout-add", addOp, &fakeAPI{add: failAdd(&apiclient.Error{Provider: "pdd", Op: apiclient.OpAdd, Class: apiclient.ClassUncertain, Sent: true, Timeout: true, Attempts: 1, Err: timeoutErr{}})}, false, CodeTransport, "uncertain"},
		{"error-transport-refused", regOp, &fakeAPI{register: fail(&apiclient.Error{Provider: "pdd", Op: apiclient.OpRegister, Class: apiclient.ClassTemporary, Attempts: 3, Err: errors.New("connection refused")})}, false, CodeTransport, "nothing"},
		{"error-internal", regOp, &fakeAPI{register: fail(errors.New("boom"))}, false, CodeInternal, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sent string
			if tc.op.Action == ActionAddMailbox && tc.api.add == nil {
				tc.api.add = func(_ context.Context, d, l, pw string) (*apiclient.Mailbox, error) {
					sent = pw
					return &apiclient.Mailbox{Address: l + "@" + d, UID: "1130000000000042"}, nil
				}
			}
			obs, logs := observer.New(zapcore.DebugLevel)
			store := &auditStore{}
			c, err := New(tc.api, store, noMessenger{}, Config{Admins: []string{"UADMIN1"}, CredentialsVariable: "PDD_TOKEN"}, zap.New(obs))
			if err != nil {
				t.Fatal(err)
			}
			res := c.runs.run(t.Context(), "UUSER1", []string{"UADMIN1"}, "", tc.op)
			if res.Notice.OK != tc.ok || res.Notice.Code != tc.code || res.Reply.Error == tc.ok {
				t.Errorf("run = notice %+v, reply error %v; want ok %v, code %q", res.Notice, res.Reply.Error, tc.ok, tc.code)
			}
			// An add whose answer was lost is looked up (the fake finds
			// nothing) and sent once more.
			wantCalls := int64(1)
			if tc.op.Action == ActionAddMailbox && tc.fate == "uncertain" {
				wantCalls = 3
			}
			if n := tc.api.calls.Load(); n != wantCalls {
				t.Errorf("run called the API %d times, want %d", n, wantCalls)
			}
			fate := ""
			switch {
			case res.Notice.NothingDone && res.Notice.Uncertain:
				fate = "both"
			case res.Notice.NothingDone:
				fate = "nothing"
			case res.Notice.Uncertain:
				fate = "uncertain"
			}
			if fate != tc.fate {
				t.Errorf("run notice fate = %q (%+v), want %q", fate, res.Notice, tc.fate)
			}
			checkRunEntry(t, store.all(), res.Notice)
			text := res.Reply.PlainText()
			var secrets []string
			for _, f := range res.Reply.Fields {
				if f.Secret {
					secrets = append(secrets, f.Value)
				}
			}
			if sent != "" {
				if len(secrets) != 1 || secrets[0] != sent {
					t.Errorf("reply secrets %q, want exactly the password sent to the API %q", secrets, sent)
				}
				text = strings.ReplaceAll(text, sent, "<password>")
			}
			text = regexp.MustCompile(`ref [a-z2-7]{8}`).ReplaceAllString(text, "ref <ref>")
			summary := res.Notice.Summary(nil)
			assertNoSecret(t, "notice", summary, secrets)
			assertNoSecret(t, "audit entry", fmt.Sprintf("%+v", store.all()), secrets)
			for _, e := range logs.All() {
				b, _ := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()).EncodeEntry(e.Entry, e.Context)
				assertNoSecret(t, "log", b.String(), secrets)
			}
			if logs.Len() == 0 {
				t.Error("run logged nothing, want one line per operation")
			}
			golden(t, "replies/"+tc.name, text+"--- notice\n"+summary+"\n")
		})
	}
}

func assertNoSecret(t *testing.T, where, s string, secrets []string) {
	t.Helper()
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			t.Errorf("%s %q holds the secret %q", where, s, sec)
		}
	}
}

// TestRunRefusesInvalid checks that an operation that does not validate
// never reaches the API, whatever the caller hands run.
// TestRunCredentialsSetting: a refusal of mailbot's credentials asks an
// operator to check the setting the core was told of, or, told of none,
// the credentials in words.
func TestRunCredentialsSetting(t *testing.T) {
	for _, tc := range []struct{ variable, want string }{
		{"PDD_TOKEN_FILE", "ask an operator to check PDD_TOKEN_FILE."},
		{"", "ask an operator to check mailbot's credentials for the PDD API."},
	} {
		refused := pddErr(apiclient.OpRegister, apiclient.ClassCredentials, "", "bad_token", "the PDD token is invalid")
		api := &fakeAPI{register: func(context.Context, string) (*apiclient.Domain, error) { return nil, refused }}
		c, err := New(api, &auditStore{}, noMessenger{}, Config{Admins: []string{"UADMIN1"}, CredentialsVariable: tc.variable}, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		res := c.runs.run(t.Context(), "UADMIN1", nil, "", Operation{Action: ActionRegisterDomain, Domain: "example.com"})
		if text := res.Reply.PlainText(); !strings.Contains(text, tc.want) {
			t.Errorf("CredentialsVariable %q: reply %q, want it to say %q", tc.variable, text, tc.want)
		}
	}
}

func TestRunRefusesInvalid(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	// The store panics if used: an invalid operation is not even recorded.
	c := newCore(t, api, Config{Domains: []string{"example.com"}})
	for _, op := range []Operation{
		{Action: ActionRegisterDomain, Domain: "Example.com"},
		{Action: ActionRegisterDomain, Domain: "example.org"},
		{Action: ActionAddMailbox, Domain: "example.com", Login: "Bad Name"},
		{Action: ActionAddMailbox, Domain: "example.com"},
		{Action: "delete", Domain: "example.com"},
	} {
		res := c.runs.run(t.Context(), "UADMIN1", nil, "", op)
		if !res.Reply.Error || res.Notice.Code != CodeInvalid || !res.Notice.NothingDone {
			t.Errorf("run(%+v) = %+v, want a refusal with code %q that did nothing", op, res, CodeInvalid)
		}
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("the API was called %d times for invalid operations", n)
	}
}

// checkRunEntry checks the one audit entry of a run against its notice:
// begun before the call, completed after with the outcome.
func checkRunEntry(t *testing.T, entries []AuditEntry, n Notice) {
	t.Helper()
	if len(entries) != 1 {
		t.Fatalf("audit entries = %+v, want exactly one", entries)
	}
	e := entries[0]
	want := OutcomeOK
	switch {
	case n.Uncertain:
		want = OutcomeUnknown
	case !n.OK:
		want = OutcomeError
	}
	if e.Event != EventRun || e.Actor != n.Actor || e.Outcome != want || e.Code != n.Code || e.UID != n.UID ||
		e.Status != string(n.Status) || e.Domain != n.Op.Domain || e.Login != n.Op.Login || e.Reason != n.Op.Reason {
		t.Errorf("audit entry = %+v, want a run by %s with outcome %q for notice %+v", e, n.Actor, want, n)
	}
}
