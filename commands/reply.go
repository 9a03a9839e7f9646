package commands

import (
	"fmt"
	"strconv"
	"strings"
)

// Target is the operation's target: the domain, or user@domain.
func (o Operation) Target() string {
	if o.Action.OnMailbox() {
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
	case ActionResetPassword:
		return "reset the password of mailbox " + o.Target()
	case ActionBlock:
		return "block mailbox " + o.Target()
	case ActionUnblock:
		return "unblock mailbox " + o.Target()
	case ActionAliasAdd, ActionAliasRemove, ActionOffboard:
		return o.aliasString(false)
	case ActionImport:
		return fmt.Sprintf("import %d mailboxes in %s", o.Rows, o.Domain)
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
	case ActionResetPassword:
		return "reset the password of mailbox " + o.Target()
	case ActionBlock:
		return "blocked mailbox " + o.Target()
	case ActionUnblock:
		return "unblocked mailbox " + o.Target()
	case ActionAliasAdd, ActionAliasRemove, ActionOffboard:
		return o.aliasString(true)
	}
	return o.String()
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
	case n.OK && n.Unchanged:
		s = fmt.Sprintf("%s: %s: nothing changed, it already was so (%s)", who, n.Op, n.Status)
	case n.OK && (n.Op.Action == ActionRegisterDomain || n.Status != ""):
		s = fmt.Sprintf("%s %s: %s", who, n.Op.pastTense(), n.Status)
	case n.OK:
		s = who + " " + n.Op.pastTense()
		if n.UID != "" {
			s += ": uid " + n.UID
		}
	case n.Uncertain && n.Op.Action == ActionAddMailbox:
		s = fmt.Sprintf("%s: %s: no usable answer from %s (%s): the mailbox may exist now", who, n.Op, n.ProviderTitle, n.Code)
	case n.Uncertain && n.Op.Action == ActionRegisterDomain:
		s = fmt.Sprintf("%s: %s: no usable answer from %s (%s): the domain may be registered now", who, n.Op, n.ProviderTitle, n.Code)
	case n.Uncertain:
		s = fmt.Sprintf("%s: %s: no usable answer from %s (%s): it may or may not be done", who, n.Op, n.ProviderTitle, n.Code)
	default:
		s = fmt.Sprintf("%s: %s failed: %s (%s)", who, n.Op, n.Code, n.Why())
	}
	if n.HandedTo != "" {
		s += "; credentials to " + mention(n.HandedTo)
	}
	for _, w := range n.Warnings {
		s += "; warning: " + w
	}
	if len(n.Steps) > 0 {
		s += "; steps: " + strings.Join(n.Steps, "; ")
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

// Why says what the notice's failure code means, in words.
func (n Notice) Why() string {
	if n.Detail != "" {
		return n.Detail
	}
	switch n.Code {
	case CodeTransport:
		return n.ProviderTitle + " did not answer"
	case CodeResponse:
		return n.ProviderTitle + " gave an answer mailbot cannot read"
	}
	if w, ok := codeWords[n.Code]; ok {
		return w
	}
	return "as " + n.ProviderTitle + " answered"
}
