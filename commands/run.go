package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient/pdd"
)

// Notice codes for failures that carry no PDD error code.
const (
	CodeTransport = "transport" // no answer from the API
	CodeResponse  = "response"  // an answer that is not a PDD answer
	CodeInternal  = "internal"  // a bug or an unexpected error: see the log
	CodeInvalid   = "invalid"   // the operation did not validate; nothing was sent
)

// CodeStore is the notice code of an operation that was not run because
// it could not be recorded in the database.
const CodeStore = "store"

// run executes op for actor (approved by deciders, for request reqID; both
// empty for a direct operation): it records the operation in the audit
// trail, generates the password when needed, calls the API, records the
// outcome and describes the result. An operation that does not validate,
// or that cannot be recorded, is refused without calling the API. It logs
// the one line of the operation.
func (c *Core) run(ctx context.Context, actor string, deciders []string, reqID string, op Operation) Result {
	n := Notice{Actor: actor, Approvers: deciders, Op: op}
	if ue := c.checkOp(op); ue != nil {
		n.Code, n.NothingDone = CodeInvalid, true
		return Result{Reply: usageReply(ue), Notice: n}
	}
	e := AuditEntry{Time: c.cfg.Now().UTC(), RequestID: reqID, Event: EventRun, Actor: actor, Deciders: deciders,
		Action: op.Action, Domain: op.Domain, Login: op.Login, Reason: op.Reason}
	id, err := c.store.Begin(ctx, e)
	if c.storeFailed(err, "begin") {
		n.Code, n.NothingDone = CodeStore, true
		c.logResult(n, err)
		return Result{Reply: replyStoreDown, Notice: n}
	}
	var res Result
	if op.Action == ActionRegisterDomain {
		res, err = c.register(ctx, n)
	} else {
		res, err = c.addMailbox(ctx, n)
	}
	if err != nil {
		res = cutOff(ctx, c.failure(n, err))
	}
	c.complete(ctx, id, e, res.Notice)
	c.logResult(res.Notice, err)
	return res
}

// complete records the outcome of the audit entry id.
func (c *Core) complete(ctx context.Context, id int64, e AuditEntry, n Notice) {
	e.Outcome, e.Status, e.Stage, e.UID, e.Code = OutcomeOK, string(n.Status), string(n.Stage), n.UID, n.Code
	switch {
	case n.Uncertain:
		e.Outcome = OutcomeUnknown
	case !n.OK:
		e.Outcome = OutcomeError
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	if err := c.store.Complete(ectx, id, e); err != nil {
		c.logger.Error("audit entry not completed", zap.Int64("audit_id", id), zap.Error(err))
	}
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

func (c *Core) register(ctx context.Context, n Notice) (Result, error) {
	d, err := c.api.RegisterDomain(ctx, n.Op.Domain)
	if err != nil {
		return Result{}, err
	}
	n.OK, n.Status, n.Stage = true, d.Status, d.Stage
	return Result{Reply: c.registerReply(n.Op.Domain, d), Notice: n}, nil
}

func (c *Core) addMailbox(ctx context.Context, n Notice) (Result, error) {
	pw, err := c.newPassword(n.Op.Login, n.Op.Domain)
	if err != nil {
		return Result{}, err
	}
	m, err := c.api.AddMailbox(ctx, n.Op.Domain, n.Op.Login, pw)
	if err != nil {
		return Result{}, err
	}
	n.OK, n.UID = true, m.UID
	return Result{Reply: addReply(n.Op, pw, m.UID), Notice: n}, nil
}

func addReply(op Operation, pw string, uid int64) Reply {
	return Reply{
		Title: "Mailbox " + op.Target() + " created",
		Fields: []Field{
			{Label: "Address", Value: op.Target()},
			{Label: "Password", Value: pw, Secret: true},
			{Label: "UID", Value: strconv.FormatInt(uid, 10)},
		},
		Note: "Only you can see this password. Pass it on privately: mailbot does not keep it.",
	}
}

// failure describes err in words, for the requester and for the notice.
func (c *Core) failure(n Notice, err error) Result {
	var (
		apiErr   *pdd.Error
		respErr  *pdd.ResponseError
		transErr *pdd.TransportError
	)
	r := Reply{Title: "Could not " + n.Op.String(), Error: true}
	add := n.Op.Action == ActionAddMailbox
	switch {
	case errors.As(err, &apiErr):
		n.Code = string(apiErr.Code)
		r.Text = fmt.Sprintf("The PDD API answered %s: %s.", apiErr.Code, apiErr.Meaning())
		r.Note = advice(apiErr)
	case errors.As(err, &respErr):
		n.Code = CodeResponse
		r.Text = fmt.Sprintf("The PDD API gave an answer mailbot cannot read (HTTP %d: %s).", respErr.StatusCode, respErr.Reason)
		r.Note = "Try again later."
		if add && pdd.MayHaveHappened(err) {
			r.Note = "The request reached the API, so the mailbox may exist now: check before you try again."
		}
	case errors.As(err, &transErr):
		n.Code = CodeTransport
		r.Text = "The PDD API did not answer: the connection failed."
		if transErr.Timeout() {
			r.Text = "The PDD API did not answer in time."
		}
		r.Note = "Try again later."
		if add && pdd.MayHaveHappened(err) {
			r.Note = "The request was sent, so the mailbox may exist now: check before you try again."
		}
	default:
		ref := newID()[:8]
		n.Code = CodeInternal
		r.Text = "Internal error, ref " + ref + "."
		r.Note = "Tell the mailbot operators the ref; nothing more is known here."
		c.logger.Error("internal error", zap.String("ref", ref), zap.String("action", string(n.Op.Action)),
			zap.String("target", n.Op.Target()), zap.Error(err))
	}
	n.NothingDone, n.Uncertain = pdd.NothingDone(err), pdd.MayHaveHappened(err)
	return Result{Reply: r, Notice: n}
}

// cutOff rewords the failure of an operation that mailbot's own stop cut
// off (interface §9): it may or may not have happened.
func cutOff(ctx context.Context, res Result) Result {
	if ctx.Err() == nil || res.Notice.OK || res.Notice.NothingDone {
		return res
	}
	res.Notice.Uncertain = true
	res.Reply.Text = "mailbot stopped before the PDD API answered: the operation may or may not have happened."
	res.Reply.Note = "Check before you try again; trying again is harmless for a domain."
	if res.Notice.Op.Action == ActionAddMailbox {
		res.Reply.Note = "The mailbox may exist now: check before you try again."
	}
	return res
}

// advice says what to do about a PDD error code.
func advice(e *pdd.Error) string {
	switch e.Code {
	case pdd.CodeUnknown:
		return fmt.Sprintf("mailbot tried %d times. Try again later.", max(e.Attempts, 1))
	case pdd.CodeBadToken, pdd.CodeBadLogin, pdd.CodeBadPasswd, pdd.CodeNoAuth:
		return "The PDD token mailbot uses is not accepted: ask an operator to check PDD_TOKEN."
	case pdd.CodeNotAllowed:
		return "The PDD account mailbot uses does not administer this domain."
	case pdd.CodeOccupied:
		if e.Op == pdd.OpAddMailbox {
			return "Choose another user name."
		}
		return "Another account has connected this domain."
	case pdd.CodeLoginReserved:
		return "Choose another user name."
	}
	if !e.Code.Known() {
		return "mailbot does not know this code; it is shown as the API sent it."
	}
	return ""
}

// logResult logs an executed operation, the one line per operation
// (the core owns it; transports do not log operations); never a secret.
// Successes are logged at info level, failures at warn, with the error's
// detail.
func (c *Core) logResult(n Notice, err error) {
	fields := []zap.Field{
		zap.String("action", string(n.Op.Action)), zap.String("target", n.Op.Target()),
		zap.String("actor", n.Actor), zap.Bool("ok", n.OK),
	}
	if len(n.Approvers) > 0 {
		fields = append(fields, zap.Strings("approvers", n.Approvers))
	}
	switch {
	case n.OK && n.Op.Action == ActionRegisterDomain:
		c.logger.Info("operation", append(fields, zap.String("status", string(n.Status)))...)
	case n.OK:
		c.logger.Info("operation", append(fields, zap.Int64("uid", n.UID))...)
	case err != nil:
		c.logger.Warn("operation", append(fields, zap.String("code", n.Code), zap.Error(err))...)
	default:
		c.logger.Warn("operation", append(fields, zap.String("code", n.Code))...)
	}
}
