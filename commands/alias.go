package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// Aliaser is a [Provider] that has aliases: addresses that deliver to a
// mailbox. A provider whose Capabilities().Aliases is true implements it;
// the core never calls it otherwise. Every address is ASCII local@domain
// (punycode, lower case), as the core checked it; every failure is an
// *apiclient.Error classified as for [Provider]'s methods.
type Aliaser interface {
	// AddAlias makes alias deliver to mailbox. An alias that is already a
	// mailbox or an alias is refused with ReasonExists. It creates: an
	// attempt without a usable answer is ClassUncertain and is not sent
	// again by the adapter (the core looks the alias up with ListAliases
	// first).
	AddAlias(ctx context.Context, alias, mailbox string) (*apiclient.Alias, error)
	// RemoveAlias removes alias, wherever it delivers (the result says to
	// which mailbox, where the provider says). An alias that does not
	// exist is ReasonNotFound.
	RemoveAlias(ctx context.Context, alias string) (*apiclient.Alias, error)
	// ListAliases returns the aliases that deliver to mailbox, sorted;
	// it changes nothing. A mailbox that does not exist is ReasonNotFound
	// where the provider can tell.
	ListAliases(ctx context.Context, mailbox string) ([]string, error)
	// MoveAlias makes alias, which delivers to from, deliver to to
	// instead: in one write where the provider can re-point an alias,
	// else a removal and an add. An alias that delivers to to already
	// (and no longer to from) is left as it is, with Already set. It
	// reads at most once before it writes.
	MoveAlias(ctx context.Context, alias, from, to string) (*apiclient.Alias, error)
}

// aliasWords are the /mailbox sub-commands of aliases and offboarding;
// the actions alias_add and alias_remove are named, not typed.
var aliasWords = map[Action]bool{"alias": true, ActionListAliases: true, ActionOffboard: true,
	ActionAliasAdd: true, ActionAliasRemove: true}

// aliasAPI is the aliases of domain's provider, or nil when it has none.
func (c *aliasService) aliasAPI(domain string) Aliaser {
	p := c.at(domain)
	if !p.Capabilities().Aliases {
		return nil
	}
	a, _ := p.(Aliaser)
	return a
}

// aliasString describes an alias operation or an offboarding in words;
// done is the past tense.
func (o Operation) aliasString(done bool) string {
	var s string
	switch o.Action {
	case ActionAliasAdd:
		s = map[bool]string{false: "add alias ", true: "added alias "}[done] + o.Target() + " to mailbox " + o.To
	case ActionAliasRemove:
		s = map[bool]string{false: "remove alias ", true: "removed alias "}[done] + o.Target()
	default:
		s = map[bool]string{false: "offboard mailbox ", true: "offboarded mailbox "}[done] + o.Target()
		if o.To != "" {
			s += " to " + o.To
		}
	}
	return s
}

// aliasDefaults completes the bare user names of an alias operation or
// an offboarding (its address and op.To) with the default domain.
func (c *aliasService) aliasDefaults(op Operation) (Operation, *UsageError) {
	bareTo := op.To != "" && !strings.Contains(op.To, "@")
	if !aliasWords[op.Action] || op.Domain != "" && !bareTo {
		return op, nil
	}
	if c.cfg.DefaultDomain == "" {
		return op, &UsageError{Command: CmdMailbox,
			Problem: "No domain given, and mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).",
			Fix:     "/mailbox " + aliasFix(op.Action)}
	}
	if op.Domain == "" {
		op.Domain = c.cfg.DefaultDomain
	}
	if bareTo {
		op.To += "@" + c.cfg.DefaultDomain
	}
	return op, nil
}

// aliasFix is the usage line of an alias action.
func aliasFix(a Action) string {
	switch a {
	case ActionAliasAdd:
		return "alias add sales@example.com bob@example.com [reason]"
	case ActionAliasRemove:
		return "alias remove sales@example.com [reason]"
	case ActionListAliases:
		return "aliases bob@example.com"
	}
	return "offboard alice@example.com [to bob@example.com] [reason]"
}

// checkAliasOp checks what alias operations and offboarding add to an
// operation: the second address (valid, allowed), and a provider with
// aliases where they are needed, refused in words before any call.
func (c *aliasService) checkAliasOp(op Operation, fix string) *UsageError {
	refuse := func(problem string) *UsageError {
		return &UsageError{Command: CmdMailbox, Problem: problem, Fix: "/mailbox " + aliasFix(op.Action)}
	}
	switch {
	case op.To != "" && op.Action != ActionAliasAdd && op.Action != ActionOffboard:
		return &UsageError{Command: CmdMailbox, Problem: "This operation takes one address.", Fix: fix}
	case op.Action == ActionAliasAdd && op.To == "":
		return refuse("No mailbox given for the alias to deliver to.")
	case op.To == "" && op.Action != ActionAliasAdd && op.Action != ActionAliasRemove:
		return nil
	}
	if c.aliasAPI(op.Domain) == nil {
		if op.Action == ActionOffboard {
			return &UsageError{Command: CmdMailbox, Problem: capitalise(c.titleAt(op.Domain)) +
				" has no aliases, so there are none to give to a successor. Offboard without \"to\" to block the mailbox.",
				Fix: "/mailbox offboard " + op.Target()}
		}
		// No command to suggest instead: no alias command works here.
		return &UsageError{Command: CmdMailbox,
			Problem: capitalise(c.titleAt(op.Domain)) + " has no aliases: mailbot cannot add, remove or list them there. Nothing was sent."}
	}
	if caps := c.at(op.Domain).Capabilities(); caps.ReadOnlyAliases {
		return readOnlyAliases(op, caps)
	}
	if op.To == "" {
		return nil
	}
	return c.checkTo(op, refuse)
}

// readOnlyAliases refuses, before any call, an alias change or an
// offboarding to a successor on a provider whose API only reads aliases.
func readOnlyAliases(op Operation, caps apiclient.Capabilities) *UsageError {
	where := "the provider's own console"
	if caps.AliasConsole != "" {
		where = caps.AliasConsole
	}
	if op.Action == ActionOffboard {
		return &UsageError{Command: CmdMailbox, Problem: "mailbot can read the aliases of " + caps.Title + " mailboxes but not move them, " +
			"so it cannot give them to a successor: move them in " + where + ". Offboard without \"to\" to block the mailbox. Nothing was sent.",
			Fix: "/mailbox offboard " + op.Target()}
	}
	return &UsageError{Command: CmdMailbox, Problem: "mailbot can read the aliases of " + caps.Title + " mailboxes but not add or remove them: " +
		"change them in " + where + ". Nothing was sent."}
}

// checkTo checks op.To: an address by the rules of the mailbox commands,
// in an allowed domain, and not the operation's own address.
func (c *aliasService) checkTo(op Operation, refuse func(string) *UsageError) *UsageError {
	login, domain, ok := cutAddress(op.To)
	if l, err := normalizeLogin(op.Action, login); !ok || err != nil || l != login {
		return refuse(fmt.Sprintf("%q is not a valid address.", trunc(op.To, 254)))
	}
	if d, err := NormalizeDomain(domain); err != nil || d != domain {
		return refuse(fmt.Sprintf("%q is not a valid domain name.", trunc(domain, 80)))
	}
	if !allowed(c.domains, domain) {
		return &UsageError{Command: CmdMailbox,
			Problem: fmt.Sprintf("mailbot may not touch %s: it is not in the list of allowed domains (%s).", domain, strings.Join(c.domains, ", ")),
			Fix:     "a domain from that list, or ask an operator to add it to MAILBOT_DOMAINS"}
	}
	if op.To == op.Target() {
		return refuse(fmt.Sprintf("%s and %s are the same address.", op.Target(), op.To))
	}
	if p, q := c.at(op.Domain), c.at(domain); p.Name() != q.Name() {
		return &UsageError{Command: CmdMailbox, Problem: fmt.Sprintf(
			"%s is at %s and %s at %s: %s. Nothing was sent.", op.Target(), p.Capabilities().Title, op.To, q.Capabilities().Title, oneProvider(op.Action))}
	}
	return nil
}

// changeAlias adds or removes the alias op.Target(). An add whose answer
// was lost is looked up before it is sent again.
func (c *aliasService) changeAlias(ctx context.Context, n Notice) (Result, error) {
	api, alias := c.aliasAPI(n.Op.Domain), n.Op.Target()
	if api == nil {
		return Result{}, fmt.Errorf("commands: %s has no aliases", n.Provider)
	}
	if n.Op.Action == ActionAliasRemove {
		a, err := api.RemoveAlias(ctx, alias)
		if err != nil {
			return Result{}, err
		}
		n.OK, n.Warnings = true, a.Warnings
		r := Reply{Title: "Alias " + alias + " removed", Fields: []Field{{Label: "Alias", Value: alias}},
			Text:  "It no longer delivers mail" + map[bool]string{true: " to " + a.Mailbox, false: ""}[a.Mailbox != ""] + ".",
			Steps: warningSteps(n.Warnings)}
		if c.at(n.Op.Domain).Capabilities().OrgWideAliases {
			r.Text += " The name is gone at every domain of the organisation."
		}
		return Result{Reply: r, Notice: n}, nil
	}
	a, err := c.addAlias(ctx, api, alias, n.Op.To)
	if err != nil {
		return Result{}, err
	}
	n.OK, n.Warnings = true, a.Warnings
	mailbox := n.Op.To
	if a.Mailbox != "" {
		mailbox = a.Mailbox // the address the provider gives the mailbox
	}
	r := Reply{Title: "Alias " + alias + " added",
		Fields: []Field{{Label: "Alias", Value: alias}, {Label: "Delivers to", Value: mailbox}},
		Text:   c.aliasWhere(alias, mailbox), Steps: warningSteps(n.Warnings)}
	return Result{Reply: r, Notice: n}, nil
}

// aliasWhere says where an alias receives mail.
func (c *aliasService) aliasWhere(alias, mailbox string) string {
	local, domain, _ := cutAddress(alias)
	if !c.at(domain).Capabilities().OrgWideAliases {
		return "Mail to " + alias + " now reaches " + mailbox + "."
	}
	return capitalise(c.titleAt(domain)) + " aliases are names at every domain of the organisation: mail to " + local +
		"@ any of its domains now reaches " + mailbox + "."
}

// addAlias adds the alias; when the add got no usable answer, the
// mailbox's aliases are read first: there, it was added; not there, it is
// added again; the read failing too, the add's failure stands.
func (c *aliasService) addAlias(ctx context.Context, api Aliaser, alias, mailbox string) (*apiclient.Alias, error) {
	a, err := api.AddAlias(ctx, alias, mailbox)
	if !apiclient.MayHaveHappened(err) || ctx.Err() != nil {
		return a, err
	}
	list, lerr := api.ListAliases(ctx, mailbox)
	switch {
	case lerr != nil:
		return nil, err
	case c.hasAlias(list, alias):
		return &apiclient.Alias{Address: alias, Mailbox: mailbox}, nil
	}
	return api.AddAlias(ctx, alias, mailbox)
}

// hasAlias reports whether list holds alias; where aliases are names at
// every domain of the organisation, the local part decides.
func (c *aliasService) hasAlias(list []string, alias string) bool {
	local, domain, _ := cutAddress(alias)
	orgWide := c.at(domain).Capabilities().OrgWideAliases
	for _, a := range list {
		l, _, _ := cutAddress(a)
		if a == alias || orgWide && l == local {
			return true
		}
	}
	return false
}
