package commands

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// previewRows is how many rows a request message shows.
const previewRows = 5

// maxPreviews bounds the previews kept in the process.
const maxPreviews = 1000

// previews keeps the first rows of recent imports, for their request
// messages; the store has the rows too, so one forgotten is read again.
var previews = struct {
	sync.Mutex
	m map[string]string // request ID -> the rows in words
}{m: map[string]string{}}

func loadPreview(id string) (string, bool) {
	previews.Lock()
	defer previews.Unlock()
	s, ok := previews.m[id]
	return s, ok
}

func storePreview(id, s string) {
	previews.Lock()
	defer previews.Unlock()
	if len(previews.m) >= maxPreviews {
		clear(previews.m)
	}
	previews.m[id] = s
}

func forgetPreview(id string) {
	previews.Lock()
	defer previews.Unlock()
	delete(previews.m, id)
}

// rememberPreview keeps imp's first rows for its request message.
func (c *importService) rememberPreview(imp Import) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s. First rows:", mailboxes(len(imp.Rows)), importDomains(imp.Rows))
	for i, r := range imp.Rows {
		if i == previewRows {
			fmt.Fprintf(&b, " …and %d more.", len(imp.Rows)-previewRows)
			break
		}
		owner := "the requester"
		if r.Owner != "" {
			owner = storedMention(r.Owner)
		}
		fmt.Fprintf(&b, " %s (credentials to %s);", r.Target(), owner)
	}
	storePreview(imp.ID, strings.TrimSuffix(b.String(), ";"))
}

// importPreview is the first rows of import id, for its request message.
func (c *importService) importPreview(ctx context.Context, id string) string {
	if s, ok := loadPreview(id); ok {
		return c.requests.unstore(s)
	}
	is := c.importStore()
	if is == nil {
		return ""
	}
	rec, ok, err := is.GetImport(ctx, id)
	if err != nil || !ok {
		return ""
	}
	c.rememberPreview(rec.Import)
	s, _ := loadPreview(id)
	return c.requests.unstore(s)
}

// importHandoverText is the requester's direct message with the Show
// button of an import's rows without an owner.
func (c *importService) importHandoverText(rec HandoverRecord) string {
	what := fmt.Sprintf("Your import %s created mailboxes without an owner: their credentials are yours.", rec.Login)
	switch rec.State {
	case HandoverStateShowing:
		return what + " Their passwords are being set and shown to you."
	case HandoverStateShown:
		return fmt.Sprintf("%s Their passwords were shown to you at %s. mailbot keeps no copy.", what, fmtTime(rec.DoneAt))
	case HandoverStateExpired:
		return fmt.Sprintf("%s This offer expired at %s without being used: reset those mailboxes to give them passwords.", what, fmtTime(rec.Expires))
	}
	return fmt.Sprintf("%s Click *Show my password* to set and see all of their passwords, once, until %s: only you can.", what, fmtTime(rec.Expires))
}

// showRowsPerReply is how many passwords one answer shows: Slack's
// limits of blocks and characters for an ephemeral message.
const showRowsPerReply = 40

// showImport sets a new password on each created row of the import that
// has no owner and shows them all to the requester, in as few answers as
// fit.
func (c *importService) showImport(ctx context.Context, k Click, rec HandoverRecord) string {
	rows, since, ok := c.ownerlessRows(ctx, rec.Login)
	rows, skipped, read := c.unchangedSince(ctx, rec.Login, since, rows)
	if !ok || !read {
		c.handovers.release(ctx, rec)
		c.deliver(ctx, k.Route, Reply{Title: "Try again in a minute", Error: true, Text: "mailbot could not read the import's rows. Nothing was changed."})
		return LabelError
	}
	fields, failed := c.setPasswords(ctx, rec, rows)
	failed = append(skipped, failed...)
	if len(fields) == 0 && len(rows) > 0 {
		c.handovers.release(ctx, rec)
		c.deliver(ctx, k.Route, Reply{Title: "No password could be set", Error: true, Text: "Nothing was changed: your button still works. Try again later."})
		return LabelError
	}
	c.deliverPasswords(ctx, k.Route, rec.Login, fields)
	if len(failed) > 0 {
		c.deliver(ctx, k.Route, Reply{Title: "Some passwords could not be set", Error: true, Steps: failed})
	}
	ectx, cancel := detach(ctx)
	defer cancel()
	c.handovers.markShown(ectx, rec)
	return LabelShown
}

// ownerlessRows are the created rows of the import id that have no owner,
// and when the import was made; ok is false when the import cannot be
// read.
func (c *importService) ownerlessRows(ctx context.Context, id string) (rows []ImportRow, since time.Time, ok bool) {
	is := c.importStore()
	if is == nil {
		return nil, since, false
	}
	imp, ok, err := is.GetImport(ctx, id)
	if err != nil || !ok {
		return nil, since, false
	}
	for _, s := range imp.States {
		if s.State == RowCreated && s.Owner == "" {
			rows = append(rows, s.ImportRow)
		}
	}
	return rows, imp.Created, true
}

// deliverPasswords shows the fields of the import id's passwords, in as
// few answers as fit.
func (c *importService) deliverPasswords(ctx context.Context, to Route, id string, fields []Field) {
	for i := 0; i < len(fields); i += 2 * showRowsPerReply {
		r := Reply{Title: fmt.Sprintf("Passwords of import %s", id), Fields: fields[i:min(i+2*showRowsPerReply, len(fields))],
			Note: "Only you can see these passwords, shown once: mailbot keeps no copy. Pass each on privately."}
		if c.cfg.ForcePasswordChange {
			r.Note += " Each must be changed at the first login, where the provider can require it."
		}
		c.deliver(ctx, to, r)
	}
}

// setPasswords sets a generated password on each row, at the import's
// concurrency, each audited; it returns the fields to show (address,
// password) and the rows that failed, in words.
func (c *importService) setPasswords(ctx context.Context, rec HandoverRecord, rows []ImportRow) ([]Field, []string) {
	out := make([][]Field, len(rows))
	why := make([]string, len(rows))
	sem := make(chan struct{}, c.cfg.ImportConcurrency)
	var wg sync.WaitGroup
	for i, row := range rows {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], why[i] = c.setRowPassword(ctx, rec, row)
		}()
	}
	wg.Wait()
	var fields []Field
	var failed []string
	for i := range rows {
		fields = append(fields, out[i]...)
		if why[i] != "" {
			failed = append(failed, rows[i].Target()+": "+why[i])
		}
	}
	return fields, failed
}

// setRowPassword sets a new password on one row of an import and returns
// the fields that show it, or why it could not be set.
func (c *importService) setRowPassword(ctx context.Context, rec HandoverRecord, row ImportRow) ([]Field, string) {
	n := Notice{Actor: rec.Owner, Op: Operation{Action: ActionResetPassword, Domain: row.Domain, Login: row.Login}, Provider: c.nameAt(row.Domain), ProviderTitle: c.titleAt(row.Domain)}
	res, begun := c.handovers.resetShown(ctx, rec.Login, n)
	if !begun {
		return nil, codeWords[CodeStore]
	}
	if !res.Notice.OK && !res.Notice.Uncertain {
		return nil, rowWhy(res.Notice)
	}
	for _, f := range res.Reply.Fields {
		if f.Secret {
			return []Field{{Label: "Address", Value: row.Target()}, {Label: "Password", Value: f.Value, Secret: true}}, ""
		}
	}
	return nil, "no password was set"
}

// unchangedSince keeps the rows whose mailbox nothing changed since the
// import id was made (since; a row may change hands while the import
// still runs, before its hand-over is offered): a mailbox that a later reset, block,
// offboarding or hand-over changed (an entry of the audit trail other
// than the import's own) has a newer owner, so its password is not set
// for the requester. skipped says which, in words; read is false when the
// audit trail cannot be read.
func (c *importService) unchangedSince(ctx context.Context, id string, since time.Time, rows []ImportRow) (kept []ImportRow, skipped []string, read bool) {
	if len(rows) == 0 {
		return rows, nil, true
	}
	entries, err := c.store.Audit(ctx, since, 0, false)
	if err != nil {
		c.logger.Warn("audit trail not read for an import's hand-over", zap.String("request_id", id), zap.Error(err))
		return nil, nil, false
	}
	changed := map[string]bool{}
	for _, e := range entries {
		if e.RequestID != id && voids(e.Action) && e.Outcome != OutcomeError {
			changed[e.Target()] = true
		}
	}
	for _, r := range rows {
		if changed[r.Target()] {
			skipped = append(skipped, r.Target()+": changed since the import (reset, blocked, offboarded or handed over): its password was not set")
			continue
		}
		kept = append(kept, r)
	}
	return kept, skipped, true
}
