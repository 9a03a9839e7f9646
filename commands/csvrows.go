package commands

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
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
// row, address[,owner[,given name[,family name]]]. A first row whose
// first field is "address" is a header and skipped, as are blank lines
// and lines that start with #. It stops after limit rows (the caller
// refuses more): more reports whether there were any. Problems are the
// rows that are not CSV or have more than four fields.
func ParseRows(text string, limit int) (rows []RawRow, problems []RowProblem, more bool) {
	r := newRowReader(text)
	first := true
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, problems, more
		}
		if err != nil {
			var stop bool
			if problems, stop = csvProblem(err, problems, limit); stop {
				return rows, problems, more
			}
			continue
		}
		line, _ := r.FieldPos(0) // after a record read: FieldPos panics otherwise
		skip := (first && isHeader(rec)) || allBlank(rec)
		first = false
		if skip {
			continue
		}
		if len(rows) >= limit {
			more = true
			continue
		}
		row, problem := rawRow(line, rec)
		if problem != "" {
			problems = append(problems, RowProblem{Line: line, Text: problem})
			continue
		}
		rows = append(rows, row)
	}
}

// newRowReader reads the CSV of an import: rows of any length, # comments,
// leading spaces trimmed.
func newRowReader(text string) *csv.Reader {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.Comment = '#'
	r.TrimLeadingSpace = true
	r.ReuseRecord = true
	return r
}

// csvProblem adds to problems the row that is not CSV; stop says to read no
// further: the text cannot be read, or it has too many problems to list.
func csvProblem(err error, problems []RowProblem, limit int) (_ []RowProblem, stop bool) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return append(problems, RowProblem{Text: "cannot be read"}), true
	}
	problems = append(problems, RowProblem{Line: pe.StartLine, Text: "is not a CSV row: " + pe.Err.Error() + "."})
	return problems, len(problems) > maxRowErrors(limit)
}

// maxRowErrors bounds the unreadable rows ParseRows keeps going after.
func maxRowErrors(limit int) int { return limit + 100 }

func rawRow(line int, rec []string) (RawRow, string) {
	if len(rec) > maxRowFields {
		return RawRow{}, fmt.Sprintf("has %d fields; a row is address[,owner[,given name[,family name]]].", len(rec))
	}
	f := make([]string, maxRowFields)
	for i, s := range rec {
		f[i] = strings.TrimSpace(s)
	}
	return RawRow{Line: line, Address: f[0], Owner: f[1], Given: f[2], Family: f[3]}, ""
}

// isHeader reports whether rec is the header row address,owner,given,family.
func isHeader(rec []string) bool {
	return len(rec) > 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "address")
}

func allBlank(rec []string) bool {
	for _, s := range rec {
		if strings.TrimSpace(s) != "" {
			return false
		}
	}
	return true
}
