package commands

import (
	"context"
	"strconv"
	"strings"
)

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
	s := n.headline(mention(n.Actor))
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

// headline is the start of [Notice.Summary]: who did what, and how it ended.
func (n Notice) headline(who string) string {
	switch {
	case n.OK && n.Unchanged:
		return who + ": " + n.Op.String() + ": nothing changed, it already was so (" + n.Status + ")"
	case n.OK && (n.Op.Action == ActionRegisterDomain || n.Status != ""):
		return who + " " + n.Op.pastTense() + ": " + n.Status
	case n.OK && n.UID != "":
		return who + " " + n.Op.pastTense() + ": uid " + n.UID
	case n.OK:
		return who + " " + n.Op.pastTense()
	case n.Uncertain:
		return who + ": " + n.Op.String() + ": no usable answer from " + n.ProviderTitle + " (" + n.Code + "): " + uncertainOutcome(n.Op.Action)
	}
	return who + ": " + n.Op.String() + " failed: " + n.Code + " (" + n.Why() + ")"
}

// uncertainOutcome says what may be true after an operation that got no
// usable answer from the provider.
func uncertainOutcome(a Action) string {
	switch a {
	case ActionAddMailbox:
		return "the mailbox may exist now"
	case ActionRegisterDomain:
		return "the domain may be registered now"
	}
	return "it may or may not be done"
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

// Reply is a transport-free answer to the person who asked. The Slack
// adapter renders it as Block Kit, the shell as plain text.
type Reply struct {
	Title   string   // one line, such as "Mailbox created"
	Text    string   // a lead paragraph, may be empty
	Fields  []Field  // labelled values
	Steps   []string // instructions, in order (how to verify a domain)
	Note    string   // a closing remark, such as "Only you can see this."
	Error   bool     // the request failed or was refused
	Buttons []Button // actions offered to the person who asked
}

// Button is an action a reply, a request message or the Home tab offers.
// Its Value is signed: the transport hands it back on a click, and only a
// value this mailbot signed is acted on.
type Button struct {
	Kind  ButtonKind
	Label string
	Value string
}

// ButtonKind says what a [Button] does.
type ButtonKind string

// The buttons.
const (
	ButtonApprove  ButtonKind = "approve"   // approve a request (admins)
	ButtonDeny     ButtonKind = "deny"      // deny a request (admins)
	ButtonCancel   ButtonKind = "cancel"    // withdraw a request (its requester)
	ButtonCheckDNS ButtonKind = "check_dns" // run the DNS checklist of a registered domain
	ButtonMore     ButtonKind = "more"      // show the next page of a list (admins)
	ButtonShow     ButtonKind = "show"      // show a handed-over password (its owner)
)

// Field is one labelled value of a [Reply].
type Field struct {
	Label  string
	Value  string
	Secret bool // a password or verification secret: show verbatim, in a code span, to the requester only
}

// Notice is the ops-channel account of an executed operation. It never
// holds a password or verification secret.
type Notice struct {
	Actor     string   // user ID of the requester
	Approvers []string // user IDs of the admins who approved, if any
	Op        Operation
	OK        bool
	Provider  string // the provider's name: apiclient.ProviderPDD, …
	// ProviderTitle names the provider in the notice's words.
	ProviderTitle string
	Status        string // register: the domain's status, as the provider gives it
	Stage         string // register: the domain's stage (PDD)
	UID           string // add: the new mailbox's uid, where the provider has one
	// Code is, on failure, the provider's error code as received, or one
	// of the core's: "transport", "response", "internal", "invalid",
	// "store", "credentials".
	Code string
	// Detail says what Code means, in words; never a secret.
	Detail string
	// Warnings are the provider's notes on a partial success.
	Warnings []string
	// NothingDone is set on a failure after which the PDD API certainly
	// changed nothing and a later attempt may succeed: an approval is not
	// used up by it.
	NothingDone bool
	// HandedTo is the person the credentials went to in a hand-over.
	HandedTo string
	// Uncertain is set when the operation may or may not have happened
	// (an add that was sent and got no answer).
	Uncertain bool
	// RequestID is the approved request the operation runs for; empty for
	// a direct operation.
	RequestID string
	// Steps are the steps of an operation of several (offboard), each
	// with its outcome in words, in order; never a secret.
	Steps []string
	// Unchanged is set on a success that changed nothing: the target
	// already was as asked (Code is CodeUnchanged).
	Unchanged bool
}

// Result is what running an operation produced.
type Result struct {
	Reply  Reply  // for the requester alone: may hold secrets
	Notice Notice // for the ops channel: never a secret
}

// Messenger is what the application flow needs of a transport (the Slack
// adapter, the shell): where private answers, approval requests and ops
// notices go. Its methods are called with a context of their own, not the
// work's, so that an answer is sent even when the work ran out of time.
type Messenger interface {
	// Deliver gives r to to.User alone. The Slack adapter tries every
	// route it has (docs/delivery.md) before it gives up with an error.
	Deliver(ctx context.Context, to Route, r Reply) error
	// PostRequest shows a new request to the admins and says where.
	PostRequest(ctx context.Context, v RequestView) (MessageRef, error)
	// UpdateRequest shows the request's new state in its message: the
	// buttons only while it is pending.
	UpdateRequest(ctx context.Context, ref MessageRef, v RequestView) error
	// Notify tells the ops channel text, which never holds a secret.
	Notify(ctx context.Context, text string) error
	// Remind posts text as a reply to the request message.
	Remind(ctx context.Context, ref MessageRef, text string) error
	// RequestValue reads the request message back and returns the
	// signed value its Approve and Deny buttons carry: "" when it offers
	// none (it shows a decision) or is gone.
	RequestValue(ctx context.Context, ref MessageRef) (string, error)

	HandoverMessenger
}

// Route says where a private answer goes: the person, where they typed
// or clicked, and the transport's reply handle for that (Slack's
// response_url), if any.
type Route struct {
	User    string
	Channel string
	Handle  string
	Replace bool // the answer replaces the interim answer at Handle
}

// RequestView is what a request message shows: the request, its state,
// the approvals so far and a line on what happened, without a secret.
type RequestView struct {
	Pending   Pending
	Value     string // the signed request, for the Approve and Deny buttons
	State     State
	Approvers []string
	Need      int    // approvals needed in all
	Text      string // what happened, in words; user IDs marked by Config.Mention
	// AdminGroups names the admin user groups by handle ("@mail-admins"),
	// as plain text that notifies nobody.
	AdminGroups []string
}

// Buttons reports whether the message offers Approve and Deny.
func (v RequestView) Buttons() bool { return v.State == StatePending }
