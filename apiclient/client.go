// Package apiclient is a client of the PDD API, the mail-hosting service's
// domain administration API: register a domain and add a mailbox to it.
//
// The service answers HTTP 200 even for errors; an answer with "success":
// "error" becomes an [*Error] carrying the [Code]. An answer that is not a PDD
// answer at all becomes a [*ResponseError], and no answer a
// [*TransportError]. No error string carries the token or a password.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultBaseURL is the production PDD API.
const DefaultBaseURL = "https://pddimp.yandex.ru"

// DefaultTimeout bounds one request unless [WithTimeout] says otherwise.
const DefaultTimeout = 15 * time.Second

// maxBody bounds what is read of an answer; PDD answers are a few hundred bytes.
const maxBody = 64 << 10

// excerptLen is how much of a bad body an error shows.
const excerptLen = 64

// RetryPolicy bounds the retries of temporary failures.
type RetryPolicy struct {
	Attempts  int           // requests in all, the first included; at least 1
	BaseDelay time.Duration // delay before the first retry, doubled each time
	MaxDelay  time.Duration // upper bound of one delay
}

// DefaultRetryPolicy makes 3 attempts, 200 ms then 400 ms apart (with jitter).
var DefaultRetryPolicy = RetryPolicy{Attempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second}

// Client calls the PDD API with one account's token. It is safe for
// concurrent use.
type Client struct {
	base      *url.URL
	token     string
	hc        *http.Client
	timeout   time.Duration
	userAgent string
	retry     RetryPolicy
}

// Option configures a [Client].
type Option func(*Client) error

// WithHTTPClient sets the HTTP client, for a custom transport or trust store.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("nil http client")
		}
		c.hc = hc
		return nil
	}
}

// WithTimeout bounds each request (each attempt, when retried).
func WithTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return fmt.Errorf("timeout %s is not positive", d)
		}
		c.timeout = d
		return nil
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) error {
		c.userAgent = ua
		return nil
	}
}

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

// New returns a client of the PDD API at baseURL (scheme and host, such as
// [DefaultBaseURL]), acting with token.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	u, err := CheckURL(baseURL)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if token == "" {
		return nil, errors.New("empty PDD token")
	}
	c := &Client{base: u, token: token, timeout: DefaultTimeout, userAgent: "mailbot", retry: DefaultRetryPolicy}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: c.timeout + time.Second}
	}
	// Never follow a redirect: the PddToken header would go along to
	// whatever host the redirect names. A copy, so the caller's client is
	// left as it was.
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = &hc
	return c, nil
}

// CheckURL parses raw and requires https, or http to a loopback host. Its
// errors show the URL without user information, query or fragment, which
// may hold a secret, and do not show a value that does not parse.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("the value is not a URL")
	}
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	switch {
	case u.Host == "":
		return nil, fmt.Errorf("%q is not an absolute URL", shown)
	case u.User != nil:
		return nil, fmt.Errorf("%q: a base URL has no user information", shown)
	case u.Scheme == "https":
	case u.Scheme == "http" && IsLoopback(u.Hostname()):
	default:
		return nil, fmt.Errorf("%q: the scheme must be https (http only to a loopback host)", shown)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, fmt.Errorf("%q: a base URL has no query or fragment", shown)
	}
	return u, nil
}

// IsLoopback reports whether host is localhost or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// response is the union of both operations' answers (seed §2).
type response struct {
	Success string      `json:"success"`
	Error   string      `json:"error"`
	Domain  string      `json:"domain"`
	Status  string      `json:"status"`
	Stage   string      `json:"stage"`
	Secrets *Secrets    `json:"secrets"`
	Login   string      `json:"login"`
	UID     json.Number `json:"uid"`
}

// call posts form to path and decodes the answer, retrying as idempotent
// allows: a temporary failure ("unknown") and a request that was never sent
// are always retried; a request that was sent but got no answer (a timeout, a
// reset, a 5xx) only when idempotent is true.
func (c *Client) call(ctx context.Context, op Op, form url.Values, idempotent bool, secrets ...string) (*response, error) {
	secrets = append(secrets, c.token)
	var err error
	for attempt := 1; ; attempt++ {
		var resp *response
		var sent bool
		resp, sent, err = c.once(ctx, op, form, secrets)
		if err == nil {
			if resp.Success == "ok" {
				return resp, nil
			}
			err = &Error{Op: op, Code: Code(redact(resp.Error, secrets)), Attempts: attempt}
		}
		if attempt >= c.retry.Attempts || !retryable(err, sent, idempotent) {
			return nil, err
		}
		if werr := sleep(ctx, c.backoff(attempt)); werr != nil {
			return nil, err
		}
	}
}

func retryable(err error, sent, idempotent bool) bool {
	var apiErr *Error
	var respErr *ResponseError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.Code.Temporary()
	case errors.As(err, &respErr):
		return idempotent && respErr.StatusCode >= 500 && respErr.StatusCode != http.StatusNotImplemented
	default:
		return !sent || idempotent
	}
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

// once sends one request; sent reports whether it may have reached the
// service.
func (c *Client) once(ctx context.Context, op Op, form url.Values, secrets []string) (_ *response, sent bool, _ error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	// The transport calls WroteHeaders from its own goroutine, which may
	// still run when Do has returned (a timeout): hence the atomic.
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteHeaders: func() { wrote.Store(true) },
	})
	u := c.base.JoinPath("api2/admin", string(op))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, false, fmt.Errorf("pdd %s: %w", op, err)
	}
	req.Header.Set("PddToken", c.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	res, err := c.hc.Do(req)
	if err != nil {
		sent = wrote.Load()
		return nil, sent, &TransportError{Op: op, Sent: sent, Err: cleanURLError(err)}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return nil, true, &TransportError{Op: op, Sent: true, Err: cleanURLError(err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxBody))
	resp, err := decode(op, res.StatusCode, body, secrets...)
	return resp, true, err
}

// cleanURLError drops the URL from a *url.Error: it holds no secret, but the
// operation already names the endpoint and the host is configuration.
func cleanURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// decode turns an HTTP answer into a PDD answer. The answer is a PDD answer
// only with status 200, a JSON object within the size limit, and a "success"
// of "ok" or "error" (with a code).
func decode(op Op, status int, body []byte, secrets ...string) (*response, error) {
	bad := func(reason string) error {
		return &ResponseError{Op: op, StatusCode: status, Reason: reason, Excerpt: excerpt(body, excerptLen, secrets...)}
	}
	if len(body) > maxBody {
		return nil, &ResponseError{Op: op, StatusCode: status, Reason: fmt.Sprintf("answer larger than %d bytes", maxBody)}
	}
	if status != http.StatusOK {
		return nil, bad("unexpected HTTP status")
	}
	var r response
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&r); err != nil {
		var syntaxErr *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, bad("truncated JSON answer")
		case errors.As(err, &syntaxErr):
			return nil, bad("answer is not JSON")
		}
		return nil, bad("answer is not a JSON object of the PDD API")
	}
	if dec.More() {
		return nil, bad("trailing data after the JSON answer")
	}
	switch {
	case r.Success == "ok":
		return &r, nil
	case r.Success == "error" && r.Error != "":
		return &r, nil
	default:
		return nil, bad(`answer has no "success" of "ok" or "error"`)
	}
}
