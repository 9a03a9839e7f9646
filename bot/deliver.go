package bot

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// maxRateLimitWait bounds one wait on Slack's Retry-After.
const maxRateLimitWait = 30 * time.Second

// rateLimitAttempts bounds the calls of one Web API method when Slack
// answers 429.
const rateLimitAttempts = 4

// replyTo gives r to user alone: through the response_url (replacing the
// original message when replace is true: a command's interim reply), or,
// where that fails, with chat.postEphemeral in the channel.
func (b *Bot) replyTo(ctx context.Context, responseURL, channel, user string, r commands.Reply, replace bool) error {
	errURL := b.postResponse(ctx, responseURL, r, replace)
	if errURL == nil {
		return nil
	}
	b.log.Warn("response_url failed, falling back to chat.postEphemeral", zap.Error(errURL))
	_, err := withRateLimit(ctx, func() (string, error) {
		return b.api.PostEphemeralContext(ctx, channel, user, messageOptions(r)...)
	})
	if err != nil {
		return fmt.Errorf("chat.postEphemeral: %w", err)
	}
	return nil
}

// postResponse posts r, ephemeral, to a response_url.
func (b *Bot) postResponse(ctx context.Context, responseURL string, r commands.Reply, replace bool) error {
	if err := checkResponseURL(responseURL); err != nil {
		return err
	}
	blocks := replyBlocks(r)
	msg := &slack.WebhookMessage{
		ResponseType:    slack.ResponseTypeEphemeral,
		ReplaceOriginal: replace,
		Text:            fallbackText(r),
		Blocks:          &slack.Blocks{BlockSet: blocks},
	}
	if err := slack.PostWebhookCustomHTTPContext(ctx, responseURL, b.cfg.HTTPClient, msg); err != nil {
		return fmt.Errorf("response_url: %w", err)
	}
	return nil
}

// checkResponseURL accepts https URLs, and http ones on loopback (tests).
func checkResponseURL(raw string) error {
	if raw == "" {
		return errors.New("no response_url")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("response_url is not a URL")
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && apiclient.IsLoopback(u.Hostname())) {
		return errors.New("response_url is not https")
	}
	return nil
}

// toRequester gives r to user alone, ephemerally, in channel; where that
// fails (the bot is not in the channel, a private channel, no channel), in
// the user's direct-message channel with the bot.
func (b *Bot) toRequester(ctx context.Context, channel, user string, r commands.Reply) error {
	opts := messageOptions(r)
	if channel != "" {
		_, err := withRateLimit(ctx, func() (string, error) { return b.api.PostEphemeralContext(ctx, channel, user, opts...) })
		if err == nil {
			return nil
		}
		b.log.Info("ephemeral in the request's channel failed, trying the DM", zap.String("channel", channel), zap.Error(err))
	}
	dm, err := withRateLimit(ctx, func() (string, error) {
		ch, _, _, err := b.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{user}, ReturnIM: true})
		if err != nil {
			return "", err
		}
		return ch.ID, nil
	})
	if err != nil {
		return fmt.Errorf("conversations.open: %w", err)
	}
	if _, err := withRateLimit(ctx, func() (string, error) { return b.api.PostEphemeralContext(ctx, dm, user, opts...) }); err != nil {
		return fmt.Errorf("chat.postEphemeral in the DM: %w", err)
	}
	return nil
}

// notify posts text to the ops channel. A failure is logged: it never
// delays or breaks the user's reply, which is delivered first.
func (b *Bot) notify(ctx context.Context, text string) {
	if b.cfg.OpsChannel == "" {
		return
	}
	_, err := withRateLimit(ctx, func() (string, error) {
		_, ts, err := b.api.PostMessageContext(ctx, b.cfg.OpsChannel, slack.MsgOptionText(text, false))
		return ts, err
	})
	if err != nil {
		b.m.notifications.WithLabelValues("failed").Inc()
		b.log.Error("ops notification failed", zap.String("channel", b.cfg.OpsChannel), zap.Error(err))
		return
	}
	b.m.notifications.WithLabelValues("ok").Inc()
}

// withRateLimit calls fn again after Slack's Retry-After when Slack answers
// 429, at most rateLimitAttempts times in all.
func withRateLimit[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := fn()
		var rl *slack.RateLimitedError
		if err == nil || !errors.As(err, &rl) || attempt >= rateLimitAttempts {
			return v, err
		}
		wait := min(max(rl.RetryAfter, 100*time.Millisecond), maxRateLimitWait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
	}
}
