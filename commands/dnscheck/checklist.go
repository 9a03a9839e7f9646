package dnscheck

import (
	"errors"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// ErrInvalidDomain is a [Checklist]'s Err when the domain is not a
// plausible DNS name, so that nothing was looked up.
var ErrInvalidDomain = errors.New("not a valid domain name")

// Kind names the record an [Item] is about.
type Kind string

// The lines a checklist has for most providers, named by the purpose of
// their records (apiclient.Record's Purpose); a provider may add others.
const (
	KindMX           Kind = apiclient.PurposeMX           // the domain's mail servers
	KindSPF          Kind = apiclient.PurposeSPF          // the domain's v=spf1 TXT record
	KindDKIM         Kind = apiclient.PurposeDKIM         // the record of the domain's DKIM key
	KindVerification Kind = apiclient.PurposeVerification // the proof of ownership
)

// State is what the check of one record found.
type State int

// The states of an [Item]. Only StateOK needs nothing done; StateError
// means the answer is unknown (the domain does not exist, the DNS server
// failed or did not answer), never that the record is missing. StateInfo
// is a line that is no record: what the provider checks by itself.
const (
	StateOK      State = iota // in place
	StateMissing              // not published: publish Item.Publish
	StateWrong                // something else is published: see Item.Remove and Item.Publish
	StateError                // could not be checked: see Item.Reason
	StateInfo                 // not checked here: see Item.Reason
	StateAdvice               // advice: not in place, but not needed for mail to flow; see Item.Reason
)

// String describes the state in words: "in place", "missing", "wrong",
// "could not check", "not checked here".
func (s State) String() string {
	switch s {
	case StateOK:
		return "in place"
	case StateMissing:
		return "missing"
	case StateWrong:
		return "wrong"
	case StateError:
		return "could not check"
	case StateInfo:
		return "not checked here"
	case StateAdvice:
		return "advice"
	}
	return "state " + strconv.Itoa(int(s))
}

// Mark is the symbol that starts the state's line: ✅ for in place, ❌ for
// missing or wrong, ℹ️ for not checked here, ⚠️ for could not check.
func (s State) Mark() string {
	switch s {
	case StateOK:
		return "✅"
	case StateMissing, StateWrong:
		return "❌"
	case StateInfo:
		return "ℹ️"
	case StateAdvice:
		return "💡"
	}
	return "⚠️"
}

// Item is the check of one record.
type Item struct {
	Kind  Kind
	Type  string // the record's DNS type: "MX", "TXT", "CNAME"; "" for a line that is no record
	Name  string // the DNS name looked up, fully qualified: "example.com."
	State State
	// Found is what is published that matters: the MX hosts ("mx.yandex.net"),
	// the v=spf1 records or the TXT records at the DKIM name (their text,
	// unquoted), or the CNAME's target ("mail.yandex.ru"). Host names are
	// lower case, without the trailing dot.
	Found []string
	// Remove is the part of Found that must go, in Found's form.
	Remove []string
	// Publish is the record to add, ready to paste into a zone file:
	// `example.com. MX 10 mx.yandex.net.`. Empty when nothing is to be added.
	Publish string
	// Reason says why the record is wrong or could not be checked, or what
	// advice is about, in words (for a record in place whose content is
	// secret, what is in place):
	// "the DNS server did not answer within 5s".
	Reason string
}

// Checklist is the result of [Checker.Check]: one [Item] per record, MX
// first, then SPF, then DKIM and the verification line where the
// [Expect] asked for them.
type Checklist struct {
	Domain string // lower case, without a trailing dot
	Items  []Item
	// Err is set, and Items empty, when nothing was looked up: it is
	// ErrInvalidDomain when the domain is not a plausible DNS name.
	Err error
}

// OK reports whether every record was checked and is in place (lines
// that are no record, and advice, do not count).
func (c Checklist) OK() bool {
	if c.Err != nil || len(c.Items) == 0 {
		return false
	}
	for _, it := range c.Items {
		if it.State != StateOK && it.State != StateInfo && it.State != StateAdvice {
			return false
		}
	}
	return true
}

// Text renders the checklist as plain text: the header, one line per
// record, and the summary, each ending in a newline. It holds no markup of
// any chat system; text that came from DNS is quoted or is a validated
// host name.
func (c Checklist) Text() string {
	var b strings.Builder
	b.WriteString(c.Header())
	b.WriteByte('\n')
	for _, l := range c.Lines() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(c.Summary())
	b.WriteByte('\n')
	return b.String()
}

// Header is the checklist's title: "DNS records of example.com".
func (c Checklist) Header() string {
	if c.Err != nil {
		return "DNS records not checked"
	}
	return "DNS records of " + c.Domain
}

// Lines renders one line per record (see [Item.Line]).
func (c Checklist) Lines() []string {
	lines := make([]string, len(c.Items))
	for i, it := range c.Items {
		lines[i] = it.Line()
	}
	return lines
}

// Summary is the checklist's closing sentence: all in place, or how many
// records need a change and how many could not be checked.
func (c Checklist) Summary() string {
	if c.Err != nil {
		return "Nothing was looked up: " + c.Err.Error() + "."
	}
	var records, todo, unknown, advice int
	for _, it := range c.Items {
		switch it.State {
		case StateMissing, StateWrong:
			todo++
		case StateError:
			unknown++
		case StateAdvice:
			advice++
		}
		if it.State != StateInfo && it.State != StateAdvice {
			records++
		}
	}
	var parts []string
	if todo == 0 && unknown == 0 {
		parts = append(parts, "All "+strconv.Itoa(records)+" records are in place.")
	}
	if todo > 0 {
		parts = append(parts, count(todo, "record needs", "records need")+
			" a change at the domain's DNS provider; changes can take a few hours to be seen everywhere.")
	}
	if unknown > 0 {
		parts = append(parts, count(unknown, "record", "records")+" could not be checked.")
	}
	if advice > 0 {
		parts = append(parts, "The advice ("+count(advice, "line", "lines")+") does not count against this result.")
	}
	return strings.Join(parts, " ")
}

// count is "1 record" or "2 records": n and the matching form.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
