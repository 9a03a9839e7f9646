// What to do after a failure: the advice a failed operation's reply
// gives, in words.

package commands

import (
	"fmt"

	"github.com/mailbot/mailbot/apiclient"
)

// uncertainAdvice says what to do after an operation that may or may not
// have happened.
func uncertainAdvice(op Operation) string {
	switch op.Action {
	case ActionAddMailbox:
		return "mailbot could not find out whether the mailbox was created, so it may exist now: check before you try again."
	case ActionRegisterDomain:
		return "Check before you try again; trying again is harmless for a domain."
	}
	return "Trying again is harmless: it sets the same state."
}

// advice says what to do about a failure of p, op's provider.
func (c *shared) advice(p Provider, op Operation, e *apiclient.Error) string {
	switch e.Class {
	case apiclient.ClassTemporary:
		if e.Attempts <= 1 {
			return "Nothing was done. Try again later."
		}
		return fmt.Sprintf("Nothing was done; mailbot tried %d times. Try again later.", e.Attempts)
	case apiclient.ClassUncertain:
		return uncertainAdvice(op)
	case apiclient.ClassCredentials:
		return "The credentials mailbot uses are not accepted: ask an operator to check " + c.credentialsSetting(p, e) + "."
	}
	switch e.Reason {
	case apiclient.ReasonNotAllowed:
		return "The account mailbot uses does not administer this domain."
	case apiclient.ReasonExists:
		if op.Action == ActionAddMailbox {
			return "Choose another user name."
		}
		return "Nothing was done. /maildomain status " + op.Domain + " shows whether this account has it."
	case apiclient.ReasonNotFound:
		return "Check the name: " + p.Capabilities().Title + " does not know it."
	case apiclient.ReasonPassword:
		return "Nothing was done. The provider's password rules are stricter than mailbot's: ask an operator to raise MAILBOT_PASSWORD_LENGTH."
	}
	return "Nothing was done."
}

// credentialsSetting names what an operator checks when the provider
// refuses mailbot's credentials: the setting the adapter named
// (apiclient.Error.Setting: Google's admin rather than its key), else
// the variable Config.CredentialsVariables names for p (the default
// provider's: Config.CredentialsVariable), or, without one, the
// credentials in words.
func (c *shared) credentialsSetting(p Provider, e *apiclient.Error) string {
	if e != nil && e.Setting != "" {
		return e.Setting
	}
	v := c.cfg.CredentialsVariables[p.Name()]
	if v == "" && p == c.router.Default() {
		v = c.cfg.CredentialsVariable
	}
	if v == "" {
		return "mailbot's credentials for " + p.Capabilities().Title
	}
	return v
}
