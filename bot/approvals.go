package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// The approval request's actions block and buttons.
const (
	approvalBlockID = "mailbot_approval"
	actionApprove   = "approve"
	actionDeny      = "deny"
)

// requestApproval posts the approval request to the ops channel and tells
// the requester where it waits. Nothing reaches the PDD API.
func (b *Bot) requestApproval(ctx context.Context, cmd slack.SlashCommand, d commands.Decision, log *zap.Logger) {
	p := *d.Pending
	value := b.core.EncodePending(p)
	_, err := withRateLimit(ctx, func() (string, error) {
		_, ts, err := b.api.PostMessageContext(ctx, b.cfg.OpsChannel,
			slack.MsgOptionText(escape("Approval requested: "+p.Op.String()), false),
			slack.MsgOptionBlocks(b.approvalBlocks(p, value, "")...))
		return ts, err
	})
	reply := d.Reply
	if err != nil {
		log.Error("approval request not posted", zap.Error(err))
		reply = commands.Reply{Title: "Your request could not be sent to the admins", Text: "Nothing was done. Try again later, or ask an admin.", Error: true}
		b.m.commands.WithLabelValues(cmd.Command, "error").Inc()
	} else {
		reply.Text += fmt.Sprintf(" The request waits in the ops channel (%s) until %s.", b.cfg.OpsChannel, p.Created.Add(b.cfg.ApprovalTTL).UTC().Format(time.RFC1123))
		b.m.commands.WithLabelValues(cmd.Command, "approval_requested").Inc()
		b.m.approvals.WithLabelValues("requested").Inc()
		log.Info("approval requested", zap.String("request_id", p.ID), zap.String("action", string(p.Op.Action)), zap.String("target", p.Op.Target()))
	}
	if err := b.replyTo(ctx, cmd.ResponseURL, cmd.ChannelID, cmd.UserID, reply, true); err != nil {
		log.Error("reply not delivered", zap.Error(err))
	}
}

// approvalBlocks renders a request for the admins. With an empty outcome
// it carries the buttons; otherwise the outcome replaces them.
func (b *Bot) approvalBlocks(p commands.Pending, value, outcome string) []slack.Block {
	where := "the shell"
	if p.Channel != "" {
		where = "<#" + escape(p.Channel) + ">"
	}
	reason := p.Op.Reason
	if reason == "" {
		reason = "(none given)"
	}
	text := fmt.Sprintf("*Approval requested* by %s in %s\n*Operation:* %s\n*Reason:* %s\n*Expires:* %s",
		mention(p.Requester), where, escape(p.Op.String()), escape(reason),
		p.Created.Add(b.cfg.ApprovalTTL).UTC().Format(time.RFC1123))
	blocks := []slack.Block{section(text)}
	if outcome != "" {
		return append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, outcome, false, false)))
	}
	approve := slack.NewButtonBlockElement(actionApprove, value, slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false)).WithStyle(slack.StylePrimary)
	deny := slack.NewButtonBlockElement(actionDeny, value, slack.NewTextBlockObject(slack.PlainTextType, "Deny", false, false)).WithStyle(slack.StyleDanger)
	deny.Confirm = slack.NewConfirmationBlockObject(
		slack.NewTextBlockObject(slack.PlainTextType, "Deny this request?", false, false),
		slack.NewTextBlockObject(slack.PlainTextType, "The requester will be told that you denied it.", false, false),
		slack.NewTextBlockObject(slack.PlainTextType, "Deny", false, false),
		slack.NewTextBlockObject(slack.PlainTextType, "Cancel", false, false),
	)
	return append(blocks, slack.NewActionBlock(approvalBlockID, approve, deny))
}

// interaction acknowledges a click at once and hands the decision to the
// pool.
func (b *Bot) interaction(ctx context.Context, req *socketmode.Request, cb slack.InteractionCallback, received time.Time) {
	b.ack(ctx, req, nil, received)
	if cb.Type != slack.InteractionTypeBlockActions {
		return
	}
	for _, a := range cb.ActionCallback.BlockActions {
		if a.BlockID != approvalBlockID || (a.ActionID != actionApprove && a.ActionID != actionDeny) {
			continue
		}
		action := *a
		log := b.log.With(zap.String("envelope_id", req.EnvelopeID), zap.String("user_id", cb.User.ID), zap.String("action", action.ActionID))
		if !b.submit(func(ctx context.Context) { b.decide(ctx, cb, action, log) }) {
			log.Warn("click dropped: stopping or queue full")
			tctx, cancel := context.WithTimeout(ctx, b.cfg.AckTimeout)
			b.tellClicker(tctx, cb, replyRestarting, log)
			cancel()
		}
	}
}

// decide carries out an admin's click.
func (b *Bot) decide(ctx context.Context, cb slack.InteractionCallback, a slack.BlockAction, log *zap.Logger) {
	p, err := b.core.DecodePending(a.Value)
	if err != nil {
		b.m.approvals.WithLabelValues("invalid").Inc()
		log.Warn("approval value rejected", zap.Error(err))
		b.tellClicker(ctx, cb, commands.Reply{Title: "This request is not valid", Text: "mailbot cannot read it. Nothing was done.", Error: true}, log)
		return
	}
	log = log.With(zap.String("request_id", p.ID))
	v := b.core.Resolve(ctx, p, cb.User.ID, a.ActionID == actionApprove)
	switch v.Kind {
	case commands.VerdictApproved:
		b.m.approvals.WithLabelValues("approved").Inc()
		b.m.commands.WithLabelValues(commandOf(p.Op), okOrError(v.Result.Notice.OK)).Inc()
		log.Info("operation", zap.String("action", string(p.Op.Action)), zap.String("target", p.Op.Target()),
			zap.String("requester", p.Requester), zap.String("outcome", okOrError(v.Result.Notice.OK)), zap.String("code", v.Result.Notice.Code))
		b.updateRequest(ctx, cb, p, ":white_check_mark: "+escape(v.Summary(p, Mention)), log)
		if err := b.toRequester(ctx, p.Channel, p.Requester, v.Result.Reply); err != nil {
			log.Error("result not delivered to the requester", zap.Error(err))
		}
		b.tellClicker(ctx, cb, v.Reply, log)
	case commands.VerdictDenied:
		b.m.approvals.WithLabelValues("denied").Inc()
		log.Info("request denied", zap.String("requester", p.Requester))
		b.updateRequest(ctx, cb, p, ":no_entry: "+escape(v.Summary(p, Mention)), log)
		denied := commands.Reply{Title: "Your request was denied", Text: fmt.Sprintf("An admin denied your request to %s. Nothing was done.", p.Op.String()), Error: true}
		if v.ForRequester != nil {
			denied = *v.ForRequester // says who denied
		}
		if err := b.toRequester(ctx, p.Channel, p.Requester, denied); err != nil {
			log.Error("denial not delivered to the requester", zap.Error(err))
		}
		b.tellClicker(ctx, cb, v.Reply, log)
	case commands.VerdictExpired:
		b.m.approvals.WithLabelValues("expired").Inc()
		log.Info("request expired")
		b.updateRequest(ctx, cb, p, ":hourglass: Expired: this request is older than "+b.cfg.ApprovalTTL.String()+". Nothing was done.", log)
		b.tellClicker(ctx, cb, v.Reply, log)
	default:
		b.m.approvals.WithLabelValues(verdictLabel(v.Kind)).Inc()
		log.Info("click refused", zap.String("verdict", verdictLabel(v.Kind)))
		b.tellClicker(ctx, cb, v.Reply, log)
	}
}

// updateRequest replaces the request message's buttons with the outcome.
// This update is the ops notification of the operation.
func (b *Bot) updateRequest(ctx context.Context, cb slack.InteractionCallback, p commands.Pending, outcome string, log *zap.Logger) {
	ts := cb.Container.MessageTs
	if ts == "" {
		ts = cb.Message.Timestamp
	}
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	_, err := withRateLimit(ctx, func() (string, error) {
		_, _, _, err := b.api.UpdateMessageContext(ctx, channel, ts,
			slack.MsgOptionText(escape("Request: "+p.Op.String()), false),
			slack.MsgOptionBlocks(b.approvalBlocks(p, "", outcome)...))
		return "", err
	})
	if err != nil {
		b.m.notifications.WithLabelValues("failed").Inc()
		log.Error("request message not updated", zap.Error(err))
		return
	}
	b.m.notifications.WithLabelValues("ok").Inc()
}

// tellClicker answers the person who clicked, ephemerally, in the channel
// of the request message.
func (b *Bot) tellClicker(ctx context.Context, cb slack.InteractionCallback, r commands.Reply, log *zap.Logger) {
	if r.Title == "" {
		return
	}
	if err := b.replyTo(ctx, cb.ResponseURL, cb.Channel.ID, cb.User.ID, r, false); err != nil {
		log.Warn("answer to the clicker not delivered", zap.Error(err))
	}
}

func commandOf(op commands.Operation) string {
	if op.Action == commands.ActionRegisterDomain {
		return commands.CmdDomain
	}
	return commands.CmdMailbox
}

func okOrError(ok bool) string {
	if ok {
		return "ok"
	}
	return "error"
}

func verdictLabel(k commands.VerdictKind) string {
	switch k {
	case commands.VerdictRefused:
		return "refused"
	case commands.VerdictAlreadyDecided:
		return "already_decided"
	case commands.VerdictInvalid:
		return "invalid"
	case commands.VerdictExpired:
		return "expired"
	case commands.VerdictDenied:
		return "denied"
	default:
		return "approved"
	}
}
