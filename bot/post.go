package bot

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
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
	form := postForm(m.cfg.BotToken, channel, text, raw)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.cfg.APIURL+"chat.postMessage", bytes.NewReader(form))
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

// postForm is the form of a chat.postMessage, as url.Values encodes it
// (its keys in order, each value escaped as a query component), written
// into one buffer.
func postForm(token, channel, text string, blocks []byte) []byte {
	dst := make([]byte, 0, 2*(len(blocks)+len(text))+len(token)+len(channel)+32)
	dst = appendQueryEscape(append(dst, "blocks="...), blocks)
	dst = appendQueryEscape(append(dst, "&channel="...), channel)
	dst = appendQueryEscape(append(dst, "&text="...), text)
	return appendQueryEscape(append(dst, "&token="...), token)
}

// appendQueryEscape appends s escaped as url.QueryEscape escapes it:
// letters, digits and -_.~ as they are, a space as +, any other byte as
// %XX.
func appendQueryEscape[T string | []byte](dst []byte, s T) []byte {
	const upperHex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&0xF])
		}
	}
	return dst
}
