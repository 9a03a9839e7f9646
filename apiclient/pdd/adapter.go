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
package pdd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

// Adapter is the PDD API as every provider adapter offers it (the method
// set of the core's Provider): the documented register and add, and the real
// service's email/edit, email/list and domain/registration_status for the
// lifecycle. Every failure is an *apiclient.Error whose Class sorts it; the
// PDD code, when the API answered one, is its Code. It is safe for
// concurrent use.
type Adapter struct {
	c       *apiclient.Caller
	retired bool // baseURL is the real PDD host, switched off in 2023
}

// DefaultBaseURL is the production PDD API.
const DefaultBaseURL = "https://pddimp.yandex.ru"

// retiredHost is the real PDD API's host: Yandex switched it off on
// 2023-04-01 ("no longer available" from late March 2023).
const retiredHost = "pddimp.yandex.ru"

// StartWarnings says, for the log at start, that the real PDD API is
// switched off when the adapter drives its host, and names its
// successors; nil for another host (a sandbox, a service that speaks the
// same API).
func (a *Adapter) StartWarnings() []string {
	if !a.retired {
		return nil
	}
	return []string{"Yandex switched the PDD API off in 2023 (" + retiredHost + " answers \"no longer available\"): " +
		"its users moved to Yandex 360 for Business, which mailbot supports (MAILBOT_PROVIDER=yandex360); " +
		"self-hosted mail is supported with mailcow (MAILBOT_PROVIDER=mailcow). Commands sent there fail."}
}

// NewAdapter returns an adapter of the PDD API at baseURL (scheme and
// host, such as [DefaultBaseURL]), acting with token.
func NewAdapter(baseURL, token string, opts ...apiclient.Option) (*Adapter, error) {
	if token == "" {
		return nil, errors.New("empty PDD token")
	}
	c, err := apiclient.NewCaller(apiclient.ProviderPDD, baseURL, http.Header{"Pddtoken": {token}}, opts...)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(baseURL) // NewCaller has checked it
	return &Adapter{c: c, retired: u != nil && strings.EqualFold(u.Hostname(), retiredHost)}, nil
}

// Name is apiclient.ProviderPDD.
func (a *Adapter) Name() string { return apiclient.ProviderPDD }

// Capabilities: PDD cannot force a password change; whether a blocked
// mailbox keeps receiving mail is not on record, so it is not promised;
// mailboxes have uids; email/list pages; a new domain proves its owner.
func (a *Adapter) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: Title, UIDs: true, Paged: true, VerifiesOwnership: true, RegisterAnswersAsNew: true}
}

// call is one PDD operation: it sends form, encoded, to the endpoint of
// pddOp (as the body of a POST, the query of a GET), retried as
// idempotent and the failure's class allow, and decodes the success into
// v. secrets are the request's own (a password), kept out of every error
// (apiclient.Caller.WithSecrets).
func (a *Adapter) call(ctx context.Context, op apiclient.Op, pddOp Op, method, form string, idempotent bool, v any, secrets ...string) error {
	req := apiclient.Request{Op: op, Method: method, Path: "api2/admin/" + string(pddOp)}
	if method == http.MethodPost {
		req.Body, req.Type = []byte(form), "application/x-www-form-urlencoded"
	} else {
		req.RawQuery = form
	}
	c := a.c.WithSecrets(secrets...)
	n := 0
	err := c.Do(ctx, op, idempotent, func(ctx context.Context) error {
		n++
		res, err := c.Exchange(ctx, req)
		if err == nil {
			err = a.decode(c, op, res, v)
		}
		if g, ok := asGarbled(err); ok {
			g.e.Attempts = n
			return g // not an *apiclient.Error: Do returns it at once
		}
		return err
	})
	return settled(err)
}

// settled is the error of an operation whose last attempt failed with err.
func settled(err error) error {
	if g, ok := asGarbled(err); ok {
		return g.e
	}
	return err
}

// asGarbled finds a garbledError in err; a success costs nothing (g is
// made where it is declared, after the test).
func asGarbled(err error) (garbledError, bool) {
	if err == nil {
		return garbledError{}, false
	}
	var g garbledError
	ok := errors.As(err, &g)
	return g, ok
}

// garbledError carries the error of an HTTP 200 answer that is not a PDD
// answer through apiclient.Caller.Do without a retry: the API did
// something and answered, and sending the request again would most likely
// meet the same answer. It has no Unwrap, so that Do does not see the
// *apiclient.Error inside.
type garbledError struct{ e *apiclient.Error }

func (g garbledError) Error() string { return g.e.Error() }

// maxBody bounds a PDD answer; they are a few hundred bytes, and an
// email/list page of MaxOnPage mailboxes a few hundred KB at most.
const maxBody = 1 << 20

// What is wrong with an answer that is not a PDD answer, in words.
const (
	reasonStatus   = "unexpected HTTP status" // an excerpt of the body follows
	reasonNotPDD   = "answer is not a JSON object of the PDD API"
	reasonTooLarge = "answer larger than 1048576 bytes"
)

// envelope is what every PDD answer holds. Each answer type embeds it
// (answer), so that one pass over the body reads both.
type envelope struct {
	Success string `json:"success"`
	Error   string `json:"error"`
}

func (e *envelope) env() *envelope { return e }

// answer is an answer type that embeds the envelope.
type answer interface{ env() *envelope }

// decode reads an answer: HTTP 200 with "success": "ok" is decoded into v;
// "error" becomes an *apiclient.Error classed by its code ([codeClass]);
// anything else (another status, a body that is not a PDD answer) an
// *apiclient.Error classed by its status, ClassUncertain for a garbled 200.
// Only the error of a status other than 200 shows an excerpt of the body:
// a 200 body may hold the verification secrets. c is the call's caller,
// which keeps its secrets out of the error.
func (a *Adapter) decode(c *apiclient.Caller, op apiclient.Op, res *apiclient.Response, v any) error {
	if err := a.notOK(c, op, res); err != nil {
		return err
	}
	// One pass reads an answer that is one JSON object of v's shape: the
	// envelope with the result. Anything else is read again, the envelope
	// alone and strictly, to say what is wrong with it.
	va, decoded := v.(answer)
	decoded = decoded && json.Unmarshal(res.Body, v) == nil
	var env envelope
	if decoded {
		env = *va.env()
	} else {
		var reason string
		if env, reason = strictEnvelope(res.Body); reason != "" {
			return a.garbledAnswer(op, reason)
		}
	}
	if err := a.envelopeError(c, op, res, env); err != nil {
		return err
	}
	if !decoded && json.Unmarshal(res.Body, v) != nil {
		return a.garbledAnswer(op, reasonNotPDD)
	}
	return nil
}

// envelopeError is what an answer's envelope says went wrong: PDD's error
// code, classed, or a garbled answer when "success" is neither "ok" nor an
// error with its code; nil for "ok".
func (a *Adapter) envelopeError(c *apiclient.Caller, op apiclient.Op, res *apiclient.Response, env envelope) error {
	switch {
	case env.Success == "error" && env.Error != "":
		code := Code(apiclient.CutCode(env.Error, c.Secrets()))
		class, reason := codeClass(op, code)
		e := c.Fail(op, class, res.Status, string(code), meaning(op, code))
		e.Reason = reason
		return e
	case env.Success != "ok":
		return a.garbledAnswer(op, `answer has no "success" of "ok" or "error"`)
	}
	return nil
}

// notOK is the error of an answer other than HTTP 200 within the bound,
// or nil.
func (a *Adapter) notOK(c *apiclient.Caller, op apiclient.Op, res *apiclient.Response) error {
	class := apiclient.StatusClass(res.Status, op == apiclient.OpAdd)
	switch {
	case len(res.Body) > maxBody && res.Status == http.StatusOK:
		return a.garbledAnswer(op, reasonTooLarge)
	case len(res.Body) > maxBody:
		return c.Fail(op, class, res.Status, "", reasonTooLarge)
	case res.Status != http.StatusOK:
		e := c.Fail(op, class, res.Status, "", reasonStatus+": "+apiclient.Excerpt(res.Body, apiclient.ExcerptLen, c.Secrets()...))
		e.RetryAfter = apiclient.RetryAfter(res.Header, time.Now())
		return e
	}
	return nil
}

// garbled is the error of an HTTP 200 answer that is not a PDD answer: the
// operation may have happened.
func (a *Adapter) garbled(op apiclient.Op, reason string) *apiclient.Error {
	return a.c.Fail(op, apiclient.ClassUncertain, http.StatusOK, "", reason)
}

// garbledAnswer is the error of an attempt answered by HTTP 200 with
// something that is not a PDD answer: uncertain, and never retried.
func (a *Adapter) garbledAnswer(op apiclient.Op, reason string) error {
	return garbledError{a.garbled(op, reason)}
}

// strictEnvelope decodes the envelope of body, one JSON object and
// nothing after it, and says what is wrong with it, or "".
func strictEnvelope(body []byte) (envelope, string) {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil {
		var syntaxErr *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return env, "truncated JSON answer"
		case errors.As(err, &syntaxErr):
			return env, "answer is not JSON"
		}
		return env, reasonNotPDD
	}
	if dec.More() {
		return env, "trailing data after the JSON answer"
	}
	return env, ""
}

// CheckLogin checks a user name by PDD's rule ([apiclient.StrictLogin]),
// for every command alike.
func (a *Adapter) CheckLogin(login string) error { return apiclient.StrictLogin(login) }

// Title names the provider in replies, notices and the shell's banner.
const Title = "the PDD API"
