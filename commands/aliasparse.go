package commands

import (
	"fmt"
	"strings"
)

// parseAliasCommand parses the /mailbox sub-commands of aliases and
// offboarding (toks[0] is the sub-command):
//
//	alias add <alias> <mailbox> [reason…]
//	alias remove <alias> [reason…]
//	aliases <mailbox>
//	offboard <address> [to <successor>] [reason…]
//
// Each address is user@domain or a bare user name (the default domain).
func parseAliasCommand(text string, toks []token) (Invocation, error) {
	switch sub := Action(strings.ToLower(toks[0].raw)); sub {
	case ActionOffboard:
		if len(toks) == 1 {
			return Invocation{Command: CmdMailbox, Bare: true, Op: Operation{Action: ActionOffboard}}, nil
		}
		return parseOffboard(text, toks[1:])
	case ActionListAliases:
		return parseAliasesRead(toks[1:])
	case "alias":
		return parseAlias(text, toks[1:])
	}
	return Invocation{}, &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf("/mailbox has no sub-command %q.", trunc(cleanText(toks[0].raw), 40)),
		Fix: "/mailbox help", Usage: true}
}

// parseAlias parses "alias add <alias> <mailbox>" and "alias remove
// <alias>", each with a reason.
func parseAlias(text string, toks []token) (Invocation, error) {
	verb := ""
	if len(toks) > 0 {
		verb = strings.ToLower(toks[0].raw)
	}
	action, need := ActionAliasAdd, 3
	switch verb {
	case "add":
	case "remove":
		action, need = ActionAliasRemove, 2
	default:
		return Invocation{}, &UsageError{Command: CmdMailbox, Problem: "Say alias add or alias remove.",
			Fix: "/mailbox " + aliasFix(ActionAliasAdd) + " or /mailbox " + aliasFix(ActionAliasRemove), Usage: true}
	}
	fix := "/mailbox " + aliasFix(action)
	if len(toks) < need {
		problem := map[Action]string{ActionAliasAdd: "Give the alias and the mailbox it delivers to.", ActionAliasRemove: "No alias given."}[action]
		return Invocation{}, &UsageError{Command: CmdMailbox, Problem: problem, Fix: fix}
	}
	op := Operation{Action: action}
	alias, err := addressArg(toks[1], action, fix)
	if err != nil {
		return Invocation{}, err
	}
	op.Login, op.Domain, _ = cutAddress(alias)
	if action == ActionAliasAdd {
		if op.To, err = addressArg(toks[2], action, fix); err != nil {
			return Invocation{}, err
		}
	}
	op.Reason = reasonFrom(text, toks[need:])
	return Invocation{Command: CmdMailbox, Op: op}, nil
}

// parseOffboard parses "<address> [to <successor>] [reason…]".
func parseOffboard(text string, toks []token) (Invocation, error) {
	fix := "/mailbox " + aliasFix(ActionOffboard)
	mailbox, err := addressArg(toks[0], ActionOffboard, fix)
	if err != nil {
		return Invocation{}, err
	}
	op := Operation{Action: ActionOffboard}
	op.Login, op.Domain, _ = cutAddress(mailbox)
	rest := toks[1:]
	if len(rest) > 0 && strings.EqualFold(rest[0].raw, "to") {
		if len(rest) < 2 {
			return Invocation{}, &UsageError{Command: CmdMailbox, Problem: "No successor given after \"to\".", Fix: fix}
		}
		if op.To, err = addressArg(rest[1], ActionOffboard, fix); err != nil {
			return Invocation{}, err
		}
		rest = rest[2:]
	}
	op.Reason = reasonFrom(text, rest)
	return Invocation{Command: CmdMailbox, Op: op}, nil
}

// parseAliasesRead parses "aliases <mailbox>"; without one, it answers
// with the usage.
func parseAliasesRead(toks []token) (Invocation, error) {
	fix := "/mailbox " + aliasFix(ActionListAliases)
	if len(toks) != 1 {
		return Invocation{}, &UsageError{Command: CmdMailbox, Problem: "Give exactly one mailbox.", Fix: fix, Usage: true}
	}
	mailbox, err := addressArg(toks[0], ActionListAliases, fix)
	if err != nil {
		return Invocation{}, err
	}
	op := Operation{Action: ActionListAliases}
	op.Login, op.Domain, _ = cutAddress(mailbox)
	return Invocation{Command: CmdMailbox, Read: true, Op: op}, nil
}

// addressArg is the address a word stands for, user@domain normalised,
// or a bare user name (the caller supplies the default domain).
func addressArg(t token, action Action, fix string) (string, error) {
	a, err := t.value(CmdMailbox, fix)
	if err != nil {
		return "", err
	}
	if a.kind == kindLink {
		return "", &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf("%s is a web address, not a mailbox.", trunc(a.text, 80)), Fix: fix}
	}
	user, domain, isAddr := cutAddress(a.text)
	login, err := normalizeLogin(action, user)
	if err != nil {
		return "", &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf("%q is not a valid user name: %v.", trunc(user, 40), err), Fix: fix}
	}
	if !isAddr {
		return login, nil
	}
	d, err := domainArg(CmdMailbox, domain, fix)
	if err != nil {
		return "", err
	}
	return login + "@" + d, nil
}
