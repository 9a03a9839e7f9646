package apiclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// Code is an error code of the PDD API, the value of the "error" field of a
// response whose "success" is "error". A code this package does not know is
// kept exactly as received.
type Code string

// Codes of seed §7 (the same list for both operations), with their alternates.
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

// Codes the real service answers to email/add, beyond seed §7.
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

// Known reports whether the code is documented by the seed or seen on the
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

// The operations of the seed.
const (
	OpRegisterDomain Op = "domain/register"
	OpAddMailbox     Op = "email/add"
)

// Error is an answer of the PDD API with "success": "error".
type Error struct {
	Op       Op
	Code     Code
	Attempts int // requests sent in all, retries included
}

func (e *Error) Error() string {
	return fmt.Sprintf("pdd %s: %s (%s)", e.Op, e.Code, e.Meaning())
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
type ResponseError struct {
	Op         Op
	StatusCode int
	Reason     string // what is wrong, in words
	Excerpt    string // a short, sanitised start of the body
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
// operation even so: the answer was garbled (HTTP 200) or a server failed
// (5xx) after the request had reached it. It matters for email/add, which is
// never retried for this reason.
func (e *ResponseError) MayHaveHappened() bool {
	return e.StatusCode == 200 || e.StatusCode >= 500
}

// TransportError is a request that got no answer: the connection failed or
// the request timed out.
type TransportError struct {
	Op Op
	// Sent is true when the request may have reached the service, so that
	// the operation may have happened even though no answer came back.
	Sent bool
	Err  error
}

func (e *TransportError) Error() string {
	s := fmt.Sprintf("pdd %s: no answer", e.Op)
	if e.Sent && e.Op == OpAddMailbox {
		s += " after the request was sent (the mailbox may exist now)"
	}
	return s + ": " + e.Err.Error()
}

func (e *TransportError) Unwrap() error { return e.Err }

// Timeout reports whether the request ran out of time.
func (e *TransportError) Timeout() bool {
	var t interface{ Timeout() bool }
	return errors.As(e.Err, &t) && t.Timeout()
}

// ErrorCode returns the PDD error code carried by err, or "".
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// excerpt returns at most n runes of body, printable, with every secret
// replaced.
func excerpt(body []byte, n int, secrets ...string) string {
	s := redact(string(body), secrets)
	var b strings.Builder
	for _, r := range s {
		if n == 0 {
			b.WriteString("…")
			break
		}
		if !unicode.IsPrint(r) {
			r = ' '
		}
		b.WriteRune(r)
		n--
	}
	return strings.TrimSpace(b.String())
}

// redact replaces in s every secret, as it is and as a form, a URL path or
// a JSON string would encode it, by "<redacted>".
func redact(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		js, _ := json.Marshal(sec)
		forms := []string{sec, url.QueryEscape(sec), url.PathEscape(sec), string(js[1 : len(js)-1])}
		for _, f := range forms {
			s = strings.ReplaceAll(s, f, "<redacted>")
		}
	}
	return s
}
