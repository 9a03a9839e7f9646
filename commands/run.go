package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
)

// Notice codes for failures that carry no code of the provider's.
const (
	CodeTransport   = "transport"   // no answer from the provider
	CodeResponse    = "response"    // an answer that mailbot cannot read
	CodeInternal    = "internal"    // a bug or an unexpected error: see the log
	CodeInvalid     = "invalid"     // the operation did not validate; nothing was sent
	CodeStore       = "store"       // not run: it could not be recorded in the database
	CodeCredentials = "credentials" // the provider refused mailbot's credentials
	CodeUnchanged   = "unchanged"   // a success that changed nothing: the target already was as asked
)

// codeWords say what the core's own codes mean.
var codeWords = map[string]string{
	CodeInternal:    "an internal error, see the log",
	CodeInvalid:     "the operation did not validate; nothing was sent",
	CodeStore:       "mailbot cannot reach its database; nothing was done",
	CodeCredentials: "the provider refused mailbot's credentials",
}

// run executes op for actor (approved by deciders, for request reqID; both
// empty for a direct operation): it records the operation in the audit
// trail, generates the password when needed, calls the API, records the
// outcome and describes the result. An operation that does not validate,
// or that cannot be recorded, is refused without calling the API. It logs
// the one line of the operation.
func (c *runService) run(ctx context.Context, actor string, deciders []string, reqID string, op Operation) Result {
	n := Notice{Actor: actor, Approvers: deciders, Op: op, HandedTo: op.For, RequestID: reqID}
	if ue := c.policy.checkOp(op); ue != nil {
		n.Code, n.NothingDone, n.Provider = CodeInvalid, true, c.nameAt(op.Domain)
		return Result{Reply: usageReply(ue), Notice: n}
	}
	r, err := c.resolve(ctx, op) // the provider of op's domain, and the mailbox it names
	n.Provider, n.ProviderTitle = r.p.Name(), r.p.Capabilities().Title
	if err != nil || r.refusal != nil {
		return c.refusedTarget(n, r, err)
	}
	op, n.Op = r.op, r.op
	if res, refused := c.handovers.refuseHandover(ctx, n); refused {
		return res
	}
	e := c.entry(runEvent(op), reqID, actor, op.Action, op.Domain, op.Login)
	e.Deciders, e.Provider, e.Reason, e.HandedTo, e.To = deciders, n.Provider, op.Reason, op.For, op.To
	target := r.mailbox
	res, begun, err := c.runWrite(ctx, write{entry: e, notice: n, cut: true,
		perform: func(ctx context.Context, n Notice) (Result, error) { return c.perform(ctx, n, target) }})
	if !begun {
		n.Code, n.NothingDone = CodeStore, true
		c.logResult(n, err)
		return Result{Reply: replyStoreDown, Notice: n}
	}
	c.handovers.voidHandovers(ctx, res.Notice)
	if op.For != "" {
		res = c.handovers.handOver(ctx, res, reqID, "")
	}
	return res
}

// runNow runs op for to.User without approval, answers them, and tells the
// ops channel (the notice after prefix) unless nothing reached the
// provider. It returns the metrics label.
func (c *runService) runNow(ctx context.Context, to Route, op Operation, prefix string) string {
	res := c.run(ctx, to.User, nil, "", op)
	c.deliverResult(ctx, to, res)
	if res.Notice.Code != CodeStore && res.Notice.Code != CodeInvalid {
		c.notify(ctx, prefix+res.Notice.Summary(c.cfg.Mention))
	}
	return res.label()
}

// label is the metrics label of a result.
func (r Result) label() string {
	if r.Notice.OK {
		return LabelOK
	}
	if r.Notice.Code == CodeStore {
		return LabelStoreDown
	}
	return LabelError
}

// perform carries out n's operation on the provider; target is the
// mailbox the resolve step found for it, if any.
func (c *runService) perform(ctx context.Context, n Notice, target *apiclient.Resolved) (Result, error) {
	switch n.Op.Action {
	case ActionRegisterDomain:
		return c.mailboxes.register(ctx, n)
	case ActionAddMailbox:
		return c.mailboxes.addMailbox(ctx, n)
	case ActionResetPassword:
		return c.mailboxes.resetPassword(ctx, n, target)
	case ActionBlock, ActionUnblock:
		return c.mailboxes.setLogin(ctx, n, target)
	case ActionAliasAdd, ActionAliasRemove:
		return c.aliases.changeAlias(ctx, n)
	case ActionOffboard:
		return c.aliases.offboard(ctx, n, target)
	}
	return Result{}, fmt.Errorf("commands: no way to run %q", n.Op.Action)
}

func (c *mailboxService) register(ctx context.Context, n Notice) (Result, error) {
	p := c.of(n)
	if p.Capabilities().RegisterAnswersAsNew {
		// Only a domain the account does not hold is registered: a status
		// read that finds it, or fails otherwise, ends here.
		had, err := p.DomainStatus(ctx, n.Op.Domain)
		if err == nil {
			return c.registeredAlready(ctx, n, had), nil
		}
		if apiclient.ReasonOf(err) != apiclient.ReasonNotFound {
			return Result{}, err
		}
	}
	d, err := p.RegisterDomain(ctx, n.Op.Domain)
	if d := c.domainHad(ctx, n.Op.Domain, apiclient.ReasonOf(err) == apiclient.ReasonExists); d != nil {
		return c.registeredAlready(ctx, n, d), nil
	}
	if err != nil {
		return Result{}, err
	}
	if d.Existed {
		return c.registeredAlready(ctx, n, d), nil
	}
	n.OK, n.Status, n.Stage, n.Warnings = true, d.Status, d.Stage, d.Warnings
	return Result{Reply: c.registerReply(ctx, n.Op.Domain, d), Notice: n}, nil
}

// addMailbox creates the mailbox with a new password. An add whose answer
// was lost is never sent again blindly: the mailbox is looked up first.
// Found, it exists, with the password that request sent; not found, it is
// created as usual; the look-up failing too, the result says it may exist.
func (c *mailboxService) addMailbox(ctx context.Context, n Notice) (Result, error) {
	if refused, err := c.checkNewAddress(ctx, &n); refused != nil || err != nil {
		return deref(refused), err
	}
	pw, err := c.newPassword(n.Op.Login, n.Op.Domain)
	if err != nil {
		return Result{}, err
	}
	force := c.cfg.ForcePasswordChange
	m, err := c.add(ctx, c.of(n), n.Op, pw, force)
	if apiclient.MayHaveHappened(err) && ctx.Err() == nil {
		m, err = c.afterLostAdd(ctx, n, pw, force, err)
	}
	if err != nil {
		return Result{}, err
	}
	if c.of(n).Capabilities().OwnAddresses {
		n.Op = ownAddress(n.Op, m)
	}
	n.OK, n.UID, n.Warnings = true, m.UID, m.Warnings
	return Result{Reply: c.passwordReply(n, pw, m), Notice: n}, nil
}

// add creates op's mailbox at p, with op's name where one was given and
// p keeps names.
func (c *mailboxService) add(ctx context.Context, p Provider, op Operation, pw string, force bool) (*apiclient.Mailbox, error) {
	name := op.Person
	if name == (apiclient.PersonName{}) {
		name = apiclient.NameOf(op.Name)
	}
	if na, ok := p.(NamedAdder); ok && name.Full() != "" {
		return na.AddNamedMailbox(ctx, op.Domain, op.Login, name, pw, force)
	}
	return p.AddMailbox(ctx, op.Domain, op.Login, pw, force)
}

// afterLostAdd looks up a mailbox whose add got no usable answer (lost
// is that add's error).
func (c *mailboxService) afterLostAdd(ctx context.Context, n Notice, pw string, force bool, lost error) (*apiclient.Mailbox, error) {
	p := c.of(n)
	m, err := p.LookupMailbox(ctx, n.Op.Domain, n.Op.Login)
	switch {
	case err == nil:
		c.logger.Info("a lost add's mailbox exists", zap.String("target", n.Op.Target()))
		m.PasswordChangeRequired = m.PasswordChangeRequired || force && p.Capabilities().ForcePasswordChange
		return m, nil
	case apiclient.ReasonOf(err) == apiclient.ReasonNotFound:
		return c.add(ctx, p, n.Op, pw, force)
	}
	c.logger.Warn("a lost add's mailbox could not be looked up", zap.String("target", n.Op.Target()), zap.Error(err))
	return nil, lost
}

// passwordReply gives the requester the new mailbox's password (and uid,
// where the provider has one), and says whether it must be changed at
// the first login.
func (c *mailboxService) passwordReply(n Notice, pw string, m *apiclient.Mailbox) Reply {
	r := Reply{
		Title:  "Mailbox " + n.Op.Target() + " created",
		Fields: credentials(n, pw),
		Note:   "Only you can see this password. Pass it on privately: mailbot does not keep it.",
	}
	if m.UID != "" {
		r.Fields = append(r.Fields, Field{Label: "UID", Value: m.UID})
	}
	r.Note += c.forceNote(n, m)
	r.Steps = append(r.Steps, warningSteps(n.Warnings)...)
	return r
}

// forceNote says whether the password must be changed at the next login,
// when the operator asked for that (n's provider may not require it).
func (c *mailboxService) forceNote(n Notice, m *apiclient.Mailbox) string {
	switch {
	case !c.cfg.ForcePasswordChange:
		return ""
	case m.PasswordChangeRequired:
		return " It must be changed at the first login."
	}
	return " " + capitalise(c.titleOf(n)) + " cannot require it to be changed at the first login: ask its owner to change it."
}

// warningSteps shows a partial success's warnings.
func warningSteps(ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, "Warning from the provider: "+w)
	}
	return out
}

// failure describes err in words, for the requester and for the notice.
func (c *shared) failure(n Notice, err error) Result {
	r := Reply{Title: "Could not " + n.Op.String(), Error: true}
	var e *apiclient.Error
	if !errors.As(err, &e) {
		ref := newID()[:8]
		n.Code, n.Detail = CodeInternal, codeWords[CodeInternal]
		r.Text = "Internal error, ref " + ref + "."
		r.Note = "Tell the mailbot operators the ref; nothing more is known here."
		c.logger.Error("internal error", zap.String("ref", ref), zap.String("action", string(n.Op.Action)),
			zap.String("target", n.Op.Target()), zap.Error(err))
		return Result{Reply: r, Notice: n}
	}
	who := capitalise(c.titleOf(n))
	n.Code, n.Detail = e.Code, e.Message
	switch {
	case e.Code != "":
		r.Text = answerText(who, e)
	case e.Class == apiclient.ClassRefused:
		// The adapter refused from what the provider holds, with no code
		// of the provider's (Yandex 360: no such user in the organisation).
		n.Code, n.Detail = refusalCode(e), providerWords(e)
		r.Text = answerText(who, e)
	case e.Class == apiclient.ClassCredentials:
		n.Code, n.Detail = CodeCredentials, codeWords[CodeCredentials]
		r.Text = who + " refused mailbot's credentials."
	case e.Timeout:
		n.Code, n.Detail = CodeTransport, "no answer in time"
		r.Text = who + " did not answer in time."
	case e.HTTPStatus != 0:
		n.Code, n.Detail = CodeResponse, ""
		r.Text = fmt.Sprintf("%s gave an answer mailbot cannot read (HTTP %d).", who, e.HTTPStatus)
	default:
		n.Code, n.Detail = CodeTransport, ""
		r.Text = who + " did not answer: the connection failed."
	}
	r.Note = c.advice(c.of(n), n.Op, e)
	n.NothingDone, n.Uncertain = e.Class == apiclient.ClassTemporary, e.Class == apiclient.ClassUncertain
	return Result{Reply: r, Notice: n}
}

// answerText says in words what the provider (who) answered: its code
// and what it means, or, for a refusal without a code of the
// provider's, what it means.
func answerText(who string, e *apiclient.Error) string {
	if e.Code == "" {
		return sentence(who + ": " + providerWords(e))
	}
	return sentence(who + " answered " + e.Code + ": " + providerWords(e))
}

// sentence is s ended with a full stop, unless it ends a sentence already
// (a provider's message often does).
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// providerWords is what e means in words, never empty.
func providerWords(e *apiclient.Error) string {
	if e.Message == "" {
		return apiclient.UnknownCode
	}
	return e.Message
}

// refusalCode is the audit's code of a refusal without a provider's code:
// its reason ("not_found"), or "refused".
func refusalCode(e *apiclient.Error) string {
	if e.Reason == "" {
		return apiclient.ClassRefused.String()
	}
	return string(e.Reason)
}

// cutOff rewords the failure of an operation that mailbot's own stop cut
// off: it may or may not have happened.
func cutOff(ctx context.Context, res Result) Result {
	if ctx.Err() == nil || res.Notice.OK || res.Notice.NothingDone {
		return res
	}
	res.Notice.Uncertain = true
	res.Reply.Text = "mailbot stopped before the provider answered: the operation may or may not have happened."
	res.Reply.Note = uncertainAdvice(res.Notice.Op)
	return res
}

// capitalise makes the first letter of s upper case ("the PDD API" →
// "The PDD API").
func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// logResult logs an executed operation, the one line per operation
// (the core owns it; transports do not log operations); never a secret.
// Successes are logged at info level, failures at warn, with the error's
// detail.
func (c *shared) logResult(n Notice, err error) {
	fields := make([]zap.Field, 4, 7) // room for the approvers, one more and the error
	fields[0], fields[1] = zap.String("action", string(n.Op.Action)), zap.String("target", n.Op.Target())
	fields[2], fields[3] = zap.String("actor", n.Actor), zap.Bool("ok", n.OK)
	if len(n.Approvers) > 0 {
		fields = append(fields, zap.Strings("approvers", n.Approvers))
	}
	switch {
	case n.OK && n.Op.Action == ActionRegisterDomain:
		c.logger.Info("operation", append(fields, zap.String("status", n.Status))...)
	case n.OK:
		c.logger.Info("operation", append(fields, zap.String("uid", n.UID))...)
	case err != nil:
		c.logger.Warn("operation", append(fields, zap.String("code", n.Code), zap.Error(err))...)
	default:
		c.logger.Warn("operation", append(fields, zap.String("code", n.Code))...)
	}
}
