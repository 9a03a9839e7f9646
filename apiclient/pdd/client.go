// Package pdd is the adapter of the PDD API, the mail-hosting service's
// domain administration API: the documented domain/register and email/add,
// and the real service's email/edit, email/list and
// domain/registration_status for the mailbox lifecycle.
//
// [Adapter] is the adapter every provider offers (the core's Provider),
// built on apiclient.Caller: its failures are *apiclient.Error, sorted
// into classes by the table of PDD codes (codes.go) and by HTTP status.
// The service answers HTTP 200 even for errors; "unknown" is temporary and
// retried; bad_token and no_auth are refused credentials; an add sent
// without an answer, or answered by a 5xx, is uncertain and never sent
// again; a register answered by a 5xx counts as nothing done (registering
// one's own domain again is harmless). No error carries the token, a
// password or a verification secret, and an unknown code is cut to
// apiclient.MaxCodeLen characters.
//
// What the real service's record leaves open, the adapter does not rely
// on: email/edit may answer an unknown login no_login or not_allowed (both
// are ReasonNotFound there); email/list's numbers are read as JSON numbers;
// LookupMailbox pages through email/list, since every other call that
// names one mailbox changes it.
//
// [Client] is the old client, kept until the core uses [Adapter]: the same
// calls, with the old results and error types ([*Error], [*ResponseError],
// [*TransportError], [NothingDone], [MayHaveHappened]).
package pdd

import (
	"errors"
	"net/http"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

// DefaultBaseURL is the production PDD API.
const DefaultBaseURL = "https://pddimp.yandex.ru"

// DefaultTimeout bounds one request unless [WithTimeout] says otherwise.
const DefaultTimeout = apiclient.DefaultTimeout

// Client is the old PDD client: register and add, with the old results
// and error types. It wraps an [Adapter], and goes once the core uses the
// Adapter. It is safe for concurrent use.
type Client struct{ a *Adapter }

// Option configures a [Client].
type Option func(*settings) error

// settings collect the options of a [Client].
type settings struct {
	opts    []apiclient.Option
	onRetry func(Op, RetryReason)
	retry   RetryPolicy
}

// wrap turns an apiclient option into an [Option].
func wrap(o apiclient.Option) Option {
	return func(s *settings) error {
		s.opts = append(s.opts, o)
		return nil
	}
}

// WithHTTPClient is apiclient.WithHTTPClient.
func WithHTTPClient(hc *http.Client) Option { return wrap(apiclient.WithHTTPClient(hc)) }

// WithTransport is apiclient.WithTransport.
func WithTransport(rt http.RoundTripper) Option { return wrap(apiclient.WithTransport(rt)) }

// WithTimeout is apiclient.WithTimeout.
func WithTimeout(d time.Duration) Option { return wrap(apiclient.WithTimeout(d)) }

// WithUserAgent is apiclient.WithUserAgent.
func WithUserAgent(ua string) Option { return wrap(apiclient.WithUserAgent(ua)) }

// WithRetry is apiclient.WithRetry.
func WithRetry(p RetryPolicy) Option {
	return func(s *settings) error {
		s.retry = p
		return wrap(apiclient.WithRetry(p))(s)
	}
}

// New returns a client of the PDD API at baseURL (scheme and host, such as
// [DefaultBaseURL]), acting with token.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	s := settings{retry: DefaultRetryPolicy}
	for _, opt := range opts {
		if err := opt(&s); err != nil {
			return nil, err
		}
	}
	if token == "" {
		return nil, errors.New("empty PDD token")
	}
	a, err := NewAdapter(baseURL, token, s.opts...)
	if err != nil {
		return nil, err
	}
	a.onRetry, a.attempts = s.onRetry, s.retry.Attempts
	return &Client{a: a}, nil
}

// Adapter returns the adapter the client wraps.
func (c *Client) Adapter() *Adapter { return c.a }
