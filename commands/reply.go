package commands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient/pdd"
)

// Target is the operation's target: the domain, or user@domain.
func (o Operation) Target() string {
	if o.Action == ActionAddMailbox {
		return o.Login + "@" + o.Domain
	}
	return o.Domain
}

// String describes the operation in words: "register domain example.com",
// "add mailbox alice@example.com".
func (o Operation) String() string {
	switch o.Action {
	case ActionRegisterDomain:
		return "register domain " + o.Target()
	case ActionAddMailbox:
		return "add mailbox " + o.Target()
	}
	return string(o.Action) + " " + o.Target()
}

// pastTense describes the done operation: "registered domain example.com".
func (o Operation) pastTense() string {
	switch o.Action {
	case ActionRegisterDomain:
		return "registered domain " + o.Target()
	case ActionAddMailbox:
		return "added mailbox " + o.Target()
	}
	return o.String()
}

// apiOp is the PDD operation that carries out o.
func (o Operation) apiOp() pdd.Op {
	if o.Action == ActionAddMailbox {
		return pdd.OpAddMailbox
	}
	return pdd.OpRegisterDomain
}

// PlainText renders the reply for a console: the title, the text, one
// "Label: value" line per field, numbered steps and the note.
func (r Reply) PlainText() string {
	var b strings.Builder
	b.Grow(r.textLen())
	b.WriteString(r.Title)
	b.WriteByte('\n')
	if r.Text != "" {
		b.WriteString(r.Text)
		b.WriteByte('\n')
	}
	for _, f := range r.Fields {
		b.WriteString("  ")
		b.WriteString(f.Label)
		b.WriteString(": ")
		b.WriteString(f.Value)
		b.WriteByte('\n')
	}
	for i, s := range r.Steps {
		b.WriteString("  ")
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(". ")
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if r.Note != "" {
		b.WriteString(r.Note)
		b.WriteByte('\n')
	}
	return b.String()
}

// textLen is about the length of PlainText, so that it allocates once.
func (r Reply) textLen() int {
	n := len(r.Title) + len(r.Text) + len(r.Note) + 3
	for _, f := range r.Fields {
		n += len(f.Label) + len(f.Value) + 5
	}
	for _, s := range r.Steps {
		n += len(s) + 8
	}
	return n
}

// Summary renders the notice in words; mention renders a user ID (the Slack
// adapter passes "<@U…>", the shell the bare ID). It never holds a secret:
// "U1 registered domain example.com: domain-activate", "U1 added mailbox
// a@example.com: uid 42", "U1: register domain example.com failed:
// occupied (the domain name is in use by another user)".
func (n Notice) Summary(mention func(userID string) string) string {
	if mention == nil {
		mention = func(id string) string { return id }
	}
	who := mention(n.Actor)
	var s string
	switch {
	case n.OK && n.Op.Action == ActionRegisterDomain:
		s = fmt.Sprintf("%s %s: %s", who, n.Op.pastTense(), n.Status)
	case n.OK:
		s = fmt.Sprintf("%s %s: uid %d", who, n.Op.pastTense(), n.UID)
	case n.Uncertain && n.Op.Action == ActionAddMailbox:
		s = fmt.Sprintf("%s: %s: no usable answer from the PDD API (%s): the mailbox may exist now", who, n.Op, n.Code)
	case n.Uncertain:
		s = fmt.Sprintf("%s: %s: no usable answer from the PDD API (%s): the domain may be registered now", who, n.Op, n.Code)
	default:
		s = fmt.Sprintf("%s: %s failed: %s (%s)", who, n.Op, n.Code, codeMeaning(n.Op, n.Code))
	}
	for i, a := range n.Approvers {
		if i == 0 {
			s += ", approved by " + mention(a)
		} else {
			s += ", " + mention(a)
		}
	}
	if n.Op.Reason != "" {
		s += "; reason: " + n.Op.Reason
	}
	return s
}

// codeMeaning describes a notice's failure code in words.
func codeMeaning(op Operation, code string) string {
	switch code {
	case CodeTransport:
		return "the PDD API did not answer"
	case CodeResponse:
		return "the PDD API gave an answer mailbot cannot read"
	case CodeInternal:
		return "an internal error, see the log"
	case CodeInvalid:
		return "the operation did not validate; nothing was sent"
	case CodeStore:
		return "mailbot cannot reach its database; nothing was done"
	}
	return (&pdd.Error{Op: op.apiOp(), Code: pdd.Code(code)}).Meaning()
}
