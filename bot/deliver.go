package bot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// maxRetryWait bounds one wait before a retry (Slack's Retry-After).
const maxRetryWait = 10 * time.Second

// attempts bounds the calls of one route when Slack answers with a
// temporary failure.
const attempts = 3

// Deliver gives r to to.User alone, trying in order (docs/delivery.md): the
// response_url, chat.postEphemeral in the channel, and chat.postEphemeral
// in the user's direct-message channel with the bot. Each route retries a
// temporary failure (HTTP 5xx, 429 after Retry-After, a reset) a few times
// before the next is tried. It returns an error only when no route worked.
func (m *Messenger) Deliver(ctx context.Context, to commands.Route, r commands.Reply) error {
	var errs []error
	if to.Handle != "" {
		err := m.postResponse(ctx, to.Handle, r, to.Replace)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	opts := messageOptions(r)
	if to.Channel != "" {
		err := m.ephemeral(ctx, to.Channel, to.User, opts)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	err := m.ephemeralDM(ctx, to.User, opts)
	if err == nil {
		return nil
	}
	errs = append(errs, err)
	m.m.undelivered.Inc()
	return errors.Join(errs...)
}

// postResponse posts r, ephemeral, to a response_url.
func (m *Messenger) postResponse(ctx context.Context, responseURL string, r commands.Reply, replace bool) error {
	if err := checkResponseURL(responseURL); err != nil {
		return err
	}
	body, err := responseBody(r, replace)
	if err != nil {
		return fmt.Errorf("response_url: %w", err)
	}
	_, err = retrying(ctx, func() (struct{}, error) {
		return struct{}{}, m.postWebhook(ctx, responseURL, body)
	})
	if err != nil {
		return fmt.Errorf("response_url: %w", err)
	}
	return nil
}

// ephemeral posts an ephemeral message to user in channel.
func (m *Messenger) ephemeral(ctx context.Context, channel, user string, opts []slack.MsgOption) error {
	_, err := retrying(ctx, func() (string, error) { return m.api.PostEphemeralContext(ctx, channel, user, opts...) })
	if err != nil {
		return fmt.Errorf("chat.postEphemeral in %s: %w", channel, err)
	}
	return nil
}

// ephemeralDM posts an ephemeral message in user's direct-message channel
// with the bot.
func (m *Messenger) ephemeralDM(ctx context.Context, user string, opts []slack.MsgOption) error {
	dm, err := m.openDM(ctx, user)
	if err != nil {
		return err
	}
	return m.ephemeral(ctx, dm, user, opts)
}

// openDM opens user's direct-message channel with the bot and returns it.
func (m *Messenger) openDM(ctx context.Context, user string) (string, error) {
	dm, err := retrying(ctx, func() (string, error) {
		ch, _, _, err := m.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{user}, ReturnIM: true})
		if err != nil {
			return "", err
		}
		return ch.ID, nil
	})
	if err != nil {
		return "", fmt.Errorf("conversations.open: %w", err)
	}
	return dm, nil
}

// checkResponseURL accepts https URLs, and http ones on loopback (tests).
func checkResponseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("response_url is not a URL")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !isLoopback(u.Hostname())) {
		return errors.New("response_url is not https")
	}
	return nil
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// retrying calls fn again when Slack answers with a temporary failure:
// 429 (after its Retry-After), HTTP 5xx, or a connection reset; at most
// attempts calls in all, and never past ctx.
func retrying[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	backoff := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		v, err := fn()
		wait, again := retryAfter(err, backoff)
		if !again || attempt >= attempts {
			return v, err
		}
		t := time.NewTimer(min(wait, maxRetryWait))
		select {
		case <-ctx.Done():
			t.Stop()
			return v, err
		case <-t.C:
		}
		backoff *= 2
	}
}

// retryAfter says whether err is a temporary failure worth another try,
// and how long to wait first.
func retryAfter(err error, backoff time.Duration) (time.Duration, bool) {
	var (
		rl  *slack.RateLimitedError
		sce slack.StatusCodeError
		ne  net.Error
		oe  *net.OpError
	)
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &rl):
		return max(rl.RetryAfter, 100*time.Millisecond), true
	case errors.As(err, &sce):
		return backoff, apiclient.StatusClass(sce.Code, false) == apiclient.ClassTemporary
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return 0, false
	case errors.As(err, &oe), errors.As(err, &ne):
		return backoff, true
	}
	return backoff, isReset(err)
}

// isReset reports a connection closed before the answer: the server went
// away mid-request (io.ErrUnexpectedEOF, EOF, ECONNRESET).
func isReset(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && !ue.Timeout()
}

// Notify posts text to the ops channel, if there is one. text is the
// core's words with user IDs marked by [Mention]; it is escaped here.
func (m *Messenger) Notify(ctx context.Context, text string) error {
	_, err := m.PostNotice(ctx, text)
	return err
}

// count counts a message to the ops channel by outcome.
func (m *Messenger) count(err error) {
	if err != nil {
		m.m.notifications.WithLabelValues("failed").Inc()
		m.log.Warn("ops channel message failed", zap.String("channel", m.cfg.OpsChannel), zap.Error(err))
		return
	}
	m.m.notifications.WithLabelValues("ok").Inc()
}
