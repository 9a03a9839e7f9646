// Package apiclient is a client of the PDD API, the mail-hosting service's
// domain administration API: register a domain and add a mailbox to it.
//
// The service answers HTTP 200 even for errors; an answer with "success":
// "error" becomes an [*Error] carrying the [Code]. An answer that is not a PDD
// answer at all becomes a [*ResponseError], and no answer a
// [*TransportError]. No error carries the token, a password or a
// verification secret, and an unknown code is cut to [apiclient.MaxCodeLen]
// characters.
//
// After a failure, [NothingDone] says whether the service certainly changed
// nothing (the operation may be offered again), [MayHaveHappened] whether
// it may have performed the operation (an add may have created the
// mailbox); when neither holds, the failure is definitive. [WithRetryHook]
// reports each retry for a metric, and [NewTransport] keeps as many
// connections warm as requests run at once.
package pdd

import (
	"github.com/mailbot/mailbot/apiclient"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// Client calls the PDD API with one account's token. It is safe for
// concurrent use.
type Client struct {
	base      *url.URL
	token     string
	hc        *http.Client
	timeout   time.Duration
	userAgent string
	retry     RetryPolicy
	rt        http.RoundTripper     // WithTransport
	onRetry   func(Op, RetryReason) // WithRetryHook
}

// Option configures a [Client].
type Option func(*Client) error

// WithHTTPClient sets the HTTP client, for a custom transport or trust store.
// It cannot be combined with [WithTransport].
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("nil http client")
		}
		c.hc = hc
		return nil
	}
}

// WithTransport sends the requests through rt, such as a transport of
// [NewTransport] sized to the number of concurrent calls, in an HTTP client
// of the package's own (its timeouts unchanged). It cannot be combined with
// [WithHTTPClient].
func WithTransport(rt http.RoundTripper) Option {
	return func(c *Client) error {
		if rt == nil {
			return errors.New("nil transport")
		}
		c.rt = rt
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

// New returns a client of the PDD API at baseURL (scheme and host, such as
// [DefaultBaseURL]), acting with token.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	u, err := apiclient.CheckURL(baseURL)
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
	switch {
	case c.hc != nil && c.rt != nil:
		return nil, errors.New("both an http client and a transport given")
	case c.hc == nil:
		c.hc = &http.Client{Transport: c.rt, Timeout: c.timeout + time.Second}
	}
	// Never follow a redirect: the PddToken header would go along to
	// whatever host the redirect names. A copy, so the caller's client is
	// left as it was.
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.hc = &hc
	return c, nil
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

// once sends one request. A *TransportError says whether it may have
// reached the service.
func (c *Client) once(ctx context.Context, op Op, form url.Values, secrets []string) (*response, error) {
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
		return nil, fmt.Errorf("pdd %s: %w", op, err)
	}
	req.Header.Set("PddToken", c.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, &TransportError{Op: op, Sent: wrote.Load(), Err: cleanURLError(err)}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	if err != nil {
		return nil, &TransportError{Op: op, Sent: true, Err: cleanURLError(err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxBody))
	return decode(op, res.StatusCode, body, secrets...)
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
// of "ok" or "error" (with a code, which becomes an *Error); anything else is
// a *ResponseError. Only the error of a status other than 200 carries an
// excerpt of the body.
func decode(op Op, status int, body []byte, secrets ...string) (*response, error) {
	bad := func(reason string) error {
		e := &ResponseError{Op: op, StatusCode: status, Reason: reason}
		if status != http.StatusOK { // a 200 body may hold the verification secrets
			e.Excerpt = apiclient.Excerpt(body, apiclient.ExcerptLen, secrets...)
		}
		return e
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
		return nil, &Error{Op: op, Code: Code(apiclient.CutCode(r.Error, secrets)), Attempts: 1}
	default:
		return nil, bad(`answer has no "success" of "ok" or "error"`)
	}
}
