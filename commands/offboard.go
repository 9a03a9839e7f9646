package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/mailbot/mailbot/apiclient"
)

// codeStepNotRecorded is the notice code of an offboarding that stopped,
// after steps that changed something, because its next step could not be
// recorded.
const codeStepNotRecorded = "step_not_recorded"

// errStepNotRecorded stops an offboarding whose next step could not be
// recorded in the audit trail: it does not run.
var errStepNotRecorded = errors.New("commands: an offboarding step could not be recorded")

// offboarding is one run of an offboard operation: its steps, each
// recorded in the audit trail before it runs, and their outcomes.
type offboarding struct {
	c       *aliasService
	n       Notice
	target  *apiclient.Resolved // the mailbox as the resolve step found it
	steps   []string            // the steps run or skipped, with their outcomes
	pending []string            // the steps not run after a failure
	changed bool                // a step changed something at the provider
}

// offboard blocks the mailbox (as block: one blocked or inactive already
// is left as it is) and then, with a successor, moves each of the
// mailbox's aliases to it. A step that fails stops the rest; the result
// lists every step and its outcome, and a second run skips what is done.
// The resolve step has found the mailbox (target) and the successor
// before anything is written.
func (c *aliasService) offboard(ctx context.Context, n Notice, target *apiclient.Resolved) (Result, error) {
	o := &offboarding{c: c, n: n, target: target}
	err := o.run(ctx)
	return o.result(ctx, err), nil
}

func (o *offboarding) run(ctx context.Context) error {
	op := o.n.Op
	var api Aliaser
	if op.To != "" {
		if api = o.c.aliasAPI(op.Domain); api == nil {
			return fmt.Errorf("commands: %s has no aliases", o.n.Provider)
		}
	}
	if err := o.block(ctx); err != nil {
		if api != nil {
			o.pending = append(o.pending, "Move the aliases of "+op.Target()+" to "+op.To)
		}
		return err
	}
	if api == nil {
		return nil
	}
	aliases, err := api.ListAliases(ctx, op.Target())
	if err != nil {
		o.pending = append(o.pending, "Move the aliases of "+op.Target()+" to "+op.To)
		return err
	}
	if len(aliases) == 0 {
		o.steps = append(o.steps, "Move the aliases of "+op.Target()+" to "+op.To+": skipped, none delivers to "+op.Target()+" (any moved before are with their new mailbox)")
	}
	for i, a := range aliases {
		if err := o.move(ctx, api, a); err != nil {
			for _, rest := range aliases[i+1:] {
				o.pending = append(o.pending, "Move alias "+rest+" to "+op.To)
			}
			return err
		}
	}
	return nil
}

// state is the mailbox as the resolve step found it, else as read now.
func (o *offboarding) state(ctx context.Context) (*apiclient.Mailbox, error) {
	if o.target != nil {
		return &o.target.Mailbox, nil
	}
	return o.c.of(o.n).LookupMailbox(ctx, o.n.Op.Domain, o.n.Op.Login)
}

// block is the first step: the mailbox's logins stop, unless they have.
func (o *offboarding) block(ctx context.Context) error {
	op := o.n.Op
	label := "Block " + op.Target()
	id, e, err := o.begin(ctx, ActionBlock, op.Login, op.Domain, "")
	if err != nil {
		o.pending = append(o.pending, label)
		return err
	}
	m, err := o.state(ctx)
	if err == nil && (m.State == apiclient.StateBlocked || m.State == apiclient.StateInactive) {
		o.done(ctx, id, e, label+": skipped, it was "+stateWords(m.State)+" already", "already "+string(m.State), nil)
		return nil
	}
	if err == nil {
		m, err = o.c.of(o.n).SetLoginEnabled(ctx, op.Domain, op.Login, false)
	}
	if err != nil {
		return o.fail(ctx, id, e, label, err)
	}
	o.changed = true
	o.done(ctx, id, e, label+": "+stateWords(m.State), string(m.State), m.Warnings)
	return nil
}

// move is a step that gives one alias to the successor.
func (o *offboarding) move(ctx context.Context, api Aliaser, alias string) error {
	op := o.n.Op
	label := "Move alias " + alias + " to " + op.To
	login, domain, _ := cutAddress(alias)
	id, e, err := o.begin(ctx, ActionAliasMove, login, domain, op.To)
	if err != nil {
		o.pending = append(o.pending, label)
		return err
	}
	a, err := api.MoveAlias(ctx, alias, op.Target(), op.To)
	switch {
	case err != nil:
		return o.fail(ctx, id, e, label, err)
	case a.Already:
		o.done(ctx, id, e, label+": skipped, it delivers there already", "already", a.Warnings)
	default:
		o.changed = true
		o.done(ctx, id, e, label+": moved", "moved", a.Warnings)
	}
	return nil
}

// begin records a step in the audit trail before it runs.
func (o *offboarding) begin(ctx context.Context, action Action, login, domain, to string) (int64, AuditEntry, error) {
	n := o.n
	e := o.c.entry(EventRun, n.RequestID, n.Actor, action, domain, login)
	e.Deciders, e.Provider, e.Reason, e.To = n.Approvers, n.Provider, n.Op.Reason, to
	id, err := o.c.begin(ctx, e)
	if err != nil {
		return 0, e, errStepNotRecorded
	}
	return id, e, nil
}

// done records a step that succeeded (or was skipped) and its outcome.
func (o *offboarding) done(ctx context.Context, id int64, e AuditEntry, step, status string, warnings []string) {
	for _, w := range warnings {
		step += " (warning from the provider: " + w + ")"
	}
	o.steps = append(o.steps, step)
	o.c.complete(ctx, id, e, Notice{OK: true, Status: status})
}

// fail records a step that failed, says why, and returns its error.
func (o *offboarding) fail(ctx context.Context, id int64, e AuditEntry, label string, err error) error {
	f := o.c.failure(Notice{Op: o.n.Op}, err)
	o.c.complete(ctx, id, e, f.Notice)
	o.steps = append(o.steps, label+": failed: "+f.Reply.Text)
	return err
}

// result describes the offboarding: every step with its outcome, and on
// a failure what was done and what was not.
func (o *offboarding) result(ctx context.Context, err error) Result {
	n := o.n
	n.Steps = append([]string{}, o.steps...)
	for _, p := range o.pending {
		n.Steps = append(n.Steps, p+": not done")
	}
	if err == nil {
		n.OK = true
		r := Reply{Title: "Mailbox " + n.Op.Target() + " offboarded", Fields: []Field{{Label: "Mailbox", Value: n.Op.Target()}}, Steps: n.Steps}
		if n.Op.To != "" {
			r.Fields = append(r.Fields, Field{Label: "Successor", Value: n.Op.To})
		}
		r.Text = o.c.mailboxes.loginText(o.c.of(o.n), false)
		if !o.changed {
			r.Text = "Nothing was left to do: every step was done already."
		}
		return Result{Reply: r, Notice: n}
	}
	if errors.Is(err, errStepNotRecorded) {
		r := replyStoreDown
		r.Steps = n.Steps
		n.Code, n.Detail, n.NothingDone = CodeStore, codeWords[CodeStore], !o.changed
		if o.changed { // the steps done are noticed: the code is not the store's "nothing was done"
			n.Code, n.Detail = codeStepNotRecorded, "mailbot could not record the next step in its database, so it stopped there"
			r.Text = n.Detail + "."
		}
		return Result{Reply: r, Notice: n}
	}
	res := cutOff(ctx, o.c.failure(n, err))
	res.Notice.NothingDone = res.Notice.NothingDone && !o.changed
	res.Reply.Steps = n.Steps
	res.Reply.Note = "The steps above say what was done and what was not. Run the same offboarding again to finish it: steps already done are skipped."
	return res
}
