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
	return c.caller.BearerCall(ctx, r, nil, c.token, func(caller *apiclient.Caller, res *apiclient.Response) error {
		return c.read(caller, r, res)
	})
}

// token returns the access token, fetching one when there is none or it
// expired (an empty one fails the call in BearerCall).
func (c *Client) token(op apiclient.Op) (string, error) {
	t, err := c.tokens.Token()
	if err != nil {
		return "", c.tokenError(op, err)
	}
	return t.AccessToken, nil
}

// read decodes a 2xx answer into r.Out, and classifies any other.
func (c *Client) read(caller *apiclient.Caller, r request, res *apiclient.Response) error {
	if res.Status >= 200 && res.Status < 300 {
		return caller.DecodeJSON(r, res, complete)
	}
	a := parseError(res.Status, res.Body, caller.Secrets())
	v := classify(res.Status, a.reason, r.Create, c.freshnessOf(r.Method, r.Path))
	e := caller.Fail(r.Op, v.class, res.Status, a.code(res.Status), a.message)
	e.Reason = v.reason
	if v.reason == apiclient.ReasonInvalid && strings.Contains(strings.ToLower(a.message), "password") {
		e.Reason = apiclient.ReasonPassword // "Invalid Password"
	}
	switch {
	case v.words != "":
		e.Message = v.words
	case v.class == apiclient.ClassCredentials && v.disabled:
		e.Setting, e.Message = c.credVar, apiTitle(a.service, r.Path)+" is not enabled in the Google Cloud project of the service account's key: enable it there (APIs & Services)"
	case v.class == apiclient.ClassCredentials && v.admin:
		e.Setting, e.Message = c.adminVar, e.Message+"; "+c.adminHint()
	case v.class == apiclient.ClassCredentials:
		e.Setting, e.Message = c.credVar, e.Message+"; "+c.delegationHint()
	}
	e.RetryAfter = apiclient.RetryAfter(res.Header, time.Now())
	return e
}

// apiError is what an error answer says: its first reason and message,
// and the service an ErrorInfo detail names.
type apiError struct {
	reason  string
	message string
	service string
}

// code is the error's code as an error shows it: the reason, or the
// HTTP status without one.
func (a apiError) code(status int) string {
	if a.reason != "" {
		return a.reason
	}
	return "HTTP " + strconv.Itoa(status)
}

// errorJSON is Google's failure: errors[] (the Directory API's reasons)
// and details[] (google.rpc.ErrorInfo, whose reason SERVICE_DISABLED
// names the service).
type errorJSON struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Errors  []struct {
			Message string `json:"message"`
			Reason  string `json:"reason"`
		} `json:"errors"`
		Details []struct {
			Reason   string `json:"reason"`
			Metadata struct {
				Service string `json:"service"`
			} `json:"metadata"`
		} `json:"details"`
	} `json:"error"`
}

// parseError reads an error body: Google's shape, an HTML page (a proxy's
// or gateway's), or anything else (an excerpt). Its texts are cut, and
// secrets are redacted before they are.
func parseError(status int, body []byte, secrets []string) apiError {
	var e errorJSON
	if json.Unmarshal(body, &e) == nil && (e.Error.Message != "" || len(e.Error.Errors) > 0 || len(e.Error.Details) > 0) {
		a := apiError{message: e.Error.Message}
		if len(e.Error.Errors) > 0 {
			a.reason = e.Error.Errors[0].Reason
			if a.message == "" {
				a.message = e.Error.Errors[0].Message
			}
		}
		for _, d := range e.Error.Details {
			if a.reason == "" {
				a.reason = d.Reason
			}
			if a.service == "" {
				a.service = apiclient.CutCode(d.Metadata.Service, secrets)
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

// apiTitle names the API of a call not enabled: by the service Google
// named, else by the call's path.
func apiTitle(service, path string) string {
	switch {
	case service == "siteverification.googleapis.com" || service == "" && strings.HasPrefix(path, "siteVerification/"):
		return "the Site Verification API (siteverification.googleapis.com)"
	case service == "admin.googleapis.com" || service == "":
		return "the Admin SDK API (admin.googleapis.com)"
	}
	return "the API " + service
}

// verdict is an answer's class and reason, whether the admin (rather
// than the key) is what the operator must fix, whether an API is not
// enabled, and the words that replace Google's message.
type verdict struct {
	class    apiclient.Class
	reason   apiclient.Reason
	admin    bool
	disabled bool
	words    string
}

// rateReasons reports whether reason is a 403 reason of a limit that
// passes. (Switches, not maps: a package-level map is built by an
// initialiser in every process, whichever provider it runs.)
func rateReasons(reason string) bool {
	switch reason {
	case "userRateLimitExceeded", "rateLimitExceeded", "quotaExceeded":
		return true
	}
	return false
}

// disabledReasons reports whether reason is a 403 reason of an API not
// enabled in the key's project.
func disabledReasons(reason string) bool {
	switch reason {
	case "accessNotConfigured", "SERVICE_DISABLED":
		return true
	}
	return false
}

// invalidReasons reports whether reason is one of malformed input, which
// Google answers with 403 as well as 400.
func invalidReasons(reason string) bool {
	switch reason {
	case "invalid", "invalidInput", "badRequest", "required":
		return true
	}
	return false
}

// domainWords say what domainCannotUseApis means.
const domainWords = "Google does not let mailbot manage this address through its API: " +
	"its domain is not one of the Workspace customer's, or API access is turned off for it"

// lagWords say what a read's 403 or 404 just after an insert is.
const lagWords = "Google does not show the new mailbox or alias yet (its directory catches up within minutes)"

// classify is the one table of Google's failures; fresh says whether the
// call reads an address the client inserted lately.
func classify(status int, reason string, create bool, fresh freshness) verdict {
	if status == http.StatusForbidden {
		return classify403(reason, fresh)
	}
	switch {
	case status == http.StatusNotFound && fresh.confirmed:
		return verdict{class: apiclient.ClassTemporary, words: lagWords}
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

// classify403 sorts Google's 403s by reason: a limit that passes, a
// domain outside the customer, an API not enabled, malformed input, a
// read of a new address the directory does not show yet, and refused
// credentials (forbidden: the admin; any other: the key).
func classify403(reason string, fresh freshness) verdict {
	switch {
	case rateReasons(reason):
		return verdict{class: apiclient.ClassTemporary}
	case reason == "domainCannotUseApis":
		return verdict{class: apiclient.ClassRefused, reason: apiclient.ReasonNotAllowed, words: domainWords}
	case disabledReasons(reason):
		return verdict{class: apiclient.ClassCredentials, disabled: true}
	case invalidReasons(reason):
		return verdict{class: apiclient.ClassRefused, reason: apiclient.ReasonInvalid}
	case fresh.attempted && reason == "forbidden":
		return verdict{class: apiclient.ClassTemporary, words: lagWords}
	}
	return verdict{class: apiclient.ClassCredentials, admin: reason == "forbidden"}
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
