package bot

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"
)

// maxPostAnswer bounds the answer of chat.postMessage that post reads.
const maxPostAnswer = 1 << 20

// post posts a message of text and blocks to channel (chat.postMessage)
// and returns the channel and ts of the message Slack answers. It is
// slack-go's PostMessageContext without the decoding of the message Slack
// echoes back, blocks included, into slack-go's Message, which took a
// third of an ops notice's allocations (BenchmarkNotify): of the answer it
// reads ok, error, channel and ts. Its failures are slack-go's error types
// (RateLimitedError, StatusCodeError, SlackErrorResponse), so [retrying]
// and the callers read them as before.
func (m *Messenger) post(ctx context.Context, channel, text string, blocks ...slack.Block) (string, string, error) {
	raw, err := appendBlocks(make([]byte, 0, bodySizeHint(text, blocks)), blocks)
	if err != nil {
		return "", "", err
	}
	form := url.Values{"token": {m.cfg.BotToken}, "channel": {channel}, "text": {text}, "blocks": {string(raw)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.cfg.APIURL+"chat.postMessage", strings.NewReader(form.Encode()))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := m.apiHTTP.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		return "", "", err
	}
	return readPostAnswer(resp.Body)
}

// postWebhook posts body, JSON, to a response_url, as slack-go's
// PostWebhookCustomHTTPContext does (the same errors), from a body encoded
// once for every attempt.
func (m *Messenger) postWebhook(ctx context.Context, responseURL string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, responseURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.http.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxPostAnswer))
		_ = resp.Body.Close()
	}()
	return statusError(resp)
}

// statusError is the error slack-go gives a Web API answer of status other
// than 200: a *slack.RateLimitedError for 429 with Retry-After, a
// slack.StatusCodeError otherwise.
func statusError(resp *http.Response) error {
	if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "" {
		secs, err := strconv.ParseInt(resp.Header.Get("Retry-After"), 10, 64)
		if err != nil {
			return err
		}
		return &slack.RateLimitedError{RetryAfter: time.Duration(secs) * time.Second}
	}
	if resp.StatusCode != http.StatusOK {
		return slack.StatusCodeError{Code: resp.StatusCode, Status: resp.Status}
	}
	return nil
}
