package m365

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

// request is one call of Graph, with headers of its own
// (ConsistencyLevel).
type request struct {
	apiclient.JSONCall
	header http.Header
}

// call sends r with a bearer token and its headers, retried as its class
// allows, and decodes the answer. A token the endpoint refuses fails the
// call before anything is sent to Graph.
func (c *Client) call(ctx context.Context, r request) error {
	return c.caller.BearerCall(ctx, r.JSONCall, r.header, c.token, func(caller *apiclient.Caller, res *apiclient.Response) error {
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
		return caller.DecodeJSON(r.JSONCall, res, complete)
	}
	a := ParseError(res.Status, res.Body, caller.Secrets())
	class, reason := classify(res.Status, a, r.Create)
	e := caller.Fail(r.Op, class, res.Status, a.Code, a.Message)
	e.Reason = reason
	if class == apiclient.ClassCredentials {
		e.Setting, e.Message = c.grantHint(r.Op, res.Status)
	}
	e.RetryAfter = apiclient.RetryAfter(res.Header, time.Now())
	return e
}

// Answer is what an error answer of Graph says.
type Answer struct {
	Code     string // Graph's code, or "HTTP <status>" without one
	Message  string // cut and redacted
	Conflict bool   // a detail ObjectConflict: the value is taken
}

// errorJSON is Graph's failure.
type errorJSON struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Target  string `json:"target"`
		} `json:"details"`
	} `json:"error"`
}

// ParseError reads an error body: Graph's shape, an HTML page (a proxy's
// or gateway's), or anything else (an excerpt). Its texts are cut, and
// secrets are redacted before they are.
func ParseError(status int, body []byte, secrets []string) Answer {
	a := Answer{Code: "HTTP " + strconv.Itoa(status)}
	var e errorJSON
	switch {
	case json.Unmarshal(body, &e) == nil && (e.Error.Code != "" || e.Error.Message != ""):
		if e.Error.Code != "" {
			a.Code = apiclient.CutCode(e.Error.Code, secrets)
		}
		a.Message = apiclient.Excerpt([]byte(e.Error.Message), apiclient.MaxCodeLen, secrets...)
		for _, d := range e.Error.Details {
			a.Conflict = a.Conflict || d.Code == "ObjectConflict"
		}
	case bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")):
		a.Message = strings.ToLower(http.StatusText(status)) + " (an error page, not the API's answer)"
	default:
		a.Message = apiclient.Excerpt(body, apiclient.ExcerptLen, secrets...)
	}
	return a
}

// classify is the one table of Graph's failures.
func classify(status int, a Answer, create bool) (apiclient.Class, apiclient.Reason) {
	msg := strings.ToLower(a.Message)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return apiclient.ClassCredentials, ""
	case status == http.StatusTooManyRequests:
		return apiclient.ClassTemporary, ""
	case status >= 500 && create:
		return apiclient.ClassUncertain, ""
	case status >= 500:
		return apiclient.ClassTemporary, ""
	case status == http.StatusNotFound:
		return apiclient.ClassRefused, apiclient.ReasonNotFound
	case status != http.StatusBadRequest:
		return apiclient.ClassRefused, ""
	case a.Conflict || strings.Contains(msg, "already exists"):
		return apiclient.ClassRefused, apiclient.ReasonExists
	case strings.Contains(msg, "password"):
		return apiclient.ClassRefused, apiclient.ReasonPassword
	case strings.Contains(msg, "available licenses"):
		return apiclient.ClassRefused, apiclient.ReasonLimit
	}
	return apiclient.ClassRefused, apiclient.ReasonInvalid
}

// grantHint names what an operator must grant for a 401 or 403 to op:
// the setting (a variable, or the app's role in words) and the message.
func (c *Client) grantHint(op apiclient.Op, status int) (setting, message string) {
	if status == http.StatusUnauthorized {
		return c.secretVar, "Microsoft Graph refused the access token: check " + c.secretVar + " and " + ClientIDSetting
	}
	perm := PermUsers
	switch op {
	case apiclient.OpCheck:
		perm = PermOrg
	case apiclient.OpRegister, apiclient.OpDomainStatus, apiclient.OpVerify, apiclient.OpDNS:
		perm = PermDomains
	case apiclient.OpReset:
		return "the " + RoleUserAdmin + " role and the " + PermPassword + " permission of the app " + ClientIDSetting + " names",
			"Insufficient privileges: the app needs the application permission " + PermPassword + " (with admin consent) and the " +
				RoleUserAdmin + " directory role to set passwords (a user who holds an admin role needs a higher role)"
	}
	return ClientIDSetting, "Insufficient privileges: grant the app the application permission " + perm + " and give admin consent"
}

// tokenAnswer is the token endpoint's failure.
type tokenAnswer struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
	Codes       []int  `json:"error_codes"`
}

// tokenError classifies a failure to get a token. It changed nothing, so
// whatever did not answer is temporary; a refusal names the setting to
// fix.
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
	if len(a.Codes) > 0 {
		code += " AADSTS" + strconv.Itoa(a.Codes[0])
	}
	if a.Error == "" {
		code = "HTTP " + strconv.Itoa(status)
	}
	if status == http.StatusTooManyRequests || status >= 500 {
		e := c.caller.Fail(op, apiclient.ClassTemporary, status, code, "the token endpoint failed")
		e.RetryAfter = apiclient.RetryAfter(re.Response.Header, time.Now())
		return e
	}
	e := c.caller.Fail(op, apiclient.ClassCredentials, status, code, "")
	e.Setting, e.Message = tokenHint(a, c.secretVar)
	return e
}

// tokenHint names the setting a token endpoint's refusal is about, and
// says what it means.
func tokenHint(a tokenAnswer, secretVar string) (setting, message string) {
	aad := 0
	if len(a.Codes) > 0 {
		aad = a.Codes[0]
	}
	switch {
	case aad == 90002 || aad == 900023 || strings.Contains(a.Description, "Tenant '"):
		return TenantSetting, "Microsoft Entra does not know the tenant: set " + TenantSetting + " to the tenant ID (a GUID) or its initial domain (contoso.onmicrosoft.com)"
	case a.Error == "unauthorized_client" || aad == 700016:
		return ClientIDSetting, "no application with this client ID in the tenant: set " + ClientIDSetting + " to the app registration's Application (client) ID"
	case a.Error == "invalid_client" && aad == 7000222:
		return secretVar, "the client secret has expired: create a new one (Certificates & secrets) and set " + secretVar
	case a.Error == "invalid_client":
		return secretVar, "Microsoft Entra refused the client secret: set " + secretVar + " to the secret's Value (not its ID)"
	}
	return secretVar, "the token endpoint refused the app's credentials (" + a.Error + ")"
}

// refuse is a refusal decided without asking Graph: nothing was sent.
func refuse(op apiclient.Op, reason apiclient.Reason, message string) *apiclient.Error {
	return &apiclient.Error{Provider: apiclient.ProviderM365, Op: op, Class: apiclient.ClassRefused, Reason: reason, Message: message}
}
