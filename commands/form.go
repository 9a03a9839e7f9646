package commands

import (
	"fmt"
	"strings"
)

// Form is the form a command typed bare opens (docs/commands.md): the same
// fields as the typed command, checked by the same rules.
type Form struct {
	Action  Action
	Command string
	// Domains lists the domains to choose from, when the allow-list
	// names exact domains only; empty: the domain is typed.
	Domains []string
	// DefaultDomain is preselected (or typed in advance); may be empty.
	DefaultDomain string
	// ReasonRequired is set when the operation will need approval.
	ReasonRequired bool
	// OffersFor is set when the form offers a person to hand the
	// credentials over to (add and reset): optional.
	OffersFor bool
	// Metadata is signed: where the command was typed and for which
	// operation. The transport keeps it in the form and hands it back.
	Metadata string
}

// FormValues is what a person submitted in a [Form].
type FormValues struct {
	Domain string
	User   string // add, reset, block, unblock
	Name   string // add only, optional: the person's name
	Reason string
	For    string // the Slack user ID the credentials go to; empty: the requester
}

// The fields of a form, as [Core.SubmitForm] names them in its errors.
const (
	FieldDomain = "domain"
	FieldUser   = "user"
	FieldReason = "reason"
	FieldFor    = "for"
	FieldName   = "name" // add only, optional
)

// maxName bounds the person's name of a new mailbox (Google's limit of a
// given or family name is 60; two of them and a space).
const maxName = 121

// formKind prefixes a form's signed metadata.
const formKind = "f1"

// wireForm is a form's signed metadata.
type wireForm struct {
	Channel string `json:"c,omitempty"`
	Action  Action `json:"a"`
}

// form is the form for action, typed bare by req.UserID in req.ChannelID.
func (c *policyService) form(req Request, action Action) *Form {
	cmd := action.Command()
	outcome, _ := c.access.authorise(req.UserID)
	f := &Form{Action: action, Command: cmd, ReasonRequired: outcome == StepApproval,
		Metadata: c.seal(formKind, wireForm{Channel: req.ChannelID, Action: action})}
	if exact := c.exactDomains(); len(exact) > 0 {
		f.Domains = exact
	}
	if action.OnMailbox() {
		f.DefaultDomain = c.cfg.DefaultDomain
	}
	f.OffersFor = action == ActionAddMailbox || action == ActionResetPassword
	return f
}

// exactDomains returns the allow-list when it names exact domains only.
func (c *policyService) exactDomains() []string {
	for _, d := range c.domains {
		if strings.HasPrefix(d, "*.") {
			return nil
		}
	}
	return c.domains
}

// SubmitForm is [Core.SubmitForm]'s work.
func (c *policyService) SubmitForm(user, metadata string, v FormValues) (d Decision, channel string, errs map[string]string) {
	var w wireForm
	if err := c.unseal(formKind, metadata, &w); err != nil || !w.Action.IsOperation() {
		return Decision{}, "", map[string]string{FieldDomain: "This form is not valid: mailbot cannot read it. Close it and type the command again."}
	}
	op, errs := c.formOperation(w.Action, v)
	outcome, why := c.access.authorise(user, c.access.opDomains(op)...)
	switch {
	case outcome == StepReply:
		errs = addErr(errs, FieldDomain, why)
	case outcome == StepApproval && op.Reason == "":
		errs = addErr(errs, FieldReason, "This operation needs an admin's approval: say why it is needed.")
	}
	if len(errs) > 0 {
		return Decision{}, w.Channel, errs
	}
	if outcome == StepRun {
		return Decision{Step: StepRun, Op: op}, w.Channel, nil
	}
	now := c.now()
	p := &Pending{ID: newID(), Requester: user, Channel: w.Channel, Op: op, Created: now, Expires: now.Add(c.cfg.ApprovalTTL)}
	return Decision{Step: StepApproval, Op: op, Pending: p}, w.Channel, nil
}

// formOperation checks the fields of a form into an operation.
func (c *policyService) formOperation(action Action, v FormValues) (Operation, map[string]string) {
	var errs map[string]string
	op := Operation{Action: action, Reason: cleanReason(v.Reason)}
	d, problem := c.formDomain(action, v.Domain)
	if problem != "" {
		errs = addErr(errs, FieldDomain, problem)
	}
	op.Domain = d
	if action.OnMailbox() {
		login, err := normalizeLogin(action, strings.TrimSpace(v.User))
		if err == nil {
			err = c.checkLogin(d, login)
		}
		if err != nil {
			errs = addErr(errs, FieldUser, fmt.Sprintf("%q is not a valid user name: %v.", trunc(v.User, 40), err))
		}
		op.Login = login
	}
	if v.For != "" {
		op.For = strings.TrimSpace(v.For)
		if ue := checkFor(op); ue != nil {
			errs = addErr(errs, FieldFor, ue.Problem)
		}
	}
	if action == ActionAddMailbox {
		op.Name = trunc(strings.TrimSpace(cleanText(v.Name)), maxName)
	}
	if len(errs) == 0 {
		if ue := c.checkOp(op); ue != nil {
			errs = addErr(errs, FieldDomain, ue.Problem)
		}
	}
	return op, errs
}

// formDomain reads the form's domain field, the default domain for a
// mailbox operation left without one: the domain, or what is wrong with it.
func (c *policyService) formDomain(action Action, field string) (domain, problem string) {
	domain = strings.TrimSpace(field)
	if domain == "" && action.OnMailbox() {
		domain = c.cfg.DefaultDomain
	}
	d, err := domainArg(action.Command(), domain, "")
	switch {
	case domain == "":
		return "", "Give a domain, such as example.com."
	case strings.ContainsAny(domain, " \t"):
		return "", "A domain has no spaces, such as example.com."
	case err != nil:
		return "", problemOf(err)
	}
	return d, ""
}

func addErr(errs map[string]string, field, problem string) map[string]string {
	if errs == nil {
		errs = map[string]string{}
	}
	if _, ok := errs[field]; !ok {
		errs[field] = problem
	}
	return errs
}

// problemOf is the sentence of a usage error.
func problemOf(err error) string {
	if ue, ok := err.(*UsageError); ok {
		return ue.Problem
	}
	return err.Error()
}
