package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Parameters and results travel in PostgreSQL's text format: the server
// infers each parameter's type from the statement, and every connection
// runs with TimeZone UTC and DateStyle ISO, so that times read back in one
// layout. Arrays are written as array literals and read back as JSON
// (array_to_json), which encoding/json decodes.

// timeLayout writes a time to the server, to the microsecond (the
// server's precision; the rest is cut, not rounded).
const timeLayout = "2006-01-02 15:04:05.999999Z07:00"

// serverTimeLayout reads a timestamptz in DateStyle ISO and TimeZone UTC.
const serverTimeLayout = "2006-01-02 15:04:05.999999-07"

// encode returns the text form of each argument: a string, time.Time,
// int, int64, bool, []string, or nil for NULL.
func encode(args []any) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			out[i] = nil
		case string:
			out[i] = []byte(v)
		case time.Time:
			out[i] = []byte(v.UTC().Format(timeLayout))
		case int:
			out[i] = strconv.AppendInt(nil, int64(v), 10)
		case int64:
			out[i] = strconv.AppendInt(nil, v, 10)
		case bool:
			out[i] = []byte(strconv.FormatBool(v))
		case []string:
			out[i] = []byte(arrayLiteral(v))
		default:
			panic(fmt.Sprintf("pgstore: cannot encode %T", a))
		}
	}
	return out
}

// arrayLiteral writes ss as a text[] literal, every element quoted.
func arrayLiteral(ss []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, r := range s {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// parseTime reads a timestamptz; "" (NULL) is the zero time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(serverTimeLayout, s)
}

// parseArray reads array_to_json of a text[]; "" (NULL) and "[]" are nil.
func parseArray(s string) ([]string, error) {
	var out []string
	if s == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// readResult collects the rows of rr as text, NULL as "", and the number
// of rows the statement affected.
func readResult(rr *pgconn.ResultReader) ([][]string, int64, error) {
	var rows [][]string
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = string(v)
		}
		rows = append(rows, row)
	}
	tag, err := rr.Close()
	return rows, tag.RowsAffected(), err
}

// exec runs one statement on a pooled connection.
func (s *Store) exec(ctx context.Context, sql string, args ...any) ([][]string, int64, error) {
	c, err := s.pool.acquire(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer s.pool.release(c)
	return readResult(c.ExecParams(ctx, sql, encode(args), nil, nil, nil))
}

// batch is a list of statements sent at once.
type batch struct{ b pgconn.Batch }

// add queues sql with args.
func (b *batch) add(sql string, args ...any) *batch {
	b.b.ExecParams(sql, encode(args), nil, nil, nil)
	return b
}

// run sends the batch on c and returns each statement's rows.
func (b *batch) run(ctx context.Context, c *pgconn.PgConn) ([][][]string, error) {
	results, err := c.ExecBatch(ctx, &b.b).ReadAll()
	if err != nil {
		return nil, err
	}
	out := make([][][]string, len(results))
	for i, r := range results {
		if r.Err != nil {
			return nil, r.Err
		}
		for _, vals := range r.Rows {
			row := make([]string, len(vals))
			for j, v := range vals {
				row[j] = string(v)
			}
			out[i] = append(out[i], row)
		}
	}
	return out, nil
}
