package commands

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"
)

// PeopleByEmail is what the transport may know besides People: who has an
// e-mail address (Slack's users.lookupByEmail). An import's owner may be
// given by e-mail only when Config.People implements it.
type PeopleByEmail interface {
	// UserByEmail returns the user ID of the person whose profile has
	// email; ok is false when nobody has it. An error means the
	// transport could not be asked.
	UserByEmail(ctx context.Context, email string) (userID string, ok bool, err error)
}

// maxNameLen bounds a given or family name, in characters.
const maxNameLen = 60

// checkRows parses in's text and file and checks every row by the rules
// of add: the address, the allowed domains, the owner, duplicates, and
// the limit.
func (c *Core) checkRows(ctx context.Context, in ImportInput) ([]ImportRow, []RowProblem) {
	max := c.cfg.ImportMaxRows
	text, tp, tmore := ParseRows(in.Text, max)
	var file []RawRow
	var fp []RowProblem
	fmore := false
	if in.File != "" {
		file, fp, fmore = ParseRows(in.File, max-len(text))
		for i := range fp {
			fp[i].Source = fileLabel(in.FileName)
		}
	}
	problems := append(tp, fp...)
	switch {
	case tmore || fmore || len(text)+len(file) > max:
		return nil, []RowProblem{{Text: fmt.Sprintf("has more than %d rows, the most one import may create (MAILBOT_IMPORT_MAX_ROWS). Split it.", max)}}
	case len(text)+len(file) == 0 && len(problems) == 0:
		return nil, []RowProblem{{Text: "has no rows: give one mailbox a line, address[,owner[,given name[,family name]]]."}}
	}
	ck := rowChecker{c: c, ctx: ctx, seen: map[string]string{}, owners: map[string]ownerCheck{}}
	rows := ck.check(text, "", &problems)
	rows = append(rows, ck.check(file, fileLabel(in.FileName), &problems)...)
	return rows, problems
}

func fileLabel(name string) string {
	if name == "" {
		return "The file"
	}
	return trunc(cleanText(name), 60)
}

// rowChecker checks the rows of one import.
type rowChecker struct {
	c      *Core
	ctx    context.Context
	seen   map[string]string     // address -> where it was first
	owners map[string]ownerCheck // owner as given -> what it is
}

type ownerCheck struct {
	id  string
	why string
}

func (k *rowChecker) check(raw []RawRow, source string, problems *[]RowProblem) []ImportRow {
	rows := make([]ImportRow, 0, len(raw))
	for _, r := range raw {
		row, why := k.row(r, source)
		if why != "" {
			*problems = append(*problems, RowProblem{Source: source, Line: r.Line, Text: why})
			continue
		}
		rows = append(rows, row)
	}
	return rows
}

// row checks one row; why says what is wrong, or is "".
func (k *rowChecker) row(r RawRow, source string) (ImportRow, string) {
	op, why := k.c.importAddress(r.Address)
	if why != "" {
		return ImportRow{}, why
	}
	where := fmt.Sprintf("line %d", r.Line)
	if source != "" {
		where = source + ", " + where
	}
	if first, dup := k.seen[op.Target()]; dup {
		return ImportRow{}, fmt.Sprintf("%s is in the import twice (first at %s).", op.Target(), first)
	}
	k.seen[op.Target()] = where
	for _, name := range []string{r.Given, r.Family} {
		if utf8.RuneCountInString(name) > maxNameLen || !utf8.ValidString(name) || strings.ContainsAny(name, "<>\x00") {
			return ImportRow{}, fmt.Sprintf("the name %q is not a plain name of at most %d characters.", trunc(name, 30), maxNameLen)
		}
	}
	owner, why := k.owner(r.Owner)
	if why != "" {
		return ImportRow{}, why
	}
	return ImportRow{Line: r.Line, Domain: op.Domain, Login: op.Login, Owner: owner, Given: r.Given, Family: r.Family}, ""
}

// importAddress checks an import's address by the rules of a typed add.
func (c *Core) importAddress(addr string) (Operation, string) {
	if addr == "" {
		return Operation{}, "no address."
	}
	if strings.ContainsAny(addr, " \t") {
		return Operation{}, fmt.Sprintf("%q is not one address: a row is address[,owner[,given name[,family name]]].", trunc(addr, 60))
	}
	inv, err := Parse(CmdMailbox, string(ActionAddMailbox)+" "+addr)
	if err != nil {
		return Operation{}, problemOf(err)
	}
	op := inv.Op
	if op.Domain == "" {
		if c.cfg.DefaultDomain == "" {
			return Operation{}, fmt.Sprintf("%s has no domain, and mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).", trunc(addr, 60))
		}
		op.Domain = c.cfg.DefaultDomain
	}
	if ue := c.checkOp(op); ue != nil {
		return Operation{}, ue.Problem
	}
	return op, ""
}

// owner resolves and checks a row's owner: a Slack user ID, or an
// e-mail the transport finds; either must be reachable by a direct
// message.
func (k *rowChecker) owner(given string) (string, string) {
	if given == "" {
		return "", ""
	}
	if oc, ok := k.owners[given]; ok {
		return oc.id, oc.why
	}
	oc := k.resolve(given)
	if oc.why == "" {
		oc.why = k.c.reachable(k.ctx, oc.id)
	}
	k.owners[given] = oc
	return oc.id, oc.why
}

func (k *rowChecker) resolve(given string) ownerCheck {
	if IsUserID(given) {
		return ownerCheck{id: given}
	}
	if !strings.Contains(given, "@") {
		return ownerCheck{why: fmt.Sprintf("the owner %q is neither a Slack user ID (U…) nor an e-mail address.", trunc(cleanText(given), 40))}
	}
	byEmail, ok := k.c.cfg.People.(PeopleByEmail)
	if !ok {
		return ownerCheck{why: "this mailbot cannot look people up by e-mail: give the owner's Slack user ID (U…)."}
	}
	id, found, err := byEmail.UserByEmail(k.ctx, given)
	switch {
	case err != nil:
		k.c.logger.Warn("owner not looked up", zap.Error(err))
		return ownerCheck{why: fmt.Sprintf("mailbot could not look up %s in Slack. Try again in a minute.", trunc(given, 60))}
	case !found:
		return ownerCheck{why: fmt.Sprintf("nobody in Slack has the e-mail address %s.", trunc(given, 60))}
	}
	return ownerCheck{id: id}
}
