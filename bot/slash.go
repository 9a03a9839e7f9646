package bot

import (
	"context"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// Short answers given in the acknowledgement itself.
var (
	replyWorking    = commands.Reply{Title: "Working on it…", Note: "The result will appear here, for your eyes only."}
	replySending    = commands.Reply{Title: "Sending your request to the admins…"}
	replyRestarting = commands.Reply{Title: "mailbot is restarting", Text: "Nothing was done. Try again in a minute.", Error: true}
	replyBusy       = commands.Reply{Title: "mailbot is busy", Text: "Too many operations are waiting. Nothing was done; try again in a minute.", Error: true}
)

// slashCommand acknowledges a slash command at once and, when there is work
// to do, hands it to the pool.
func (b *Bot) slashCommand(ctx context.Context, req *socketmode.Request, cmd slack.SlashCommand, received time.Time) {
	log := b.log.With(zap.String("envelope_id", req.EnvelopeID), zap.String("user_id", cmd.UserID), zap.String("command", cmd.Command))
	if b.isDraining() {
		b.ack(ctx, req, ephemeralPayload(replyRestarting), received)
		b.m.commands.WithLabelValues(cmd.Command, "restarting").Inc()
		log.Info("command refused: restarting")
		return
	}
	d := b.core.Decide(commands.Request{UserID: cmd.UserID, ChannelID: cmd.ChannelID, Command: cmd.Command, Text: cmd.Text})
	switch d.Outcome {
	case commands.OutcomeRun:
		b.ackWork(ctx, req, cmd, received, log, replyWorking, func(ctx context.Context) { b.runNow(ctx, cmd, d.Op, log, received) })
	case commands.OutcomeApproval:
		b.ackWork(ctx, req, cmd, received, log, replySending, func(ctx context.Context) { b.requestApproval(ctx, cmd, d, log) })
	default:
		b.ack(ctx, req, ephemeralPayload(d.Reply), received)
		outcome := "answered"
		if d.Reply.Error {
			outcome = "refused"
		}
		b.m.commands.WithLabelValues(cmd.Command, outcome).Inc()
		log.Info("command answered", zap.String("outcome", outcome), zap.Duration("took", time.Since(received)))
	}
}

// ackWork acknowledges with the interim reply when the pool accepts the
// work, or with "busy" when it does not.
func (b *Bot) ackWork(ctx context.Context, req *socketmode.Request, cmd slack.SlashCommand, received time.Time, log *zap.Logger, interim commands.Reply, fn func(context.Context)) {
	if !b.submit(fn) {
		b.ack(ctx, req, ephemeralPayload(replyBusy), received)
		b.m.commands.WithLabelValues(cmd.Command, "busy").Inc()
		log.Warn("command refused: queue full")
		return
	}
	b.ack(ctx, req, ephemeralPayload(interim), received)
}

// runNow runs an admin's operation and delivers the result.
func (b *Bot) runNow(ctx context.Context, cmd slack.SlashCommand, op commands.Operation, log *zap.Logger, received time.Time) {
	res := b.core.Run(ctx, cmd.UserID, "", op)
	outcome := "ok"
	if !res.Notice.OK {
		outcome = "error"
	}
	b.m.commands.WithLabelValues(cmd.Command, outcome).Inc()
	log.Info("operation", zap.String("action", string(op.Action)), zap.String("target", op.Target()),
		zap.String("outcome", outcome), zap.String("code", res.Notice.Code), zap.Duration("took", time.Since(received)))
	if err := b.replyTo(ctx, cmd.ResponseURL, cmd.ChannelID, cmd.UserID, res.Reply, true); err != nil {
		log.Error("result not delivered", zap.Error(err))
	}
	b.notify(ctx, noticeMessage(res.Notice))
}
