// Package mailcow drives a mailcow server's API (mailcow-dockerized,
// /api/v1, header X-API-Key) for mailbot: domains, mailboxes, and what a
// domain's DNS must publish. Its sandbox is package mailcowsim.
//
// mailcow answers writes HTTP 200 with an array of entries {"type":
// "success"|"danger"|"error"|"warning", "msg": code or [code, args...]}.
// A write succeeds when an entry is a success; a "warning" entry, or a
// failure entry beside a success, is a partial success, returned as a
// warning beside the result. A write with no success entry is refused by
// its first failure entry's code, in words (see codes.go); an answer that
// does not say (no entries, garbled) is uncertain. Reads answer {} for
// nothing: a mailbox or domain that does not exist, and a domain with no
// mailboxes.
//
// Authentication: a wrong key, or a caller outside the key's allowed IPs,
// gets HTTP 401, and every 401 feeds mailcow's fail2ban, which bans the
// caller's address after a few. So after one 401 this client sends
// nothing more: every later call fails at once with the same credentials
// error, until the process restarts with a fixed MAILCOW_API_KEY. A
// read-only key gets HTTP 403 on writes (reads still work).
//
// mailcow has no paging: [Client.ListMailboxes] loads the domain's whole
// list in one call and hands it out a page at a time (the cursor is the
// offset). Mailboxes have no ID besides their address. A blocked mailbox
// is mailcow's active 2 (no logins, mail still accepted); active 0 is
// inactive (mail refused).
package mailcow

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

// Client is a mailcow API client. It is safe for concurrent use.
type Client struct {
	caller *apiclient.Caller
	mx     string
	// keyRefused is set by a 401: nothing is sent after it.
	keyRefused atomic.Bool
}

// New returns a client of the mailcow server at baseURL (https, or http to
// a loopback host) with the API key, a read-write key. mx is the host the
// domains' MX records must name; "" takes the host of baseURL, which must
// then be a name, not an IP address.
func New(baseURL, apiKey, mx string, opts ...apiclient.Option) (*Client, error) {
	caller, err := apiclient.NewCaller(apiclient.ProviderMailcow, baseURL, http.Header{"X-Api-Key": {apiKey}}, opts...)
	if err != nil {
		return nil, err
	}
	if mx == "" {
		u, _ := url.Parse(baseURL) // NewCaller has parsed it
		mx = u.Hostname()
		if net.ParseIP(mx) != nil {
			return nil, fmt.Errorf("mailcow: the URL's host %s is an IP address: set the MX host (MAILCOW_MX)", mx)
		}
	}
	return &Client{caller: caller, mx: strings.TrimSuffix(strings.ToLower(mx), ".")}, nil
}

// Name is apiclient.ProviderMailcow.
func (c *Client) Name() string { return apiclient.ProviderMailcow }

// Capabilities: mailcow forces a password change (force_pw_update), keeps
// mail for a blocked mailbox (active 2), has no mailbox IDs, no paging and
// no ownership check; it has aliases (alias.go).
func (c *Client) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: Title, ForcePasswordChange: true, KeepsMailWhenBlocked: true, Aliases: true}
}

// Check proves the key with one read, GET /api/v1/get/status/version (the
// call mailcow's own clients use to test a connection): a refused key is
// ClassCredentials, and after a 401 the client sends nothing more.
func (c *Client) Check(ctx context.Context) error {
	var v struct {
		Version string `json:"version"`
	}
	_, err := c.read(ctx, apiclient.OpCheck, "get/status/version", &v)
	return err
}

// call is one request of an operation.
type call struct {
	op         apiclient.Op
	method     string
	path       string // below api/v1/
	body       []byte
	idempotent bool
	password   string // sent in the body: kept out of errors (apiclient.Caller.WithSecrets)
}

// send makes the call, retried as its class allows, and hands a 200
// answer to handle, with the caller that keeps the call's password out of
// errors.
func (c *Client) send(ctx context.Context, k call, handle func(caller *apiclient.Caller, body []byte) error) error {
	req := apiclient.Request{Op: k.op, Method: k.method, Path: "api/v1/" + k.path, Body: k.body}
	if k.body != nil {
		req.Type = "application/json"
	}
	caller := c.caller.WithSecrets(k.password)
	return caller.Do(ctx, k.op, k.idempotent, func(ctx context.Context) error {
		if c.keyRefused.Load() {
			return c.refusedEarlier(k.op)
		}
		res, err := caller.Exchange(ctx, req)
		if err != nil {
			return err
		}
		if res.Status != http.StatusOK {
			return c.statusError(caller, k, res)
		}
		return handle(caller, res.Body)
	})
}

// statusError is the error of an answer other than HTTP 200. A 401 stops
// the client.
func (c *Client) statusError(caller *apiclient.Caller, k call, res *apiclient.Response) error {
	if res.Status == http.StatusUnauthorized {
		c.keyRefused.Store(true)
	}
	class := apiclient.StatusClass(res.Status, !k.idempotent)
	msg := errorMessage(res.Body)
	if msg == "" {
		msg = apiclient.Excerpt(res.Body, apiclient.ExcerptLen, caller.Secrets()...)
	}
	e := caller.Fail(k.op, class, res.Status, fmt.Sprintf("HTTP %d", res.Status), msg)
	e.RetryAfter = apiclient.RetryAfter(res.Header, time.Now())
	e.Sent = true
	return e
}

// refusedEarlier is the error of every call after a 401.
func (c *Client) refusedEarlier(op apiclient.Op) *apiclient.Error {
	return &apiclient.Error{Provider: apiclient.ProviderMailcow, Op: op, Class: apiclient.ClassCredentials, Code: "HTTP 401",
		Message: "the API key was refused before; nothing was sent, so that mailcow's fail2ban does not ban this address: fix the key or its allowed IPs and restart"}
}

// write posts body to path and returns the warnings of its success;
// denied is what mailcow's access_denied means for this call.
func (c *Client) write(ctx context.Context, k call, body any, denied apiclient.Reason) ([]string, error) {
	data, err := jsonBody(body)
	if err != nil {
		return nil, err
	}
	k.method, k.body = http.MethodPost, data
	var warnings []string
	err = c.send(ctx, k, func(caller *apiclient.Caller, answer []byte) error {
		var ferr error
		warnings, ferr = outcome(caller, k, answer, denied)
		return ferr
	})
	return warnings, err
}

// read gets path and decodes its answer into v; found is false for {}.
func (c *Client) read(ctx context.Context, op apiclient.Op, path string, v any) (found bool, err error) {
	return c.readKeeping(ctx, op, path, "", v)
}

// readKeeping is read for an operation that carries a password (kept out
// of its errors too).
func (c *Client) readKeeping(ctx context.Context, op apiclient.Op, path, password string, v any) (found bool, err error) {
	k := call{op: op, method: http.MethodGet, path: path, idempotent: true, password: password}
	err = c.send(ctx, k, func(caller *apiclient.Caller, answer []byte) error {
		var derr error
		found, derr = decodeRead(answer, v)
		if errors.Is(derr, errRefusal) {
			_, derr = outcome(caller, k, answer, apiclient.ReasonNotAllowed)
		} else if derr != nil {
			derr = caller.Fail(op, apiclient.ClassTemporary, http.StatusOK, "", "the answer is not the JSON expected: "+derr.Error())
		}
		return derr
	})
	return found, err
}

// segment is one path segment of a domain or address: escaped, and
// refused without sending when it could change the path.
func (c *Client) segment(op apiclient.Op, s string) (string, error) {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\?#") {
		e := c.caller.Fail(op, apiclient.ClassRefused, 0, "", fmt.Sprintf("%q is not a domain or address", apiclient.Scrub(s, 64)))
		e.Reason = apiclient.ReasonInvalid
		return "", e
	}
	return url.PathEscape(s), nil
}

// CheckLogin checks a local part by mailcow's rule, for every command
// alike: [apiclient.LocalPartLogin] (mailcow takes a local part whose
// letters and digits remain once '.', '-' and '_' are removed).
func (c *Client) CheckLogin(login string) error { return apiclient.LocalPartLogin(login) }

// Title names the provider in replies, notices and the shell's banner.
const Title = "mailcow"
