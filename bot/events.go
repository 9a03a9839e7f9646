package bot

import (
	"context"
	"encoding/json"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"
)

// loop reads the socket's events until ctx ends.
func (b *Bot) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case evt := <-b.sm.Events:
			b.handle(ctx, evt)
		}
	}
}

// handle acknowledges an envelope and hands its work to the workers. It
// never calls Slack's Web API, the PDD API or the database.
func (b *Bot) handle(ctx context.Context, evt socketmode.Event) {
	received := time.Now()
	if b.redelivered(ctx, evt, received) || b.connection(evt) {
		return
	}
	switch evt.Type {
	case socketmode.EventTypeSlashCommand:
		if cmd, ok := evt.Data.(slack.SlashCommand); ok && evt.Request != nil {
			b.slashCommand(ctx, evt.Request, cmd, received)
		}
	case socketmode.EventTypeInteractive:
		if cb, ok := evt.Data.(slack.InteractionCallback); ok && evt.Request != nil {
			b.interaction(ctx, evt.Request, cb, received)
		}
	case socketmode.EventTypeEventsAPI:
		b.ack(ctx, evt.Request, nil, received)
		b.event(evt)
	case socketmode.EventTypeErrorBadMessage:
		if bm, ok := evt.Data.(*socketmode.ErrorBadMessage); ok {
			b.badMessage(ctx, bm, received)
		}
	default:
		if evt.Request != nil && evt.Request.EnvelopeID != "" {
			b.ack(ctx, evt.Request, nil, received)
		}
	}
}

// redelivered acknowledges an envelope Slack sent again with the answer
// given the first time, and reports whether evt was one.
func (b *Bot) redelivered(ctx context.Context, evt socketmode.Event, received time.Time) bool {
	if evt.Request == nil {
		return false
	}
	payload, first := b.seen.first(evt.Request.EnvelopeID)
	if first {
		return false
	}
	b.m.redelivered.Inc()
	b.log.Info("envelope re-sent by Slack: acknowledged again with the same answer, not run again", zap.String("envelope_id", evt.Request.EnvelopeID))
	b.ack(ctx, evt.Request, payload, received)
	return true
}

// connection follows the socket's state from its connection events, and
// reports whether evt was one.
func (b *Bot) connection(evt socketmode.Event) bool {
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		b.setConnected(false)
	case socketmode.EventTypeConnected:
		b.setConnected(true)
		if ce, ok := evt.Data.(*socketmode.ConnectedEvent); ok && ce.ConnectionCount > 0 {
			b.m.reconnects.Inc()
		}
		b.log.Info("socket connected")
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError:
		b.setConnected(false)
		b.log.Warn("socket trouble, reconnecting", zap.String("event", string(evt.Type)), zap.Error(eventError(evt.Data)))
	case socketmode.EventTypeInvalidAuth:
		b.log.Error("socket: app token rejected")
	default:
		return false
	}
	return true
}

// event handles an Events API event after its ack: the Home tab opened,
// or a user group's members changed. An event slack-go could not parse is
// read from the raw payload, only for what it names.
func (b *Bot) event(evt socketmode.Event) {
	if api, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
		switch e := api.InnerEvent.Data.(type) {
		case *slackevents.AppHomeOpenedEvent:
			if e.Tab == "home" || e.Tab == "" {
				user := e.User
				b.answer(func(ctx context.Context) { b.publishHome(ctx, user) })
			}
			return
		}
	}
	if evt.Request != nil {
		b.rawEvent(evt.Request.Payload)
	}
}

// badMessage acknowledges an envelope slack-go could not parse (Slack
// re-sends what is not acknowledged) and reads what it can of an event.
func (b *Bot) badMessage(ctx context.Context, bm *socketmode.ErrorBadMessage, received time.Time) {
	var env struct {
		EnvelopeID string          `json:"envelope_id"`
		Type       string          `json:"type"`
		Payload    json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(bm.Message, &env) != nil || env.EnvelopeID == "" {
		b.log.Warn("unreadable message on the socket", zap.Error(bm.Cause))
		return
	}
	b.log.Warn("envelope slack-go cannot parse: acknowledged", zap.String("envelope_id", env.EnvelopeID), zap.String("type", env.Type), zap.Error(bm.Cause))
	if _, first := b.seen.first(env.EnvelopeID); !first {
		b.m.redelivered.Inc()
	}
	b.ack(ctx, &socketmode.Request{EnvelopeID: env.EnvelopeID}, nil, received)
	if env.Type == socketmode.RequestTypeEventsAPI {
		b.rawEvent(env.Payload)
	}
}

// rawEvent handles an event by its raw payload: a change of a user
// group's members means only "read this group again".
func (b *Bot) rawEvent(payload json.RawMessage) {
	var raw struct {
		Event struct {
			Type      string `json:"type"`
			SubteamID string `json:"subteam_id"`
			Subteam   struct {
				ID string `json:"id"`
			} `json:"subteam"`
		} `json:"event"`
	}
	if b.groups == nil || json.Unmarshal(payload, &raw) != nil {
		return
	}
	switch raw.Event.Type {
	case "subteam_members_changed":
		b.groups.Changed(raw.Event.SubteamID)
	case "subteam_updated":
		b.groups.Changed(raw.Event.Subteam.ID)
	}
}

func eventError(data any) error {
	switch e := data.(type) {
	case *slack.ConnectionErrorEvent:
		return e.ErrorObj
	case *slack.IncomingEventError:
		return e.ErrorObj
	}
	return nil
}

// ack acknowledges an envelope, with an optional payload (the immediate
// reply to a slash command, or a form's answer).
func (b *Bot) ack(ctx context.Context, req *socketmode.Request, payload any, received time.Time) {
	if req == nil || req.EnvelopeID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.AckTimeout)
	defer cancel()
	if payload != nil {
		if raw, ok := payload.(json.RawMessage); ok {
			payload = raw
		} else if raw, err := encodePayload(payload); err == nil {
			payload = json.RawMessage(raw)
			b.seen.acked(req.EnvelopeID, raw)
		}
	}
	if err := b.sm.AckCtx(ctx, req.EnvelopeID, payload); err != nil {
		b.log.Error("ack failed", zap.String("envelope_id", req.EnvelopeID), zap.Error(err))
		return
	}
	b.m.ackLatency.Observe(time.Since(received).Seconds())
}

// encodePayload is the JSON of an ack's payload: a reply's by the hand
// encoder, any other's by json.Marshal (the same bytes).
func encodePayload(payload any) ([]byte, error) {
	if e, ok := payload.(ephemeral); ok {
		return e.appendJSON(make([]byte, 0, bodySizeHint(e.Text, e.Blocks)))
	}
	return json.Marshal(payload)
}
