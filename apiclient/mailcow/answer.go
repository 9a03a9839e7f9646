package mailcow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// entry is one entry of a write's answer. Its log is never read: it
// repeats the request.
type entry struct {
	Type string          `json:"type"`
	Msg  json.RawMessage `json:"msg"`
}

// code is the entry's code: msg itself, or the first element of msg's
// list; otherwise msg's text as received.
func (e entry) code() string {
	var s string
	if json.Unmarshal(e.Msg, &s) == nil {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(e.Msg, &list) == nil && len(list) > 0 && json.Unmarshal(list[0], &s) == nil {
		return s
	}
	return strings.TrimSpace(string(e.Msg))
}

func (e entry) failed() bool { return e.Type == "danger" || e.Type == "error" }

var errNoEntries = errors.New("no entries")

// decodeEntries reads a write's answer: an array of entries, or one entry
// (mailcow's single-object errors).
func decodeEntries(body []byte) ([]entry, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '{' {
		var e entry
		if err := json.Unmarshal(body, &e); err != nil || e.Type == "" {
			return nil, errNoEntries
		}
		return []entry{e}, nil
	}
	var es []entry
	if err := json.Unmarshal(body, &es); err != nil || len(es) == 0 {
		return nil, errNoEntries
	}
	return es, nil
}

// result is what a write's entries say: done (a success entry, or only
// warnings), the notes of a partial success, or the first failure.
type result struct {
	done     bool
	notes    []string // codes of warnings, and of failures beside a success
	failure  string   // the code of the first failure when not done
	unspoken bool     // neither success, warning nor failure: the answer does not say
}

func judge(entries []entry) result {
	var r result
	var failures []string
	warned := false
	for _, e := range entries {
		switch {
		case e.Type == "success":
			r.done = true
		case e.Type == "warning":
			warned = true
			r.notes = append(r.notes, e.code())
		case e.failed():
			failures = append(failures, e.code())
		}
	}
	switch {
	case r.done || warned && len(failures) == 0:
		r.done = true
		r.notes = append(r.notes, failures...)
	case len(failures) > 0:
		r.failure = failures[0]
	default:
		r.unspoken = true
	}
	return r
}

// outcome turns a write's answer into its warnings or its error; denied
// is what access_denied means for the call.
func outcome(caller *apiclient.Caller, k call, body []byte, denied apiclient.Reason) ([]string, error) {
	entries, err := decodeEntries(body)
	var r result
	if err == nil {
		r = judge(entries)
	}
	switch {
	case err != nil || r.unspoken:
		e := caller.Fail(k.op, apiclient.ClassUncertain, http.StatusOK, "", "the answer does not say whether it was done")
		e.Sent = true
		return nil, e
	case !r.done:
		return nil, refusal(caller, k, r.failure, denied)
	}
	var warnings []string
	for _, code := range r.notes {
		warnings = append(warnings, describe(caller, code))
	}
	return warnings, nil
}

// refusal is the error of a failure entry's code.
func refusal(caller *apiclient.Caller, k call, code string, denied apiclient.Reason) *apiclient.Error {
	known, _ := codeMeaning(code)
	if code == codeAccessDenied {
		known = meaning{denied, deniedWords(denied)}
	}
	if known.words == "" {
		known.words = apiclient.UnknownCode
	}
	e := caller.Fail(k.op, apiclient.ClassRefused, http.StatusOK, code, known.words)
	e.Reason = known.reason
	e.Sent = true
	return e
}

// describe is a warning's code in words, or as received (cut, and without
// the caller's secrets: the key, the call's password).
func describe(caller *apiclient.Caller, code string) string {
	if m, ok := codeMeaning(code); ok && m.words != "" {
		return m.words
	}
	return apiclient.CutCode(code, caller.Secrets())
}

// errorMessage is the msg of mailcow's single-object error ({"type":
// "error","msg":"authentication failed"}), or "".
func errorMessage(body []byte) string {
	var e struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Msg
}

// errRefusal is a read answered by an error entry instead of data.
var errRefusal = errors.New("an error entry")

// decodeRead decodes a read's answer into v; found is false for mailcow's
// {} (or []), and errRefusal is an error entry.
func decodeRead(body []byte, v any) (found bool, err error) {
	body = bytes.TrimSpace(body)
	if s := string(body); s == "{}" || s == "[]" {
		return false, nil
	}
	if len(body) > 0 && body[0] == '{' {
		var probe entry
		if json.Unmarshal(body, &probe) == nil && probe.failed() {
			return false, errRefusal
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, cause(err)
	}
	return true, nil
}

// cause is a decoding error without the text it quotes.
func cause(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Errorf("field %s is not a %s", apiclient.Scrub(te.Field, 64), te.Type)
	}
	return errors.New("invalid value")
}

// number is an integer that mailcow sends as a number or as text ("1"),
// or null.
type number int64

func (n *number) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	switch s {
	case "null", "", "false":
		*n = 0
		return nil
	case "true":
		*n = 1
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = number(v)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) {
		return errors.New("not an integer")
	}
	*n = number(f)
	return nil
}

// attributes are a mailbox's attributes; PHP's empty array [] (or any
// other shape) reads as none.
type attributes struct {
	ForcePasswordUpdate number `json:"force_pw_update"`
}

func (a *attributes) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		*a = attributes{}
		return nil
	}
	type plain attributes
	return json.Unmarshal(b, (*plain)(a))
}

// jsonBody is a write's body.
func jsonBody(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mailcow: encoding a request: %w", err)
	}
	return b, nil
}
