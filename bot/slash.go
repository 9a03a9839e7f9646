package bot

import (
	"context"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// Short answers given in the acknowledgement itself, or for work that
// will not run.
var (
	replyWorking    = commands.Reply{Title: "Working on it…", Note: "The result will appear here, for your eyes only."}
	replySending    = commands.Reply{Title: "Sending your request to the admins…"}
	replyChecking   = commands.Reply{Title: "Looking the domain up in DNS…"}
	replyRestarting = commands.Reply{Title: "mailbot is restarting", Text: "Nothing was done. Try again in a minute.", Error: true}
	replyBusy       = commands.Reply{Title: "mailbot is busy", Text: "Too many operations are waiting. Nothing was done; try again in a minute.", Error: true}
	replyNotRun     = commands.Reply{Title: "Not run: mailbot is restarting", Error: true,
		Text: "mailbot stopped before it could start your command. Nothing was done: you can repeat it in a minute."}
)

// slashCommand acknowledges a slash command at once and, when there is work
// to do, hands it to the workers.
func (b *Bot) slashCommand(ctx context.Context, req *socketmode.Request, cmd slack.SlashCommand, received time.Time) {
	log := b.log.With(zap.String("envelope_id", req.EnvelopeID), zap.String("user_id", cmd.UserID), zap.String("command", cmd.Command))
	if b.isDraining() {
		b.ack(ctx, req, ephemeralPayload(replyRestarting), received)
		b.m.commands.WithLabelValues(cmd.Command, "restarting").Inc()
		log.Info("command refused: restarting")
		return
	}
	d := b.core.Decide(commands.Request{UserID: cmd.UserID, ChannelID: cmd.ChannelID, Command: cmd.Command, Text: cmd.Text})
	to := commands.Route{User: cmd.UserID, Channel: cmd.ChannelID, Handle: cmd.ResponseURL, Replace: true}
	interim := replyWorking
	switch d.Outcome {
	case commands.OutcomeReply:
		b.ack(ctx, req, ephemeralPayload(d.Reply), received)
		b.m.commands.WithLabelValues(cmd.Command, replyLabel(d.Reply)).Inc()
		return
	case commands.OutcomeForm:
		if !b.openForm(cmd, d, to, log) {
			log.Warn("form not opened: stopping or busy; answering with the usage")
			b.ack(ctx, req, ephemeralPayload(d.Reply), received)
			return
		}
		b.ack(ctx, req, nil, received)
		return
	case commands.OutcomeApproval:
		interim = replySending
	case commands.OutcomeCheck:
		interim = replyChecking
	}
	j := job{
		run: func(ctx context.Context) {
			b.m.commands.WithLabelValues(cmd.Command, b.core.Execute(ctx, to, d)).Inc()
		},
		notRun: func(ctx context.Context) { b.tell(ctx, to, replyNotRun, "not_run", cmd.Command) },
	}
	if !b.submit(j) {
		b.ack(ctx, req, ephemeralPayload(replyBusy), received)
		b.m.commands.WithLabelValues(cmd.Command, "busy").Inc()
		log.Warn("command refused: queue full or stopping")
		return
	}
	b.ack(ctx, req, ephemeralPayload(interim), received)
}

// tell delivers a short answer that is not an operation's result, and
// counts it.
func (b *Bot) tell(ctx context.Context, to commands.Route, r commands.Reply, label, command string) {
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := b.msgr.Deliver(ectx, to, r); err != nil {
		b.log.Warn("answer not delivered", zap.String("user_id", to.User), zap.String("title", r.Title), zap.Error(err))
	}
	if command != "" {
		b.m.commands.WithLabelValues(command, label).Inc()
	}
}

func replyLabel(r commands.Reply) string {
	if r.Error {
		return commands.LabelRefused
	}
	return commands.LabelAnswered
}
