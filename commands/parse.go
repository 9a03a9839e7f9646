package commands

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mailbot/mailbot/internal/textcut"
)

// The slash commands.
const (
	CmdDomain  = "/maildomain"
	CmdMailbox = "/mailbox"
)

// maxReason bounds the reason kept, in characters, so that a pending
// request always fits in a Slack button's value.
const maxReason = 200

// Invocation is a parsed slash command.
type Invocation struct {
	Command string // CmdDomain or CmdMailbox
	// Help is set for "help": answer with the usage.
	Help bool
	// Bare is set for a command typed with no text, or with only its
	// sub-command ("/mailbox", "/maildomain register"): Op.Action says
	// which operation the form is for.
	Bare bool
	// Check is set for "/maildomain check <domain>": Op.Domain is the
	// domain whose DNS records to check.
	Check bool
	// Read is set for "/mailbox list <domain>" and "/maildomain status
	// <domain>": Op.Action says which, Op.Domain of which domain.
	Read bool
	// Op is the operation when neither Help nor Bare is set. For
	// "/mailbox add <user>" its Domain is empty: the caller supplies the
	// default domain.
	Op Operation
}

// UsageError is input that cannot be run: it says what was wrong and what
// to type instead.
type UsageError struct {
	Command string // the slash command, such as "/mailbox"
	Problem string // what was wrong, a sentence for people
	Fix     string // what to type instead, such as "/mailbox add alice@example.com"
	Usage   bool   // the answer should list the command's usage
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%s: %s", e.Command, e.Problem)
}

// Parse parses the text of a slash command (the words after command) by the
// grammar of docs/commands.md. It is pure: it checks the syntax, the domain
// and the user name, but not the policy.
func Parse(command, text string) (Invocation, error) {
	command = strings.ToLower(strings.TrimSpace(command))
	if command != CmdDomain && command != CmdMailbox {
		return Invocation{}, &UsageError{Command: command, Problem: fmt.Sprintf("mailbot does not know the command %q.", trunc(command, 40)),
			Fix: "/maildomain help or /mailbox help", Usage: true}
	}
	toks := tokenize(text)
	if len(toks) == 0 {
		action := ActionRegisterDomain
		if command == CmdMailbox {
			action = ActionAddMailbox
		}
		return Invocation{Command: command, Bare: true, Op: Operation{Action: action}}, nil
	}
	inv, err := parseSub(command, text, toks)
	if err != nil {
		return Invocation{}, err
	}
	return inv, nil
}

// parseSub parses the words of command after the first, by the
// sub-command the first names.
func parseSub(command, text string, toks []token) (Invocation, error) {
	sub := Action(strings.ToLower(toks[0].raw))
	switch {
	case sub == "help":
		return Invocation{Command: command, Help: true}, nil
	case command == CmdMailbox && sub == ActionImport && len(toks) == 1:
		return Invocation{Command: command, Bare: true, Op: Operation{Action: ActionImport}}, nil
	case command == CmdMailbox && aliasWords[sub]:
		return parseAliasCommand(text, toks)
	case len(toks) == 1 && sub.IsOperation() && sub.Command() == command:
		return Invocation{Command: command, Bare: true, Op: Operation{Action: sub}}, nil
	case command == CmdDomain && sub == "check":
		return parseCheck(toks[1:])
	case sub.Command() == command && (sub == ActionDomainStatus || sub == ActionListMailboxes):
		return parseRead(sub, toks[1:])
	case command == CmdDomain && sub == ActionRegisterDomain:
		return parseRegister(text, toks[1:])
	case command == CmdMailbox && sub.OnMailbox():
		return parseMailboxOp(sub, text, toks[1:])
	}
	return Invocation{}, &UsageError{Command: command, Problem: fmt.Sprintf("%s has no sub-command %q.", command, trunc(cleanText(toks[0].raw), 40)) +
		didYouMean(command, string(sub)), Fix: command + " help", Usage: true}
}

func parseRegister(text string, toks []token) (Invocation, error) {
	const fix = "/maildomain register example.com [reason]"
	if len(toks) == 0 {
		return Invocation{}, &UsageError{Command: CmdDomain, Problem: "No domain given.", Fix: fix}
	}
	d, err := domainWord(toks[0], fix)
	if err != nil {
		return Invocation{}, err
	}
	op := Operation{Action: ActionRegisterDomain, Domain: d, Reason: reasonFrom(text, toks[1:])}
	return Invocation{Command: CmdDomain, Op: op}, nil
}

// parseRead parses "/mailbox list <domain>" and "/maildomain status
// <domain>"; without a domain status answers with the usage, and list
// leaves the domain empty (the default domain's, if any).
func parseRead(action Action, toks []token) (Invocation, error) {
	cmd := action.Command()
	fix := cmd + " " + string(action) + " example.com"
	if len(toks) == 0 && action == ActionListMailboxes {
		return Invocation{Command: cmd, Read: true, Op: Operation{Action: action}}, nil
	}
	if len(toks) != 1 {
		return Invocation{}, &UsageError{Command: cmd, Problem: "Give exactly one domain.", Fix: fix, Usage: true}
	}
	arg, err := toks[0].value(cmd, fix)
	if err != nil {
		return Invocation{}, err
	}
	if arg.kind == kindEmail || strings.Contains(arg.text, "@") {
		return Invocation{}, &UsageError{Command: cmd, Problem: fmt.Sprintf("%s is an email address, not a domain.", trunc(arg.text, 80)), Fix: fix}
	}
	d, err := domainArg(cmd, arg.text, fix)
	if err != nil {
		return Invocation{}, err
	}
	return Invocation{Command: cmd, Read: true, Op: Operation{Action: action, Domain: d}}, nil
}

func parseCheck(toks []token) (Invocation, error) {
	const fix = "/maildomain check example.com"
	if len(toks) != 1 {
		return Invocation{}, &UsageError{Command: CmdDomain, Problem: "Give exactly one domain to check.", Fix: fix}
	}
	d, err := domainWord(toks[0], fix)
	if err != nil {
		return Invocation{}, err
	}
	return Invocation{Command: CmdDomain, Check: true, Op: Operation{Domain: d}}, nil
}

// domainWord is the domain a /maildomain word stands for: plain, or one of
// Slack's link forms; never an address.
func domainWord(t token, fix string) (string, error) {
	arg, err := t.value(CmdDomain, fix)
	if err != nil {
		return "", err
	}
	if arg.kind == kindEmail || strings.Contains(arg.text, "@") {
		return "", &UsageError{Command: CmdDomain, Problem: fmt.Sprintf("%s is an email address, not a domain.", trunc(arg.text, 80)), Fix: fix}
	}
	return domainArg(CmdDomain, arg.text, fix)
}

// parseMailboxOp parses an operation on a mailbox: add, reset, block
// or unblock, followed by user@domain, "user domain" (the second word
// has a dot) or a bare user name (the default domain), and a reason.
func parseMailboxOp(action Action, text string, toks []token) (Invocation, error) {
	fix := "/mailbox " + string(action) + " alice@example.com [reason]"
	if len(toks) == 0 {
		return Invocation{}, &UsageError{Command: CmdMailbox, Problem: "No mailbox given.", Fix: fix}
	}
	login, domain, isAddr, err := mailboxArg(action, toks[0], fix)
	if err != nil {
		return Invocation{}, err
	}
	op := Operation{Action: action, Login: login, Domain: domain}
	rest := toks[1:]
	if len(rest) > 0 && strings.Contains(rest[0].raw, ".") {
		if op.Domain, err = domainAfterMailbox(op, isAddr, rest[0], fix); err != nil {
			return Invocation{}, err
		}
		rest = rest[1:]
	}
	if action == ActionAddMailbox || action == ActionResetPassword {
		id, n, err := forClause(action, rest)
		if err != nil {
			return Invocation{}, err
		}
		op.For, rest = id, rest[n:]
	}
	op.Reason = reasonFrom(text, rest)
	return Invocation{Command: CmdMailbox, Op: op}, nil
}

// mailboxArg reads the mailbox a mailbox operation is on: a user name, or
// an address user@domain (isAddr) with its domain.
func mailboxArg(action Action, tok token, fix string) (login, domain string, isAddr bool, err error) {
	first, err := tok.value(CmdMailbox, fix)
	if err != nil {
		return "", "", false, err
	}
	if first.kind == kindLink {
		return "", "", false, &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf("%s is a web address, not a mailbox.", trunc(first.text, 80)), Fix: fix}
	}
	user, domain, isAddr := cutAddress(first.text)
	login, err = normalizeLogin(action, user)
	if err != nil {
		return "", "", false, &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf("%q is not a valid user name: %v.", trunc(user, 40), err), Fix: fix}
	}
	if !isAddr {
		return login, "", false, nil
	}
	if domain, err = domainArg(CmdMailbox, domain, fix); err != nil {
		return "", "", false, err
	}
	return login, domain, true, nil
}

// domainAfterMailbox reads the domain given as a word after the mailbox of
// op; when the mailbox was an address (isAddr), its domain must be that one.
func domainAfterMailbox(op Operation, isAddr bool, tok token, fix string) (string, error) {
	second, err := tok.value(CmdMailbox, fix)
	if err != nil {
		return "", err
	}
	d, err := domainArg(CmdMailbox, second.text, "/mailbox "+string(op.Action)+" "+op.Login+" example.com [reason]")
	if err != nil {
		return "", err
	}
	if isAddr && d != op.Domain {
		return "", &UsageError{Command: CmdMailbox,
			Problem: fmt.Sprintf("The address %s@%s is not in the domain %s.", op.Login, op.Domain, d),
			Fix:     fmt.Sprintf("/mailbox %s %s@%s", op.Action, op.Login, d)}
	}
	return d, nil
}

// cutAddress splits user@domain at its last @.
func cutAddress(s string) (user, domain string, ok bool) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// domainArg normalises a domain typed by a person, explaining a refusal.
func domainArg(command, s, fix string) (string, error) {
	d, err := NormalizeDomain(s)
	if err != nil {
		return "", &UsageError{Command: command, Problem: fmt.Sprintf("%q is not a valid domain name: %v.", trunc(s, 80), err), Fix: fix}
	}
	return d, nil
}

const (
	kindPlain tokenKind = iota
	kindEmail           // <mailto:a@b.com|a@b.com>
	kindLink            // <http://b.com|b.com>
)

var entities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

// reasonFrom is the free text from the first of toks to the end, as plain
// text: Slack forms become readable text (so that the reason mentions no one
// when it is shown again), white space is collapsed, and it is cut to
// maxReason characters.
func reasonFrom(text string, toks []token) string {
	if len(toks) == 0 {
		return ""
	}
	return cleanReason(text[toks[0].start:])
}

// cleanReason is a reason as mailbot keeps and shows it, typed or
// submitted in a form.
func cleanReason(s string) string { return trunc(CleanReason(s), maxReason) }

// cleanText turns Slack's markup into plain text: <@U1|ann> becomes @ann,
// <#C1|ops> #ops, <!here> @here, links their text; entities are decoded,
// control characters and runs of white space become one space.
func cleanText(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			b.WriteString(s[i+1:])
			break
		}
		b.WriteString(formText(s[i+1 : i+j]))
		s = s[i+j+1:]
	}
	return strings.Join(strings.FieldsFunc(unescape(b.String()), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
	}), " ")
}

// formText is the readable text of the inside of one <…> form.
func formText(inner string) string {
	target, label, hasLabel := strings.Cut(inner, "|")
	switch {
	case strings.HasPrefix(target, "@") || strings.HasPrefix(target, "#"):
		if hasLabel {
			return target[:1] + strings.TrimLeft(label, "@#")
		}
		return target
	case strings.HasPrefix(target, "!"):
		if hasLabel {
			return label
		}
		name, _, _ := strings.Cut(target[1:], "^")
		return "@" + name
	case hasLabel:
		return label
	case hasPrefixFold(target, "mailto:"):
		return target[len("mailto:"):]
	}
	return target
}

// trunc cuts s to n characters, marking the cut with an ellipsis
// (textcut.Runes).
func trunc(s string, n int) string { return textcut.Runes(s, n) }
