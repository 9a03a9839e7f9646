package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
)

// Notice codes for failures that carry no PDD error code.
const (
	CodeTransport = "transport" // no answer from the API
	CodeResponse  = "response"  // an answer that is not a PDD answer
	CodeInternal  = "internal"  // a bug or an unexpected error: see the log
	CodeInvalid   = "invalid"   // the operation did not validate; nothing was sent
)

// Run executes op for actor (and approver, when approved; may be empty):
// it generates the password when needed, calls the API, and describes the
// result. Every API and transport error becomes words in Reply. An
// operation that does not validate is refused without calling the API.
func (c *Core) Run(ctx context.Context, actor, approver string, op Operation) Result {
	n := Notice{Actor: actor, Approver: approver, Op: op}
	if ue := c.checkOp(op); ue != nil {
		n.Code = CodeInvalid
		return Result{Reply: usageReply(ue), Notice: n}
	}
	var res Result
	var err error
	if op.Action == ActionRegisterDomain {
		res, err = c.register(ctx, n)
	} else {
		res, err = c.addMailbox(ctx, n)
	}
	if err != nil {
		res = c.failure(n, err)
	}
	c.logResult(res.Notice, err)
	return res
}

func (c *Core) register(ctx context.Context, n Notice) (Result, error) {
	d, err := c.api.RegisterDomain(ctx, n.Op.Domain)
	if err != nil {
		return Result{}, err
	}
	n.OK, n.Status = true, d.Status
	return Result{Reply: registerReply(n.Op.Domain, d), Notice: n}, nil
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
		apiErr   *apiclient.Error
		respErr  *apiclient.ResponseError
		transErr *apiclient.TransportError
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
		if add {
			r.Note = "The request reached the API, so the mailbox may exist now: check before you try again."
		}
	case errors.As(err, &transErr):
		n.Code = CodeTransport
		r.Text = "The PDD API did not answer: the connection failed."
		if transErr.Timeout() {
			r.Text = "The PDD API did not answer in time."
		}
		r.Note = "Try again later."
		if add && transErr.Sent {
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
	return Result{Reply: r, Notice: n}
}

// advice says what to do about a PDD error code.
func advice(e *apiclient.Error) string {
	switch e.Code {
	case apiclient.CodeUnknown:
		return fmt.Sprintf("mailbot tried %d times. Try again later.", max(e.Attempts, 1))
	case apiclient.CodeBadToken, apiclient.CodeBadLogin, apiclient.CodeBadPasswd, apiclient.CodeNoAuth:
		return "The PDD token mailbot uses is not accepted: ask an operator to check PDD_TOKEN."
	case apiclient.CodeNotAllowed:
		return "The PDD account mailbot uses does not administer this domain."
	case apiclient.CodeOccupied:
		if e.Op == apiclient.OpAddMailbox {
			return "Choose another user name."
		}
		return "Another account has connected this domain."
	case apiclient.CodeLoginReserved:
		return "Choose another user name."
	}
	if !e.Code.Known() {
		return "mailbot does not know this code; it is shown as the API sent it."
	}
	return ""
}

// logResult logs an executed operation; never a secret. Successes are
// logged at debug level: the transport (bot, shell) logs the one info line
// per operation with its own context (envelope, duration). Failures are
// logged here at warn level, once, with the error's detail.
func (c *Core) logResult(n Notice, err error) {
	fields := []zap.Field{
		zap.String("action", string(n.Op.Action)), zap.String("target", n.Op.Target()),
		zap.String("actor", n.Actor), zap.Bool("ok", n.OK),
	}
	if n.Approver != "" {
		fields = append(fields, zap.String("approver", n.Approver))
	}
	switch {
	case n.OK && n.Op.Action == ActionRegisterDomain:
		c.logger.Debug("operation", append(fields, zap.String("status", string(n.Status)))...)
	case n.OK:
		c.logger.Debug("operation", append(fields, zap.Int64("uid", n.UID))...)
	case err != nil:
		c.logger.Warn("operation", append(fields, zap.String("code", n.Code), zap.Error(err))...)
	default:
		c.logger.Warn("operation", append(fields, zap.String("code", n.Code))...)
	}
}
