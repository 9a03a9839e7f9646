package commands

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// RawRow is one row of an import as it was typed, before it is checked:
// address[,owner[,given name[,family name]]].
type RawRow struct {
	Line    int // the line of the input where the row starts, from 1
	Address string
	Owner   string // a Slack user ID or an e-mail address; may be empty
	Given   string
	Family  string
}

// RowProblem is what is wrong with one row of an import.
type RowProblem struct {
	Source string // "" for the text field; the file's name otherwise
	Line   int
	Text   string
}

func (p RowProblem) String() string {
	where := fmt.Sprintf("Line %d", p.Line)
	if p.Source != "" {
		where = fmt.Sprintf("%s, line %d", p.Source, p.Line)
	}
	if p.Line == 0 {
		where = "The import"
		if p.Source != "" {
			where = p.Source
		}
	}
	return where + ": " + p.Text
}

// maxRowFields is the most fields a row may have.
const maxRowFields = 4

// ParseRows reads the rows of an import from CSV text: one mailbox a
// row, address[,owner[,given name[,family name]]]. A UTF-8 byte-order mark
// is ignored. A first row that names the columns is a header (see
// [headerColumns]): the rows then have their fields where it says, in any
// order, and other columns are ignored; a header separated by ';' makes
// the text ';'-separated. Blank lines and lines that start with # are
// skipped. It stops after limit rows (the caller refuses more): more
// reports whether there were any. Problems are the rows that are not CSV
// or have more fields than four (without a header) or the header's.
func ParseRows(text string, limit int) (rows []RawRow, problems []RowProblem, more bool) {
	text = strings.TrimPrefix(text, "\uFEFF")
	r := newRowReader(text, separator(text))
	cols, first := positional, true
	for {
		rec, err := r.Read()
		if err != nil { // the end of the text too
			var stop bool
			if problems, stop = csvProblem(err, problems, limit); stop {
				return rows, problems, more
			}
			continue
		}
		line, _ := r.FieldPos(0) // after a record read: FieldPos panics otherwise
		if allBlank(rec) {
			continue
		}
		if first {
			first = false
			if h, header, problem := headerColumns(rec); header {
				if problem != "" {
					return nil, append(problems, RowProblem{Line: line, Text: problem}), false
				}
				cols = h
				continue
			}
		}
		if len(rows) >= limit {
			more = true
			continue
		}
		row, problem := cols.row(line, rec)
		if problem != "" {
			problems = append(problems, RowProblem{Line: line, Text: problem})
			continue
		}
		rows = append(rows, row)
	}
}

// newRowReader reads the CSV of an import: rows of any length, # comments,
// leading spaces trimmed.
func newRowReader(text string, comma rune) *csv.Reader {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	return r
}

// csvProblem adds to problems the row that is not CSV; stop says to read no
// further: the text ends (err is io.EOF, no problem), cannot be read, or has
// too many problems to list.
func csvProblem(err error, problems []RowProblem, limit int) (_ []RowProblem, stop bool) {
	var pe *csv.ParseError
	switch {
	case errors.Is(err, io.EOF):
		return problems, true
	case !errors.As(err, &pe):
		return append(problems, RowProblem{Text: "cannot be read"}), true
	}
	problems = append(problems, RowProblem{Line: pe.StartLine, Text: "is not a CSV row: " + pe.Err.Error() + "."})
	return problems, len(problems) > maxRowErrors(limit)
}

// maxRowErrors bounds the unreadable rows ParseRows keeps going after.
func maxRowErrors(limit int) int { return limit + 100 }

// columns is where a row's fields are: at[k] is the column of the k-th
// of address, owner, given and family name (-1: none). Without a header
// they are the first four; with one, where it names them, and a row has
// at most as many fields as the header.
type columns struct {
	at     [maxRowFields]int
	header int // the header's fields; 0: no header
}

var positional = columns{at: [maxRowFields]int{0, 1, 2, 3}}

// row is the row of rec, its fields trimmed.
func (c columns) row(line int, rec []string) (RawRow, string) {
	switch {
	case c.header == 0 && len(rec) > maxRowFields:
		return RawRow{}, fmt.Sprintf("has %d fields; a row is address[,owner[,given name[,family name]]].", len(rec))
	case c.header > 0 && len(rec) > c.header:
		return RawRow{}, fmt.Sprintf("has %d fields, more than the header's %d.", len(rec), c.header)
	}
	var f [maxRowFields]string
	for k, i := range c.at {
		if i >= 0 && i < len(rec) {
			f[k] = strings.TrimSpace(rec[i])
		}
	}
	if f == ([maxRowFields]string{}) {
		return RawRow{}, "has no address: its fields are all in columns the header does not name."
	}
	return RawRow{Line: line, Address: f[0], Owner: f[1], Given: f[2], Family: f[3]}, ""
}

// columnNames are the names a header may give each field of a row, in
// lower case, without notes in brackets.
var columnNames = [maxRowFields][]string{
	{"address", "email", "email address", "e-mail", "e-mail address", "mail", "mail address"},
	{"owner", "slack", "slack user", "slack id", "slack user id"},
	{"given", "given name", "first", "first name"},
	{"family", "family name", "last", "last name", "surname"},
}

// headerColumns reads rec as a header: it is one when a field is a column
// name (in any case, anything in brackets ignored, see [columnNames]) and
// none holds an address. A header that names no address column is a
// problem.
func headerColumns(rec []string) (_ columns, header bool, problem string) {
	c := columns{at: [maxRowFields]int{-1, -1, -1, -1}, header: len(rec)}
	for i, field := range rec {
		if strings.Contains(field, "@") {
			return columns{}, false, ""
		}
		name := columnName(field)
		for k, names := range columnNames {
			if c.at[k] < 0 && slices.Contains(names, name) {
				c.at[k], header = i, true
			}
		}
	}
	if header && c.at[0] < 0 {
		return columns{}, true, "is a header without an address column (address, email, e-mail or mail)."
	}
	return c, header, ""
}

// columnName is a header's field in lower case, without what is in
// brackets, its spaces and underscores made single spaces.
func columnName(field string) string {
	var b strings.Builder
	depth := 0
	for _, r := range strings.ToLower(field) {
		switch {
		case r == '[' || r == '(':
			depth++
		case r == ']' || r == ')':
			depth = max(depth-1, 0)
		case depth > 0:
		case r == '_':
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// separator is ';' when the text's first line (not blank, not a comment)
// is a header separated by ';', else ','.
func separator(text string) rune {
	for line := range strings.Lines(text) {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, comma := range []rune{',', ';'} {
			rec, err := newRowReader(line, comma).Read()
			if _, header, _ := headerColumns(rec); err == nil && header {
				return comma
			}
		}
		return ','
	}
	return ','
}

func allBlank(rec []string) bool {
	for _, s := range rec {
		if strings.TrimSpace(s) != "" {
			return false
		}
	}
	return true
}
