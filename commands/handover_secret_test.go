package commands

import (
	"context"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// resetting is the fake provider whose SetPassword succeeds, or answers
// err.
type resetting struct {
	*fakeAPI
	err error
}

func (r resetting) SetPassword(context.Context, string, string, string, bool) (*apiclient.Mailbox, error) {
	return &apiclient.Mailbox{}, r.err
}

// TestHandedOverPasswordNeverInTheReply: the run of an operation whose
// credentials go to someone else (Op.For) never writes the password it
// sets into its reply, so there is nothing to take out again; a run for
// the reader (a hand-over's own Show my password) does.
func TestHandedOverPasswordNeverInTheReply(t *testing.T) {
	t.Parallel()
	lost := pddErr(apiclient.OpReset, apiclient.ClassUncertain, "", "", "no answer")
	for _, tc := range []struct {
		name string
		api  Provider
		run  func(c *Core, n Notice) (Result, error)
	}{
		{"add", &fakeAPI{}, func(c *Core, n Notice) (Result, error) { return c.mailboxes.addMailbox(t.Context(), n) }},
		{"reset", resetting{fakeAPI: &fakeAPI{}}, func(c *Core, n Notice) (Result, error) { return c.mailboxes.setPassword(t.Context(), n) }},
		{"reset without an answer", resetting{fakeAPI: &fakeAPI{}, err: lost},
			func(c *Core, n Notice) (Result, error) { return c.mailboxes.setPassword(t.Context(), n) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t, tc.api, Config{})
			for _, forWhom := range []string{"UADA", ""} {
				n := Notice{Actor: "UADMIN1", Op: Operation{Action: ActionAddMailbox, Domain: "example.com", Login: "ada", For: forWhom}}
				res, err := tc.run(c, n)
				if err != nil {
					t.Fatal(err)
				}
				secrets := 0
				for _, f := range res.Reply.Fields {
					if f.Secret {
						secrets++
					}
				}
				if want := map[bool]int{true: 0, false: 1}[forWhom != ""]; secrets != want {
					t.Errorf("for %q: the reply has %d secret fields, want %d: %+v", forWhom, secrets, want, res.Reply.Fields)
				}
			}
		})
	}
}
