package pdd

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
)

// Code is an error code of the PDD API, the value of the "error" field of a
// response whose "success" is "error". A code this package does not know is
// kept as received, but cut to [apiclient.MaxCodeLen] characters and without anything
// that looks like a secret (see [ResponseError]), so that no answer can make
// a message too long for Slack or carry a secret into a log.
type Code string

// PDD's documented error codes (the same list for both operations), with their alternates.
const (
	CodeUnknown            Code = "unknown"
	CodeNoToken            Code = "no_token"
	CodeNoDomain           Code = "no_domain"
	CodeNoIP               Code = "no_ip"
	CodeBadDomain          Code = "bad_domain"
	CodeProhibited         Code = "prohibited"
	CodeBadToken           Code = "bad_token"
	CodeBadLogin           Code = "bad_login"
	CodeBadPasswd          Code = "bad_passwd"
	CodeNoAuth             Code = "no_auth"
	CodeNotAllowed         Code = "not_allowed"
	CodeBlocked            Code = "blocked"
	CodeOccupied           Code = "occupied"
	CodeDomainLimitReached Code = "domain_limit_reached"
	CodeNoReply            Code = "no_reply"
)

// Codes the real service answers to email/add, beyond the documented list.
const (
	CodeNoLogin        Code = "no_login"
	CodeNoPassword     Code = "no_password"
	CodeBadLoginFormat Code = "badlogin"
	CodeLoginTooLong   Code = "login-toolong"
	CodeLoginReserved  Code = "login_reserved"
	CodePasswdTooShort Code = "passwd-tooshort"
	CodePasswdTooLong  Code = "passwd-toolong"
	CodeBadPasswdChars Code = "badpasswd"
)

var meanings = map[Code]string{
	CodeUnknown:            "a temporary failure or API error occurred; repeat the request later",
	CodeNoToken:            "a mandatory parameter was omitted",
	CodeNoDomain:           "a mandatory parameter was omitted (the domain)",
	CodeNoIP:               "a mandatory parameter was omitted (the IP address)",
	CodeBadDomain:          "the domain name was not specified or does not conform to the RFC",
	CodeProhibited:         "the domain name is forbidden",
	CodeBadToken:           "the PDD token is invalid",
	CodeBadLogin:           "the PDD username is invalid",
	CodeBadPasswd:          "the PDD password is invalid",
	CodeNoAuth:             "the PddToken header was omitted",
	CodeNotAllowed:         "the operation is not allowed for this account (it is not the domain administrator)",
	CodeBlocked:            "the domain is blocked (for example, due to spam)",
	CodeOccupied:           "the domain name is in use by another user",
	CodeDomainLimitReached: "the account has reached the limit of connected domains (50)",
	CodeNoReply:            "the service cannot connect to the source server for the import",
	CodeNoLogin:            "the mailbox name was omitted",
	CodeNoPassword:         "the password was omitted",
	CodeBadLoginFormat:     "the mailbox name is not allowed (Latin letters, digits, '-' and '.', starting with a letter)",
	CodeLoginTooLong:       "the mailbox name is too long (at most 30 characters)",
	CodeLoginReserved:      "the mailbox name is reserved",
	CodePasswdTooShort:     "the password is too short (at least 6 characters)",
	CodePasswdTooLong:      "the password is too long (at most 20 characters)",
	CodeBadPasswdChars:     "the password is not allowed (wrong characters, or equal to the mailbox name)",
}

// Known reports whether the code is documented by PDD or seen on the
// real service.
func (c Code) Known() bool {
	_, ok := meanings[c]
	return ok
}

// Meaning describes the code in words. For email/add, occupied means the
// mailbox exists already rather than that a domain is taken; use
// [Error.Meaning], which knows the operation.
func (c Code) Meaning() string {
	if m, ok := meanings[c]; ok {
		return m
	}
	return "an error code this version of mailbot does not know"
}

// Temporary reports whether the service asks for the request to be repeated.
func (c Code) Temporary() bool { return c == CodeUnknown }

// Op names an operation of the PDD API.
type Op string

// The documented operations, and the lifecycle calls of the real service.
const (
	OpRegisterDomain     Op = "domain/register"
	OpAddMailbox         Op = "email/add"
	OpEditMailbox        Op = "email/edit"
	OpListMailboxes      Op = "email/list"
	OpRegistrationStatus Op = "domain/registration_status"
)

// Error is an answer of the PDD API with "success": "error".
type Error struct {
	Op       Op
	Code     Code
	Attempts int // requests sent in all, retries included

	// uncertain: an earlier attempt may have performed the operation.
	uncertain bool
}

func (e *Error) Error() string {
	code := e.Code
	if utf8.RuneCountInString(string(code)) > apiclient.MaxCodeLen {
		code = Code(apiclient.CutCode(string(code), nil))
	}
	return fmt.Sprintf("pdd %s: %s (%s)", e.Op, code, e.Meaning())
}

// Meaning describes the code in words, for this operation.
func (e *Error) Meaning() string {
	if e.Op == OpAddMailbox && e.Code == CodeOccupied {
		return "the mailbox already exists"
	}
	return e.Code.Meaning()
}

// ResponseError is an answer that is not a PDD API answer at all: a status
// other than 200, a body that is not JSON, truncated or too large.
//
// Its Excerpt never holds a secret: an HTTP 200 body (where the PDD API
// puts verification secrets) gets no excerpt at all, and the excerpt of
// another body drops the token and the password wherever they appear, the
// value of every field named like a secret (secrets, name, content,
// password, token, PddToken and their kin), and everything after an
// escape or invisible character that could disguise such a name.
type ResponseError struct {
	Op         Op
	StatusCode int
	Reason     string // what is wrong, in words
	Excerpt    string // a short, sanitised start of the body; "" for HTTP 200

	uncertain bool // an earlier attempt may have performed the operation
}

func (e *ResponseError) Error() string {
	s := fmt.Sprintf("pdd %s: HTTP %d: %s", e.Op, e.StatusCode, e.Reason)
	if e.Excerpt != "" {
		s += fmt.Sprintf(": %q", e.Excerpt)
	}
	if e.Op == OpAddMailbox && e.MayHaveHappened() {
		s += " (the mailbox may exist now)"
	}
	return s
}

// MayHaveHappened reports whether the service may have performed the
// operation even so: the answer was garbled (HTTP 200), or a server failed
// (5xx) after an add had reached it. A register answered by a 5xx counts
// as not performed: the PDD API answers its own errors with HTTP 200, so a
// 5xx comes from a server in front of it, and should the domain have been
// registered after all, registering it again is harmless for its owner.
func (e *ResponseError) MayHaveHappened() bool {
	return e.uncertain || e.StatusCode == http.StatusOK || e.StatusCode >= 500 && e.Op != OpRegisterDomain
}

// TransportError is a request that got no answer: the connection failed or
// the request timed out.
type TransportError struct {
	Op Op
	// Sent is true when the request may have reached the service, so that
	// the operation may have happened even though no answer came back.
	Sent bool
	Err  error

	timeout   bool // no answer in time
	uncertain bool // an earlier attempt may have performed the operation
}

// maxTransportText bounds the text of a transport failure: the HTTP
// client quotes a malformed answer's first line in its errors.
const maxTransportText = 200

func (e *TransportError) Error() string {
	s := fmt.Sprintf("pdd %s: no answer", e.Op)
	if e.Sent && e.Op == OpAddMailbox {
		s += " after the request was sent (the mailbox may exist now)"
	}
	return s + ": " + apiclient.Scrub(e.Err.Error(), maxTransportText)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Timeout reports whether the request ran out of time.
func (e *TransportError) Timeout() bool {
	var t interface{ Timeout() bool }
	return e.timeout || errors.As(e.Err, &t) && t.Timeout()
}

// ErrorCode returns the PDD error code carried by err, or "".
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// NothingDone reports whether err, from [Client.RegisterDomain] or
// [Client.AddMailbox], means that the PDD API certainly changed nothing and
// that a later attempt may succeed, so that the operation may be offered
// again (an approval is not used up). It is true for:
//
//   - "unknown" (a temporary failure) after the retries;
//   - a request that was never sent: the connection could not be made, or
//     the caller's context ended before the request left;
//   - a register answered by HTTP 5xx (see [ResponseError.MayHaveHappened]);
//   - HTTP 429 Too Many Requests, a refusal before any work.
//
// It is false when the operation may have happened ([MayHaveHappened]: an
// add that was sent and got no answer, an answer garbled on its way back,
// or an earlier attempt of a register that may have registered), for a
// definitive answer of the API such as "occupied" or "bad_token" (nothing
// was done, but trying again will not help), for any other HTTP status,
// for another error, and for nil.
func NothingDone(err error) bool {
	var (
		apiErr   *Error
		respErr  *ResponseError
		transErr *TransportError
	)
	switch {
	case err == nil:
		return false
	case errors.As(err, &apiErr):
		return !apiErr.uncertain && apiErr.Code.Temporary()
	case errors.As(err, &respErr):
		return !respErr.MayHaveHappened() &&
			(respErr.StatusCode >= 500 || respErr.StatusCode == http.StatusTooManyRequests)
	case errors.As(err, &transErr):
		return !transErr.uncertain && !transErr.Sent
	}
	return false
}

// MayHaveHappened reports whether err, from [Client.RegisterDomain] or
// [Client.AddMailbox], leaves it open whether the operation happened: a
// request that was sent and got no answer, an answer garbled on its way
// back (HTTP 200 that is not a PDD answer), an add answered by HTTP 5xx, or
// a failure after an earlier attempt that may have performed it. For an
// add, the mailbox may exist now. It is never true together with
// [NothingDone]; when neither is, the operation failed definitively.
func MayHaveHappened(err error) bool {
	var (
		apiErr   *Error
		respErr  *ResponseError
		transErr *TransportError
	)
	switch {
	case errors.As(err, &apiErr):
		return apiErr.uncertain
	case errors.As(err, &respErr):
		return respErr.MayHaveHappened()
	case errors.As(err, &transErr):
		return transErr.uncertain || transErr.Sent
	}
	return false
}

// legacyError turns a failure of the adapter into the old client's error
// of op: a PDD code into an [*Error], another answer into a
// [*ResponseError], no answer into a [*TransportError]; each marked
// uncertain when its class is.
func legacyError(op Op, err error) error {
	var e *apiclient.Error
	if !errors.As(err, &e) {
		return err
	}
	uncertain := e.Class == apiclient.ClassUncertain
	switch {
	case e.Code != "":
		return &Error{Op: op, Code: Code(e.Code), Attempts: e.Attempts, uncertain: uncertain}
	case e.HTTPStatus != 0:
		reason, excerpt, _ := strings.Cut(e.Message, ": ") // only reasonStatus has a colon
		if reason != reasonStatus {
			reason, excerpt = e.Message, ""
		}
		return &ResponseError{Op: op, StatusCode: e.HTTPStatus, Reason: reason, Excerpt: excerpt, uncertain: uncertain}
	}
	return &TransportError{Op: op, Sent: e.Sent, Err: e.Err, timeout: e.Timeout, uncertain: uncertain}
}
