package bot

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// MessengerConfig is where the messenger posts.
type MessengerConfig struct {
	OpsChannel string       // MAILBOT_OPS_CHANNEL; empty: no notices
	HTTPClient *http.Client // for response_url posts; nil: a client with a 10 s timeout
	// The Web API's base URL (ending in /; empty: Slack's), the bot token
	// and the HTTP client (nil: HTTPClient's) of the api client, for the
	// messages the messenger posts itself (post).
	APIURL    string
	BotToken  string
	APIClient *http.Client
}

// Messenger is the core's way out to Slack (commands.Messenger): private
// answers by every route there is, the request messages in the ops
// channel, notices and reminders. It keeps no state: any replica can
// update any request's message.
type Messenger struct {
	api     *slack.Client
	cfg     MessengerConfig
	http    *http.Client // response_url posts
	apiHTTP *http.Client // the Web API calls of post
	log     *zap.Logger
	m       *Metrics
}

var _ commands.Messenger = (*Messenger)(nil)

// NewMessenger returns a messenger that posts through api.
func NewMessenger(api *slack.Client, cfg MessengerConfig, logger *zap.Logger, m *Metrics) *Messenger {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.APIURL == "" {
		cfg.APIURL = slack.APIURL
	}
	return &Messenger{api: api, cfg: cfg, http: hc, apiHTTP: cmp.Or(cfg.APIClient, hc), log: logger, m: m}
}

// PostRequest posts a new request, with Approve and Deny, to the ops
// channel.
func (m *Messenger) PostRequest(ctx context.Context, v commands.RequestView) (commands.MessageRef, error) {
	if m.cfg.OpsChannel == "" {
		return commands.MessageRef{}, fmt.Errorf("no ops channel (MAILBOT_OPS_CHANNEL) to post the request to")
	}
	blocks, err := requestBlocks(v)
	if err != nil {
		return commands.MessageRef{}, err
	}
	ch, ts, err := retryingPair(ctx, func() (string, string, error) {
		return m.post(ctx, m.cfg.OpsChannel, fitText(escape("Approval requested: "+v.Pending.Op.String()), maxNoticeText), blocks...)
	})
	m.count(err)
	if err != nil {
		return commands.MessageRef{}, fmt.Errorf("chat.postMessage: %w", err)
	}
	m.m.approvals.WithLabelValues("requested").Inc()
	return commands.MessageRef{Channel: ch, TS: ts}, nil
}

// UpdateRequest shows the request's state in its message; while it is not
// pending the message offers no buttons. For an approved request this
// update is the ops notice of the operation.
func (m *Messenger) UpdateRequest(ctx context.Context, ref commands.MessageRef, v commands.RequestView) error {
	blocks, err := requestBlocks(v)
	if err != nil {
		return err
	}
	err = m.update(ctx, ref,
		slack.MsgOptionText(fitText(escape("Request: "+v.Pending.Op.String()+": "+string(v.State)), maxNoticeText), false),
		slack.MsgOptionBlocks(blocks...))
	m.count(err)
	return chatUpdate(err)
}

// update replaces the message at ref with opts (chat.update), retried as
// Slack's rate limits allow. Its error is Slack's, unwrapped.
func (m *Messenger) update(ctx context.Context, ref commands.MessageRef, opts ...slack.MsgOption) error {
	_, err := retrying(ctx, func() (string, error) {
		_, _, _, err := m.api.UpdateMessageContext(ctx, ref.Channel, ref.TS, opts...)
		return "", err
	})
	return err
}

// chatUpdate is the error of a chat.update that failed with err, nil for
// none.
func chatUpdate(err error) error {
	if err != nil {
		return fmt.Errorf("chat.update: %w", err)
	}
	return nil
}

// Remind posts text in the thread of the request message.
func (m *Messenger) Remind(ctx context.Context, ref commands.MessageRef, text string) error {
	body := escape(text)
	_, err := retrying(ctx, func() (string, error) {
		_, ts, err := m.api.PostMessageContext(ctx, ref.Channel, slack.MsgOptionTS(ref.TS),
			slack.MsgOptionText(fitText(body, maxNoticeText), false))
		return ts, err
	})
	m.count(err)
	if err != nil {
		return fmt.Errorf("reminder: %w", err)
	}
	return nil
}

// RequestValue reads the request message back (conversations.history,
// the one message at its ts) and returns the value its Approve button
// carries: "" when it no longer offers the approval buttons (it shows a
// decision), or is gone.
func (m *Messenger) RequestValue(ctx context.Context, ref commands.MessageRef) (string, error) {
	blocks, err := m.readBack(ctx, ref)
	return buttonValue(blocks, approvalBlockID, commands.ButtonApprove), err
}

// readBack reads the message at ref back (conversations.history, the one
// message at its ts) and returns its blocks: none when it is gone.
func (m *Messenger) readBack(ctx context.Context, ref commands.MessageRef) (slack.Blocks, error) {
	resp, err := retrying(ctx, func() (*slack.GetConversationHistoryResponse, error) {
		return m.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
			ChannelID: ref.Channel, Latest: ref.TS, Oldest: ref.TS, Inclusive: true, Limit: 1})
	})
	if err != nil {
		return slack.Blocks{}, fmt.Errorf("conversations.history: %w", err)
	}
	for _, msg := range resp.Messages {
		if msg.Timestamp == ref.TS {
			return msg.Blocks, nil
		}
	}
	return slack.Blocks{}, nil // gone: run nothing
}

// buttonValue returns the value of the button kind in the actions block
// blockID, or "" when there is none.
func buttonValue(b slack.Blocks, blockID string, kind commands.ButtonKind) string {
	for _, blk := range b.BlockSet {
		a, ok := blk.(*slack.ActionBlock)
		if !ok || a.BlockID != blockID || a.Elements == nil {
			continue
		}
		for _, el := range a.Elements.ElementSet {
			if btn, ok := el.(*slack.ButtonBlockElement); ok && btn.ActionID == string(kind) {
				return btn.Value
			}
		}
	}
	return ""
}

// retryingPair is retrying for calls that answer two strings.
func retryingPair(ctx context.Context, fn func() (string, string, error)) (string, string, error) {
	v, err := retrying(ctx, func() ([2]string, error) {
		a, b, err := fn()
		return [2]string{a, b}, err
	})
	return v[0], v[1], err
}
