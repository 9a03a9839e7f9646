package commands

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The import's limits.
const (
	DefaultImportMaxRows = 1000  // MAILBOT_IMPORT_MAX_ROWS when it is not set
	MaxImportMaxRows     = 10000 // the most MAILBOT_IMPORT_MAX_ROWS may be
	// MaxImportFile is the most bytes of a CSV file an import reads.
	MaxImportFile = 1 << 20
	// maxShownProblems is how many row problems a form shows.
	maxShownProblems = 20
	// defaultImportConcurrency is how many rows run at once when
	// Config.ImportConcurrency is zero.
	defaultImportConcurrency = 8
)

// SettingImportMaxRows is the setting of MAILBOT_IMPORT_MAX_ROWS.
const SettingImportMaxRows Setting = "ImportMaxRows"

// ImportRow is one checked row of an import: the mailbox to create, and
// who gets its credentials.
type ImportRow struct {
	Line   int // where it was in the input, for people
	Domain string
	Login  string
	// Owner is the Slack user ID the row's credentials go to; empty: the
	// requester, with one Show button for all such rows.
	Owner  string
	Given  string
	Family string
}

// Target is the row's address.
func (r ImportRow) Target() string { return r.Login + "@" + r.Domain }

// Import is a checked import, kept in the store under its request's ID.
// It holds no secret.
type Import struct {
	ID        string // the request's ID
	Requester string
	Channel   string
	Reason    string
	Rows      []ImportRow
	Digest    string // of the rows: the signed request carries it
	Created   time.Time
}

// ImportInput is what a person gave to an import: the form's text field
// and the CSV file (its name and content), either may be empty.
type ImportInput struct {
	Text     string
	File     string
	FileName string
	Reason   string
}

// FieldRows names the import form's rows in the problems SubmitImport
// returns.
const FieldRows = "rows"

// checkImport checks the import's settings of cfg; a zero ImportMaxRows
// is the default.
func (cfg Config) checkImport(refuse func(Setting, error)) Config {
	if cfg.ImportConcurrency <= 0 {
		cfg.ImportConcurrency = defaultImportConcurrency
	}
	if cfg.ImportMaxRows != 0 { // zero: the default
		refuse(SettingImportMaxRows, CheckRange(cfg.ImportMaxRows, 1, MaxImportMaxRows))
	}
	return cfg
}

// importOp is the operation an import's request carries: the rows'
// count, their domains and their digest. The rows stay in the store.
func importOp(imp Import) Operation {
	return Operation{Action: ActionImport, Domain: importDomains(imp.Rows), Login: imp.ID, Reason: imp.Reason,
		Rows: len(imp.Rows), Digest: imp.Digest}
}

// importDomains lists the rows' domains, sorted, for people.
func importDomains(rows []ImportRow) string {
	var ds []string
	for _, r := range rows {
		if !slices.Contains(ds, r.Domain) {
			ds = append(ds, r.Domain)
		}
	}
	slices.Sort(ds)
	if len(ds) > 5 {
		return strings.Join(ds[:5], ", ") + fmt.Sprintf(" and %d more", len(ds)-5)
	}
	return strings.Join(ds, ", ")
}

// importProviders names the providers that rows go to, each once, in
// the order of the rows ("pdd" or "pdd,mailcow").
func (c *importService) importProviders(rows []ImportRow) string {
	var ps []string
	for _, r := range rows {
		if p := c.nameAt(r.Domain); !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return strings.Join(ps, ",")
}

// rowsDigest is the digest of rows: what the request's signature covers.
func rowsDigest(rows []ImportRow) string {
	h := sha256.New()
	for _, r := range rows {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%s\x00%s\n", r.Line, r.Login, r.Domain, r.Owner, r.Given, r.Family)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// importForm is the form of /mailbox import.
func (c *importService) importForm(req Request) *Form {
	outcome, _ := c.access.authorise(req.UserID)
	return &Form{Action: ActionImport, Command: CmdMailbox, ReasonRequired: outcome == StepApproval,
		Metadata: c.seal(formKind, wireForm{Channel: req.ChannelID, Action: ActionImport})}
}

// ImportCheck is a submitted import whose rows passed the checks that
// need no transport, or not: what is left is its owners' check
// ([Core.FinishImport]), which asks the transport about each (a look-up
// each, or the directory once) and may take longer than a form may wait.
type ImportCheck struct {
	req      Request
	reason   string
	approval bool
	rows     []pendingRow
	problems []RowProblem
	owners   []string // the distinct owners as given, in order
}

// Channel is where the import was asked for.
func (ic *ImportCheck) Channel() string { return ic.req.ChannelID }

// Rows is how many rows passed the first checks.
func (ic *ImportCheck) Rows() int { return len(ic.rows) }

// Owners is how many distinct owners are left to check.
func (ic *ImportCheck) Owners() int { return len(ic.owners) }

// Problems is the rows' problems found so far, by field; nil when none.
func (ic *ImportCheck) Problems() map[string]string {
	if len(ic.problems) == 0 {
		return nil
	}
	return map[string]string{FieldRows: problemLines(ic.problems)}
}

// SubmitImport is [Core.SubmitImport]'s work.
func (c *importService) SubmitImport(user, metadata string, in ImportInput) (*ImportCheck, map[string]string) {
	var w wireForm
	if err := c.unseal(formKind, metadata, &w); err != nil || w.Action != ActionImport {
		return nil, map[string]string{FieldRows: "This form is not valid: mailbot cannot read it. Close it and type the command again."}
	}
	return c.BeginImport(Request{UserID: user, ChannelID: w.Channel, Command: CmdMailbox}, in)
}

// BeginImport is [Core.BeginImport]'s work.
func (c *importService) BeginImport(req Request, in ImportInput) (*ImportCheck, map[string]string) {
	outcome, why := c.access.authorise(req.UserID)
	if outcome == StepReply {
		return nil, map[string]string{FieldRows: why}
	}
	ic := &ImportCheck{req: req, reason: cleanReason(in.Reason), approval: outcome == StepApproval}
	if ic.approval && ic.reason == "" {
		return nil, map[string]string{FieldReason: "An import needs an admin's approval: say why it is needed."}
	}
	ic.rows, ic.problems = c.checkRows(in)
	if errs := c.access.rowsTheirs(ic); errs != nil {
		return nil, errs
	}
	seen := map[string]bool{}
	for _, r := range ic.rows {
		if r.owner != "" && !seen[r.owner] {
			seen[r.owner] = true
			ic.owners = append(ic.owners, r.owner)
		}
	}
	return ic, nil
}

// FinishImport is [Core.FinishImport]'s work.
func (c *importService) FinishImport(ctx context.Context, ic *ImportCheck) (Decision, map[string]string) {
	owners := c.checkOwners(ctx, ic.owners)
	problems := ic.problems
	rows := make([]ImportRow, 0, len(ic.rows))
	for _, r := range ic.rows {
		oc := owners[r.owner]
		if oc.why != "" {
			problems = append(problems, RowProblem{Source: r.source, Line: r.row.Line, Text: oc.why})
			continue
		}
		r.row.Owner = oc.id
		rows = append(rows, r.row)
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return Decision{}, map[string]string{FieldRows: problemLines(problems)}
	}
	now := c.now()
	imp := Import{ID: newID(), Requester: ic.req.UserID, Channel: ic.req.ChannelID, Reason: ic.reason, Rows: rows,
		Digest: rowsDigest(rows), Created: now}
	d := Decision{Step: StepRun, Op: importOp(imp), Import: &imp}
	if ic.approval {
		d.Step = StepApproval
		d.Pending = &Pending{ID: imp.ID, Requester: ic.req.UserID, Channel: ic.req.ChannelID, Op: d.Op, Created: now, Expires: now.Add(c.cfg.ApprovalTTL)}
	}
	return d, nil
}

// PrepareImport is [Core.PrepareImport]'s work.
func (c *importService) PrepareImport(ctx context.Context, req Request, in ImportInput) (Decision, map[string]string) {
	ic, errs := c.BeginImport(req, in)
	if errs != nil {
		return Decision{}, errs
	}
	return c.FinishImport(ctx, ic)
}

// sortProblems orders problems as the rows are: the typed ones, then the
// file's, each by line.
func sortProblems(ps []RowProblem) {
	slices.SortStableFunc(ps, func(a, b RowProblem) int {
		if (a.Source == "") != (b.Source == "") {
			if a.Source == "" {
				return -1
			}
			return 1
		}
		return a.Line - b.Line
	})
}

// problemLines writes the first problems one a line, then how many more.
func problemLines(ps []RowProblem) string {
	var b strings.Builder
	for i, p := range ps {
		if i == maxShownProblems {
			fmt.Fprintf(&b, "…and %d more problems.", len(ps)-maxShownProblems)
			break
		}
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}
