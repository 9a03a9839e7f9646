package google

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/mailbot/mailbot/apiclient"
)

// request is one call of the API.
type request = apiclient.JSONCall

// call sends r with a bearer token, retried as its class allows, and
// decodes the answer. A token the endpoint refuses fails the call before
// anything is sent to the API.
func (c *Client) call(ctx context.Context, r request) error {
	req, err := c.caller.JSONRequest(r)
	if err != nil {
		return err
	}
	return c.caller.Do(ctx, r.Op, !r.Create, func(ctx context.Context) error {
		tok, err := c.token(r.Op)
		if err != nil {
			return err
		}
		caller := c.caller.WithSecrets(r.Secret, tok)
		req.Header = http.Header{"Authorization": {"Bearer " + tok}}
		res, err := caller.Exchange(ctx, req)
		if err != nil {
			return err
		}
		return c.read(caller, r, res)
	})
}

// token returns the access token, fetching one when there is none or it
// expired.
func (c *Client) token(op apiclient.Op) (string, error) {
	t, err := c.tokens.Token()
	if err != nil {
		return "", c.tokenError(op, err)
	}
	if t.AccessToken == "" {
		return "", c.caller.Fail(op, apiclient.ClassTemporary, 0, "", "the token endpoint answered without an access token")
	}
	return t.AccessToken, nil
}

// read decodes a 2xx answer into r.Out, and classifies any other.
func (c *Client) read(caller *apiclient.Caller, r request, res *apiclient.Response) error {
	if res.Status >= 200 && res.Status < 300 {
		return caller.DecodeJSON(r, res, complete)
	}
	a := parseError(res.Status, res.Body, caller.Secrets())
	v := classify(res.Status, a.reason, r.Create)
	e := caller.Fail(r.Op, v.class, res.Status, a.code(res.Status), a.message)
	e.Reason = v.reason
	if v.reason == apiclient.ReasonInvalid && strings.Contains(strings.ToLower(a.message), "password") {
		e.Reason = apiclient.ReasonPassword // "Invalid Password"
	}
	if v.class == apiclient.ClassCredentials {
		e.Setting, e.Message = c.credVar, e.Message+"; "+c.delegationHint()
		if v.admin {
			e.Setting, e.Message = c.adminVar, e.Message+"; "+c.adminHint()
		}
	}
	e.RetryAfter = apiclient.RetryAfter(res.Header, time.Now())
	return e
}

// apiError is what an error answer says: its first reason and message.
type apiError struct {
	reason  string
	message string
}

// code is the error's code as an error shows it: the reason, or the
// HTTP status without one.
func (a apiError) code(status int) string {
	if a.reason != "" {
		return a.reason
	}
	return "HTTP " + strconv.Itoa(status)
}

// errorJSON is Google's failure.
type errorJSON struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Errors  []struct {
			Message string `json:"message"`
			Reason  string `json:"reason"`
		} `json:"errors"`
	} `json:"error"`
}

// parseError reads an error body: Google's shape, an HTML page (a proxy's
// or gateway's), or anything else (an excerpt). Its texts are cut, and
// secrets are redacted before they are.
func parseError(status int, body []byte, secrets []string) apiError {
	var e errorJSON
	if json.Unmarshal(body, &e) == nil && (e.Error.Message != "" || len(e.Error.Errors) > 0) {
		a := apiError{message: e.Error.Message}
		if len(e.Error.Errors) > 0 {
			a.reason = e.Error.Errors[0].Reason
			if a.message == "" {
				a.message = e.Error.Errors[0].Message
			}
		}
		a.message = apiclient.Excerpt([]byte(a.message), apiclient.MaxCodeLen, secrets...)
		a.reason = apiclient.CutCode(a.reason, secrets)
		return a
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		return apiError{message: strings.ToLower(http.StatusText(status)) + " (an error page, not the API's answer)"}
	}
	return apiError{message: apiclient.Excerpt(body, apiclient.ExcerptLen, secrets...)}
}

// verdict is an answer's class and reason, and whether the admin (rather
// than the key) is what the operator must fix.
type verdict struct {
	class  apiclient.Class
	reason apiclient.Reason
	admin  bool
}

// rateReasons are the 403 reasons of a limit that passes.
var rateReasons = map[string]bool{"userRateLimitExceeded": true, "rateLimitExceeded": true, "quotaExceeded": true}

// classify is the one table of Google's failures.
func classify(status int, reason string, create bool) verdict {
	switch {
	case status == http.StatusForbidden && rateReasons[reason]:
		return verdict{class: apiclient.ClassTemporary}
	case status == http.StatusForbidden:
		return verdict{class: apiclient.ClassCredentials, admin: reason == "forbidden"}
	case status == http.StatusUnauthorized:
		return verdict{class: apiclient.ClassCredentials}
	case status == http.StatusTooManyRequests:
		return verdict{class: apiclient.ClassTemporary}
	case status >= 500 && create:
		return verdict{class: apiclient.ClassUncertain}
	case status >= 500:
		return verdict{class: apiclient.ClassTemporary}
	case status == http.StatusConflict:
		return verdict{class: apiclient.ClassRefused, reason: apiclient.ReasonExists}
	case status == http.StatusNotFound:
		return verdict{class: apiclient.ClassRefused, reason: apiclient.ReasonNotFound}
	case status == http.StatusBadRequest:
		return verdict{class: apiclient.ClassRefused, reason: apiclient.ReasonInvalid}
	}
	return verdict{class: apiclient.ClassRefused}
}

// tokenAnswer is the token endpoint's failure.
type tokenAnswer struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// tokenError classifies a failure to get a token. It changed nothing, so
// whatever did not answer is temporary; a refusal names the setting to fix.
func (c *Client) tokenError(op apiclient.Op, err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response == nil {
		e := c.caller.Fail(op, apiclient.ClassTemporary, 0, "", "the token endpoint could not be reached")
		e.Err = errors.New(apiclient.Excerpt([]byte(err.Error()), 200, c.caller.Secrets()...))
		return e
	}
	status := re.Response.StatusCode
	var a tokenAnswer
	_ = json.Unmarshal(re.Body, &a) // a body of another shape says nothing more than its status
	code := a.Error
	if code == "" {
		code = "HTTP " + strconv.Itoa(status)
	}
	if status == http.StatusTooManyRequests || status >= 500 {
		e := c.caller.Fail(op, apiclient.ClassTemporary, status, code, "the token endpoint failed")
		e.RetryAfter = apiclient.RetryAfter(re.Response.Header, time.Now())
		return e
	}
	e := c.caller.Fail(op, apiclient.ClassCredentials, status, code, "")
	e.Setting = c.credVar
	switch {
	case a.Error == "invalid_grant" && strings.Contains(a.Description, "Invalid email or User ID"):
		e.Setting, e.Message = c.adminVar, "the token endpoint does not know the admin to act as; "+c.adminHint()
	case a.Error == "unauthorized_client":
		e.Message = "delegation is not granted: " + c.delegationHint()
	default:
		e.Message = "the token endpoint refused the key (revoked or deleted?): " +
			apiclient.Excerpt([]byte(a.Description), apiclient.ExcerptLen, c.caller.Secrets()...)
	}
	return e
}

// delegationHint says what the key's client ID must be delegated.
func (c *Client) delegationHint() string {
	return "in the Admin console (Security, API controls, Domain-wide delegation) give the service account's client ID the scopes " +
		strings.Join(Scopes, ",")
}

// adminHint says what the admin must be.
func (c *Client) adminHint() string {
	return c.adminVar + " must be a super admin (or an admin with the user and domain privileges) of the Workspace"
}

// refuse is a refusal decided without asking the API: nothing was sent.
func refuse(op apiclient.Op, reason apiclient.Reason, message string) *apiclient.Error {
	return &apiclient.Error{Provider: apiclient.ProviderGoogle, Op: op, Class: apiclient.ClassRefused, Reason: reason, Message: message}
}
