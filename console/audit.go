package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// AuditPages reads the audit trail since a time, oldest first, a page at
// a time, handing each page to page before it reads the next (the
// PostgreSQL store's AuditPages).
type AuditPages func(ctx context.Context, since time.Time, page func([]commands.AuditEntry) error) error

// PrintAudit is mailbot audit's output: the trail pages reads since the
// given time, oldest first, as a table or one JSON object a line (see
// docs/state.md), each page written out before the next is read, so that
// any window prints in constant memory.
func PrintAudit(ctx context.Context, pages AuditPages, since time.Time, asJSON bool, stdout io.Writer) error {
	out := bufio.NewWriterSize(stdout, 64<<10)
	write := writeAuditTable
	if asJSON {
		write = writeAuditJSON
	}
	first := true
	err := pages(ctx, since, func(page []commands.AuditEntry) error {
		if err := write(out, page, first); err != nil {
			return err
		}
		first = false
		return out.Flush()
	})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if first && !asJSON {
		return writeAuditTable(stdout, nil, true) // the header alone
	}
	return nil
}

// auditJSON is one line of `mailbot audit --json`.
type auditJSON struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	RequestID string    `json:"request_id,omitempty"`
	Event     string    `json:"event"`
	Actor     string    `json:"actor"`
	Deciders  []string  `json:"deciders,omitempty"`
	Action    string    `json:"action"`
	Provider  string    `json:"provider,omitempty"`
	Domain    string    `json:"domain"`
	Mailbox   string    `json:"mailbox,omitempty"`
	To        string    `json:"to,omitempty"` // an alias's mailbox, an offboarding's successor
	Reason    string    `json:"reason,omitempty"`
	Outcome   string    `json:"outcome,omitempty"`
	Status    string    `json:"status,omitempty"`
	Stage     string    `json:"stage,omitempty"`
	UID       string    `json:"uid,omitempty"`
	Code      string    `json:"code,omitempty"`
	HandedTo  string    `json:"handed_to,omitempty"` // whom the credentials went to, in a hand-over
	Source    string    `json:"source,omitempty"`    // slack or shell; empty before sources were recorded
}

// writeAuditJSON writes one page of entries, a JSON object a line.
func writeAuditJSON(w io.Writer, entries []commands.AuditEntry, _ bool) error {
	enc := json.NewEncoder(w)
	for _, e := range entries {
		j := auditJSON{ID: e.ID, Time: e.Time.UTC(), RequestID: e.RequestID, Event: string(e.Event), Actor: e.Actor,
			Deciders: e.Deciders, Action: string(e.Action), Provider: e.Provider, Domain: e.Domain, Reason: e.Reason, Outcome: e.Outcome,
			Status: e.Status, Stage: e.Stage, UID: e.UID, Code: e.Code, HandedTo: e.HandedTo, To: e.To, Source: e.Source}
		if e.Login != "" {
			j.Mailbox = e.Login + "@" + e.Domain
		}
		if err := enc.Encode(j); err != nil {
			return err
		}
	}
	return nil
}

// writeAuditTable writes one page of entries as a table, the header
// first when header is set; the columns are fitted to the page.
func writeAuditTable(w io.Writer, entries []commands.AuditEntry, header bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if header {
		fmt.Fprintln(tw, "TIME\tREQUEST\tEVENT\tACTOR\tDECIDERS\tACTION\tTARGET\tOUTCOME\tSOURCE\tDETAIL\tREASON")
	}
	for _, e := range entries {
		target, detail := e.Target(), e.Details(func(id string) string { return id })
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.UTC().Format(time.RFC3339), dash(e.RequestID), e.Event,
			e.Actor, dash(strings.Join(e.Deciders, ",")), e.Action, target, dash(e.Outcome), dash(e.Source), dash(strings.Join(detail, " ")), dash(tabless(e.Reason)))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tabless keeps a reason on its column.
func tabless(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }

// SinceFlag is audit's --since: a Go duration (12h, 90m), or days first
// (30d, 1d12h).
type SinceFlag time.Duration

func (f *SinceFlag) String() string { return time.Duration(*f).String() }

// Set parses s as the flag's value.
func (f *SinceFlag) Set(s string) error {
	d, err := parseSince(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: write days, hours or minutes, such as 30d, 12h or 90m", s)
	}
	*f = SinceFlag(d)
	return nil
}

// parseSince parses a duration: days first ("30d", "1d12h"),
// then what time.ParseDuration takes.
func parseSince(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseUint(s[:i], 10, 16)
		if err != nil {
			return 0, err
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
	}
	var rest time.Duration
	if s != "" {
		var err error
		if rest, err = time.ParseDuration(s); err != nil {
			return 0, err
		}
	}
	if rest > 0 && days > math.MaxInt64-rest {
		return 0, errors.New("too long")
	}
	return days + rest, nil
}
