package bot

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// interaction acknowledges a click or a form at once and hands the work
// to the workers. A form's acknowledgement carries its answer: the
// problems by field, or "clear".
func (b *Bot) interaction(ctx context.Context, req *socketmode.Request, cb slack.InteractionCallback, received time.Time) {
	if cb.Type == slack.InteractionTypeViewSubmission && cb.View.CallbackID == importCallbackID {
		b.ack(ctx, req, b.submitImport(req, cb), received)
		return
	}
	switch cb.Type {
	case slack.InteractionTypeViewSubmission:
		b.ack(ctx, req, b.submitForm(cb), received)
		return
	case slack.InteractionTypeBlockActions:
		b.ack(ctx, req, nil, received)
	default:
		b.ack(ctx, req, nil, received)
		return
	}
	for _, a := range cb.ActionCallback.BlockActions {
		if k, ok := clickOf(cb, a); ok {
			b.click(k, a.BlockID, req.EnvelopeID)
		}
	}
}

// clickOf reads a click on one of mailbot's buttons; ok is false for any
// other action.
func clickOf(cb slack.InteractionCallback, a *slack.BlockAction) (commands.Click, bool) {
	kind := commands.ButtonKind(a.ActionID)
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	k := commands.Click{Kind: kind, Value: a.Value, User: cb.User.ID,
		Route: commands.Route{User: cb.User.ID, Channel: channel, Handle: cb.ResponseURL}}
	switch {
	case a.BlockID == approvalBlockID && (kind == commands.ButtonApprove || kind == commands.ButtonDeny):
		ts := cb.Container.MessageTs
		if ts == "" {
			ts = cb.Message.Timestamp
		}
		k.Message = commands.MessageRef{Channel: channel, TS: ts}
		return k, true
	case a.BlockID == replyBlockID && (kind == commands.ButtonCancel || kind == commands.ButtonCheckDNS || kind == commands.ButtonMore):
		return k, true
	case a.BlockID == handoverBlockID && kind == commands.ButtonShow:
		k.Message = commands.MessageRef{Channel: channel, TS: cmp.Or(cb.Container.MessageTs, cb.Message.Timestamp)}
		return k, true
	case strings.HasPrefix(a.BlockID, homeBlockPrefix) && kind != commands.ButtonCheckDNS && kind != commands.ButtonShow:
		k.Route = commands.Route{User: cb.User.ID} // a Home tab has no channel and no response_url
		return k, true
	}
	return k, false
}

// click hands a click to the workers; from the Home tab, the clicker's
// Home is published again after it.
func (b *Bot) click(k commands.Click, blockID, envelopeID string) {
	log := b.log.With(zap.String("envelope_id", envelopeID), zap.String("user_id", k.User), zap.String("button", string(k.Kind)))
	home := strings.HasPrefix(blockID, homeBlockPrefix)
	j := job{
		run: func(ctx context.Context) {
			label := b.core.Click(ctx, k)
			b.m.approvals.WithLabelValues(label).Inc()
			if home {
				b.publishHome(ctx, k.User)
			}
		},
		notRun: func(ctx context.Context) { b.tell(ctx, k.Route, commands.ReplyNotRun, "", "") },
	}
	refused, ok := b.take(j)
	if ok {
		return
	}
	log.Warn("click refused", zap.String("why", refused.Label))
	b.m.approvals.WithLabelValues(refused.Label).Inc()
	if !b.answer(func(ctx context.Context) { b.tell(ctx, k.Route, refused.Reply, "", "") }) {
		log.Error("click not answered: every queue is full or mailbot is stopping")
	}
}
