package pdd

import (
	"errors"
	"net/http"

	"github.com/mailbot/mailbot/apiclient"
)

// RetryPolicy bounds the retries of temporary failures.
type RetryPolicy = apiclient.RetryPolicy

// DefaultRetryPolicy makes 3 attempts, 200 ms then 400 ms apart (with jitter).
var DefaultRetryPolicy = apiclient.DefaultRetryPolicy

// RetryReason says why a request is retried. Its values are the few
// constants below (see [RetryReasons]), fit for a metric label.
type RetryReason string

// The reasons of a retry.
const (
	RetryUnknown   RetryReason = "unknown"   // the API answered "unknown", a temporary failure
	RetryNotSent   RetryReason = "not_sent"  // the request never left: the connection could not be made
	RetryTimeout   RetryReason = "timeout"   // a call that sets a state: sent, and no answer in time
	RetryTransport RetryReason = "transport" // a call that sets a state: sent, and the connection failed before the answer
	RetryHTTP5xx   RetryReason = "http_5xx"  // an HTTP 5xx answer to a call that creates nothing
	RetryHTTP429   RetryReason = "http_429"  // HTTP 429 Too Many Requests, after its Retry-After
)

// RetryReasons returns every [RetryReason], for instance to start a
// counter of each at zero.
func RetryReasons() []RetryReason {
	return []RetryReason{RetryUnknown, RetryNotSent, RetryTimeout, RetryTransport, RetryHTTP5xx, RetryHTTP429}
}

// WithRetryHook calls fn each time a failed attempt is retried, with the
// operation and the reason, as the retry is sent (after the backoff: a
// retry that the caller's context cancels meanwhile is not counted). fn
// runs on the calling goroutine and must return quickly, as a metric
// counter does.
func WithRetryHook(fn func(op Op, reason RetryReason)) Option {
	return func(s *settings) error {
		s.onRetry = fn
		return nil
	}
}

// retryReason says why the failed attempt err is retried.
func retryReason(err error) RetryReason {
	var e *apiclient.Error
	errors.As(err, &e)
	switch {
	case e == nil:
		return ""
	case e.Code != "":
		return RetryUnknown
	case e.HTTPStatus == http.StatusTooManyRequests:
		return RetryHTTP429
	case e.HTTPStatus != 0:
		return RetryHTTP5xx
	case !e.Sent:
		return RetryNotSent
	case e.Timeout:
		return RetryTimeout
	}
	return RetryTransport
}
