package pdd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// RetryPolicy bounds the retries of temporary failures.
type RetryPolicy struct {
	Attempts  int           // requests in all, the first included; at least 1
	BaseDelay time.Duration // delay before the first retry, doubled each time
	MaxDelay  time.Duration // upper bound of one delay
}

// DefaultRetryPolicy makes 3 attempts, 200 ms then 400 ms apart (with jitter).
var DefaultRetryPolicy = RetryPolicy{Attempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second}

// WithRetry sets the retry policy of temporary failures.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) error {
		if p.Attempts < 1 || p.BaseDelay < 0 || p.MaxDelay < p.BaseDelay {
			return fmt.Errorf("invalid retry policy %+v", p)
		}
		c.retry = p
		return nil
	}
}

// RetryReason says why a request is retried. Its values are the few
// constants below (see [RetryReasons]), fit for a metric label.
type RetryReason string

// The reasons of a retry.
const (
	RetryUnknown   RetryReason = "unknown"   // the API answered "unknown", a temporary failure
	RetryNotSent   RetryReason = "not_sent"  // the request never left: the connection could not be made
	RetryTimeout   RetryReason = "timeout"   // register only: sent, and no answer in time
	RetryTransport RetryReason = "transport" // register only: sent, and the connection failed before the answer
	RetryHTTP5xx   RetryReason = "http_5xx"  // register only: an HTTP 5xx answer (but 501)
)

// RetryReasons returns every [RetryReason], for instance to start a
// counter of each at zero.
func RetryReasons() []RetryReason {
	return []RetryReason{RetryUnknown, RetryNotSent, RetryTimeout, RetryTransport, RetryHTTP5xx}
}

// WithRetryHook calls fn each time a failed attempt is to be retried, with
// the operation and the reason, before the backoff delay; a retry that the
// caller's context cancels during that delay is not sent. fn runs on the
// calling goroutine and must return quickly, as a metric counter does.
func WithRetryHook(fn func(op Op, reason RetryReason)) Option {
	return func(c *Client) error {
		c.onRetry = fn
		return nil
	}
}

// call posts form to path and decodes the answer, retrying as idempotent
// allows: a temporary failure ("unknown") and a request that was never sent
// are always retried; a request that was sent but got no answer (a timeout, a
// reset, a 5xx) only when idempotent is true. An error after an attempt
// that may have performed the operation is marked so (see [MayHaveHappened]).
func (c *Client) call(ctx context.Context, op Op, form url.Values, idempotent bool, secrets ...string) (*response, error) {
	secrets = append(secrets, c.token)
	uncertain := false
	for attempt := 1; ; attempt++ {
		resp, err := c.once(ctx, op, form, secrets)
		if err == nil {
			return resp, nil
		}
		var apiErr *Error
		if errors.As(err, &apiErr) {
			apiErr.Attempts = attempt
		}
		if uncertain {
			markUncertain(err)
		}
		reason, retry := retryReason(err, idempotent)
		if !retry || attempt >= c.retry.Attempts || ctx.Err() != nil {
			return nil, err
		}
		uncertain = uncertain || MayHaveHappened(err)
		if c.onRetry != nil {
			c.onRetry(op, reason)
		}
		if werr := sleep(ctx, c.backoff(attempt)); werr != nil {
			return nil, err
		}
	}
}

// retryReason says whether the error of an attempt is to be retried, and
// why.
func retryReason(err error, idempotent bool) (RetryReason, bool) {
	var (
		apiErr   *Error
		respErr  *ResponseError
		transErr *TransportError
	)
	switch {
	case errors.As(err, &apiErr):
		return RetryUnknown, apiErr.Code.Temporary()
	case errors.As(err, &respErr):
		return RetryHTTP5xx, idempotent && respErr.StatusCode >= 500 && respErr.StatusCode != http.StatusNotImplemented
	case errors.As(err, &transErr) && !transErr.Sent:
		return RetryNotSent, true
	case errors.As(err, &transErr) && transErr.Timeout():
		return RetryTimeout, idempotent
	case errors.As(err, &transErr):
		return RetryTransport, idempotent
	}
	return "", false // another error: a request that could not be built
}

// backoff is the delay after the given attempt: exponential, with full jitter
// in its upper half.
func (c *Client) backoff(attempt int) time.Duration {
	if c.retry.BaseDelay == 0 {
		return 0
	}
	d := c.retry.BaseDelay << (attempt - 1)
	if d > c.retry.MaxDelay || d <= 0 {
		d = c.retry.MaxDelay
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
