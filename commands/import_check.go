package commands

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// PeopleByEmail is what the transport may know besides People: who has an
// e-mail address (Slack's users.lookupByEmail). An import's owner may be
// given by e-mail only when Config.People implements it.
type PeopleByEmail interface {
	// UserByEmail returns the user ID of the person whose profile has
	// email, and what the transport knows of them; ok is false when
	// nobody has it. An error means the transport could not be asked.
	UserByEmail(ctx context.Context, email string) (userID string, p Person, ok bool, err error)
}

// maxNameLen bounds a given or family name, in characters.
const maxNameLen = 60

// checkRows parses in's text and file and checks every row by the rules
// of add that need no transport: the address, the allowed domains,
// duplicates, and the limit. The rows' owners are checked later, all
// together (checkOwners).
func (c *importService) checkRows(in ImportInput) ([]pendingRow, []RowProblem) {
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
	ck := rowChecker{c: c, seen: map[string]string{}}
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

// pendingRow is a row that passed every check but its owner's: owner is
// the owner as given.
type pendingRow struct {
	row    ImportRow
	source string
	owner  string
}

// rowChecker checks the rows of one import.
type rowChecker struct {
	c    *importService
	seen map[string]string // address -> where it was first
}

func (k *rowChecker) check(raw []RawRow, source string, problems *[]RowProblem) []pendingRow {
	rows := make([]pendingRow, 0, len(raw))
	for _, r := range raw {
		row, why := k.row(r, source)
		if why != "" {
			*problems = append(*problems, RowProblem{Source: source, Line: r.Line, Text: why})
			continue
		}
		rows = append(rows, pendingRow{row: row, source: source, owner: r.Owner})
	}
	return rows
}

// row checks one row but its owner; why says what is wrong, or is "".
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
	return ImportRow{Line: r.Line, Domain: op.Domain, Login: op.Login, Given: r.Given, Family: r.Family}, ""
}

// importAddress checks an import's address by the rules of a typed add.
func (c *importService) importAddress(addr string) (Operation, string) {
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
	if ue := c.policy.checkOp(op); ue != nil {
		return Operation{}, ue.Problem
	}
	return op, ""
}
