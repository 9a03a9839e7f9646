package bot

import (
	"context"
	"encoding/json"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// slashCommand acknowledges a slash command at once and, when there is work
// to do, hands it to the workers. The logger that names the command is built only on the paths that log:
// a command acknowledged as it should be logs nothing.
func (b *Bot) slashCommand(ctx context.Context, req *socketmode.Request, cmd slack.SlashCommand, received time.Time) {
	if b.isDraining() {
		b.m.commands.WithLabelValues(cmd.Command, commands.LabelRestarting).Inc()
		b.refuse(ctx, req, cmd, commands.RefusedRestarting, received)
		return
	}
	d := b.core.Decide(commands.Request{UserID: cmd.UserID, ChannelID: cmd.ChannelID, Command: cmd.Command, Text: cmd.Text})
	to := commands.Route{User: cmd.UserID, Channel: cmd.ChannelID, Handle: cmd.ResponseURL, Replace: true}
	switch d.Step {
	case commands.StepReply:
		b.ack(ctx, req, ephemeralPayload(d.Reply), received)
		b.m.commands.WithLabelValues(cmd.Command, replyLabel(d.Reply)).Inc()
		return
	case commands.StepForm:
		log := b.commandLog(req, cmd)
		if !b.openForm(cmd, d, to, log) {
			log.Warn("form not opened: stopping or busy; answering with the usage")
			b.ack(ctx, req, ephemeralPayload(d.Reply), received)
			return
		}
		b.ack(ctx, req, nil, received)
		return
	}
	if refused, ok := b.takeCommand(cmd.Command, to, d); !ok {
		b.refuse(ctx, req, cmd, refused, received)
		return
	}
	if raw, ok := b.interimPayload(d); ok {
		b.seen.acked(req.EnvelopeID, raw) // for an envelope Slack sends again
		b.ack(ctx, req, raw, received)
		return
	}
	b.ack(ctx, req, ephemeralPayload(d.Interim()), received)
}

// interimPayload is the acknowledgement of a command taken for the
// workers, encoded. Decision.Interim depends on the step alone (working,
// checking, sending for approval), so each step's is rendered and encoded
// once and its bytes shared: they are never written to.
// ok is false when it cannot be encoded.
func (b *Bot) interimPayload(d commands.Decision) (_ json.RawMessage, ok bool) {
	if raw, ok := b.interims.Load(d.Step); ok {
		return raw.(json.RawMessage), true
	}
	raw, err := encodePayload(ephemeralPayload(d.Interim()))
	if err != nil {
		return nil, false
	}
	b.interims.Store(d.Step, json.RawMessage(raw))
	return raw, true
}

// commandLog is the logger of one slash command: its envelope, who typed
// it and the command.
func (b *Bot) commandLog(req *socketmode.Request, cmd slack.SlashCommand) *zap.Logger {
	return b.log.With(zap.String("envelope_id", req.EnvelopeID), zap.String("user_id", cmd.UserID), zap.String("command", cmd.Command))
}

// refuse acknowledges a command with a refusal (counted by the caller).
func (b *Bot) refuse(ctx context.Context, req *socketmode.Request, cmd slack.SlashCommand, r commands.Refusal, received time.Time) {
	b.ack(ctx, req, ephemeralPayload(r.Reply), received)
	b.commandLog(req, cmd).Warn("command refused", zap.String("why", r.Label))
}

// takeCommand queues the execution of d, asked for with command and
// answered to to, and counts it under command when it ends. A refusal is
// counted here; the caller answers it.
func (b *Bot) takeCommand(command string, to commands.Route, d commands.Decision) (refused commands.Refusal, ok bool) {
	refused, ok = b.take(job{
		run:    func(ctx context.Context) { b.m.commands.WithLabelValues(command, b.core.Execute(ctx, to, d)).Inc() },
		notRun: func(ctx context.Context) { b.tell(ctx, to, commands.ReplyNotRun, commands.LabelNotRun, command) },
	})
	if !ok {
		b.m.commands.WithLabelValues(command, refused.Label).Inc()
	}
	return refused, ok
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
