package apiclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one request to a provider (MAILBOT_PROVIDER_TIMEOUT).
const DefaultTimeout = 15 * time.Second

// MaxBody bounds what is read of an answer. Provider answers are small;
// a mailcow list of thousands of mailboxes is the largest (about 1 KB a
// mailbox).
const MaxBody = 8 << 20

// MaxRetryAfter bounds how long a provider's Retry-After is honoured.
const MaxRetryAfter = 60 * time.Second

// RetryPolicy bounds the attempts of one operation.
type RetryPolicy struct {
	Attempts  int           // requests in all, at least 1
	BaseDelay time.Duration // before the second attempt; doubles after each
	MaxDelay  time.Duration // the longest delay of the backoff (Retry-After may be longer)
}

// DefaultRetryPolicy makes three attempts in all, at most: a temporary
// failure is tried twice more, with backoff, before it is reported.
var DefaultRetryPolicy = RetryPolicy{Attempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second}

// Caller sends the requests of one provider adapter: one upstream, its
// credentials in headers, a timeout per attempt, bounded answers, no
// redirects (the credentials would follow them to another host), and
// retries as the failure's class allows. It is safe for concurrent use.
type Caller struct {
	provider  string
	base      *url.URL
	header    http.Header
	secrets   []string // the header values: redacted from every text
	hc        *http.Client
	rt        http.RoundTripper
	timeout   time.Duration
	userAgent string
	agent     []string // the User-Agent header's value, built once
	prefix    string   // the base URL as a string, when a simple path may be appended to it (joinPrefix)
	retry     RetryPolicy
	onRetry   func(op Op, reason string)
}

// Option configures a [Caller].
type Option func(*Caller) error

// WithHTTPClient sets the HTTP client, for a custom transport or trust
// store (its redirect policy is replaced: redirects are never followed).
// It cannot be combined with [WithTransport].
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Caller) error {
		if hc == nil {
			return errors.New("nil http client")
		}
		c.hc = hc
		return nil
	}
}

// WithTransport sends the requests through rt, such as a transport of
// [NewTransport], in an HTTP client of the caller's own. It cannot be
// combined with [WithHTTPClient].
func WithTransport(rt http.RoundTripper) Option {
	return func(c *Caller) error {
		if rt == nil {
			return errors.New("nil transport")
		}
		c.rt = rt
		return nil
	}
}

// WithTimeout bounds each attempt.
func WithTimeout(d time.Duration) Option {
	return func(c *Caller) error {
		if d <= 0 {
			return fmt.Errorf("timeout %s is not positive", d)
		}
		c.timeout = d
		return nil
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Caller) error {
		c.userAgent = ua
		return nil
	}
}

// WithRetry sets the retry policy.
func WithRetry(p RetryPolicy) Option {
	return func(c *Caller) error {
		if p.Attempts < 1 || p.BaseDelay < 0 || p.MaxDelay < p.BaseDelay {
			return fmt.Errorf("invalid retry policy %+v", p)
		}
		c.retry = p
		return nil
	}
}

// WithRetryHook calls fn before each retry, with the reason (the class of
// the failure that is retried), for a metric.
func WithRetryHook(fn func(op Op, reason string)) Option {
	return func(c *Caller) error {
		c.onRetry = fn
		return nil
	}
}

// NewCaller returns a caller of provider's API at baseURL (checked by
// [CheckURL]) that sends header, the credentials, with every request.
func NewCaller(provider, baseURL string, header http.Header, opts ...Option) (*Caller, error) {
	u, err := CheckURL(baseURL)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	c := &Caller{provider: provider, base: u, header: header.Clone(), timeout: DefaultTimeout, userAgent: "mailbot", retry: DefaultRetryPolicy}
	for _, vs := range header {
		for _, v := range vs {
			if v == "" {
				return nil, fmt.Errorf("%s: empty credentials", provider)
			}
			c.secrets = append(c.secrets, v)
			if _, after, ok := strings.Cut(v, " "); ok { // "OAuth <token>": the token alone too
				c.secrets = append(c.secrets, after)
			}
		}
	}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	switch {
	case c.hc != nil && c.rt != nil:
		return nil, errors.New("both an http client and a transport given")
	case c.hc == nil:
		c.hc = &http.Client{Transport: c.rt, Timeout: c.timeout + time.Second}
	}
	c.agent = []string{c.userAgent}
	c.prefix = joinPrefix(c.base)
	hc := *c.hc // a copy: the caller's client is left as it was
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = &hc
	return c, nil
}

// Provider names the provider, for errors.
func (c *Caller) Provider() string { return c.provider }

// HTTPClient returns the client the caller sends with (redirects are not
// followed), for an adapter that must reach another endpoint of the same
// provider through the same transport and trust store: an OAuth token
// endpoint.
func (c *Caller) HTTPClient() *http.Client { return c.hc }

// Timeout is the bound of one attempt.
func (c *Caller) Timeout() time.Duration { return c.timeout }

// Secrets returns the credentials, for an adapter that redacts an answer.
func (c *Caller) Secrets() []string { return c.secrets }

// Request is one HTTP request to the provider.
type Request struct {
	Op     Op
	Method string
	Path   string     // joined to the base URL; escaped by the adapter where needed
	Query  url.Values // nil for none
	// RawQuery is the query encoded, when Query is nil.
	RawQuery string
	Body     []byte // nil for none
	Type     string // the body's Content-Type
	// Header holds headers of this request alone, set after the caller's
	// own: a bearer token that changes while the caller lives (keep it out
	// of errors with [Caller.WithSecrets]).
	Header http.Header
}

// Response is one HTTP answer, its body bounded by [MaxBody].
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Exchange makes one attempt: it sends r and reads the answer. Without an
// answer it returns an *Error: ClassTemporary when the request certainly
// did not reach the provider, ClassUncertain when it may have. An answer
// of any HTTP status is returned as it is, for the adapter to read.
func (c *Caller) Exchange(ctx context.Context, r Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	sent := newSentTrace()
	req, err := c.newRequest(httptrace.WithClientTrace(ctx, &sent.trace), r)
	if err != nil {
		return nil, err
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, c.noAnswer(r.Op, sent.wrote.Load(), err)
	}
	defer res.Body.Close()
	data, err := readBody(res.Body, res.ContentLength)
	if err != nil {
		return nil, c.noAnswer(r.Op, true, err)
	}
	if len(data) > MaxBody {
		return nil, c.Fail(r.Op, ClassUncertain, res.StatusCode, "", fmt.Sprintf("answer larger than %d bytes", MaxBody))
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: data}, nil
}

// noAnswer is the error of an attempt that got no answer.
func (c *Caller) noAnswer(op Op, sent bool, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) { // the URL is configuration; the op names the call
		err = ue.Err
	}
	e := &Error{Provider: c.provider, Op: op, Class: ClassTemporary, Sent: sent, Attempts: 1,
		Err: newCause(Scrub(redact(err.Error(), c.secrets), maxCauseText), err)}
	var t interface{ Timeout() bool }
	e.Timeout = errors.As(err, &t) && t.Timeout()
	if sent {
		e.Class = ClassUncertain
		e.Message = "no answer after the request was sent"
	} else {
		e.Message = "the request was not sent"
	}
	return e
}

// Fail returns the *Error of an answer: its class, HTTP status, the
// provider's code (cut and redacted) and a message in words (redacted).
func (c *Caller) Fail(op Op, class Class, status int, code, message string) *Error {
	e := &Error{Provider: c.provider, Op: op, Class: class, HTTPStatus: status, Attempts: 1}
	if code != "" {
		e.Code = CutCode(code, c.secrets)
	}
	if message != "" {
		e.Message = Scrub(redact(message, c.secrets), MaxCodeLen)
	}
	return e
}

// Do runs attempt until it succeeds or its failure may not be retried: a
// temporary failure is retried up to the policy's attempts, after the
// provider's Retry-After or the backoff; an uncertain one only when
// idempotent (the call sets a state, so sending it again is harmless).
// Once an attempt was uncertain, the final failure is uncertain too. The
// returned *Error counts the attempts.
func (c *Caller) Do(ctx context.Context, op Op, idempotent bool, attempt func(ctx context.Context) error) error {
	uncertain := false
	for n := 1; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		var e *Error
		if !errors.As(err, &e) {
			return err // a request that could not be built: a bug
		}
		e.Attempts = n
		if uncertain && e.Class == ClassTemporary {
			e.Class = ClassUncertain
		}
		retry := e.Class == ClassTemporary || e.Class == ClassUncertain && idempotent
		if !retry || n >= c.retry.Attempts || ctx.Err() != nil {
			return e
		}
		uncertain = uncertain || e.Class == ClassUncertain
		if c.onRetry != nil {
			c.onRetry(op, e.Class.String())
		}
		if werr := sleep(ctx, max(e.RetryAfter, c.backoff(n))); werr != nil {
			return e
		}
	}
}

// backoff is the delay after the given attempt: exponential, with full
// jitter in its upper half.
func (c *Caller) backoff(attempt int) time.Duration {
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
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
